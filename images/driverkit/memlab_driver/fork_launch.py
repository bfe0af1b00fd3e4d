"""The launcher of a fork-served start: the process the lab starts in place of ``python driver.py``.

Run as ``python -I -S fork_launch.py SOCKET TRACK RECORD -- PYTHON -u driver.py`` (no site, no
SUT imports: milliseconds). It connects to the fork server, passes its own stdin, stdout and
stderr (SCM_RIGHTS) with the plain command line, its working folder and its environment (the
trial's), and waits: the server forks the driver, answers its pid, then its exit code, which
the launcher exits with (a driver killed by a signal: the launcher kills itself with it, so the
lab sees the same return code as on the plain path). SIGTERM is passed on to the driver's
process group; when the launcher is killed, the server kills the driver's group. ``TRACK`` and
``RECORD`` are a folder to record the driver's pid in and a file for the loaded modules' names
(``-``: none). When the server cannot be reached, the launcher becomes the plain driver (exec)
and says so on stderr (the SUT's log). Imports only the standard library, nothing of the kit.

With ``MEMLAB_FORK_REMOTE=1`` in its environment (taken out before the environment is passed on)
the server runs in another PID namespace, a container of the docker runtime
(``lab/runtime/docker_forkserver.py``): the pid it answers means nothing here, so SIGTERM is
passed on as a ``{"signal": 15}`` line on the connection (the server signals the driver's group),
and a server that cannot be reached is an error (exit 127), not a plain start on this host.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys


def main(argv: list[str]) -> int:
    """Start the driver through the server (or plainly) and return its exit code."""
    sep = argv.index("--")
    sock_path, track, record = argv[1:4]
    plain = argv[sep + 1:]
    remote = os.environ.pop("MEMLAB_FORK_REMOTE", "") == "1"
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(sock_path)
        request = {"argv": plain, "cwd": os.getcwd(), "env": dict(os.environ),
                   "track": None if track == "-" else track, "record": None if record == "-" else record}
        socket.send_fds(conn, [json.dumps(request).encode() + b"\n"], [0, 1, 2])
        answers = conn.makefile("rb")
        started = json.loads(answers.readline() or b"{}")
    except (OSError, ValueError) as exc:
        started = {"error": str(exc)}
    if "pid" not in started and remote:
        _note(f"fork server not serving ({started.get('error', 'no answer')}); no plain start here")
        return 127
    if "pid" not in started:
        _note(f"fork server not serving ({started.get('error', 'no answer')}); plain start")
        conn.close()
        os.execv(plain[0], plain)
    child = int(started["pid"])
    if remote:
        signal.signal(signal.SIGTERM, lambda signum, frame: _ask(conn, signal.SIGTERM))
    else:
        signal.signal(signal.SIGTERM, lambda signum, frame: _killpg(child, signal.SIGTERM))
    ended = answers.readline()
    if not ended:
        _note("the fork server ended before the driver did; the driver was killed with it")
        return 128 + signal.SIGKILL
    return int(json.loads(ended)["exit"])


def _killpg(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _ask(conn: socket.socket, sig: int) -> None:
    """Ask a server in another PID namespace to signal the driver's group."""
    try:
        conn.sendall((json.dumps({"signal": int(sig)}) + "\n").encode())
    except OSError:
        pass


def _note(message: str) -> None:
    try:
        os.write(2, f"memlab fork launcher: {message}\n".encode())
    except OSError:
        pass


def exit_like(code: int) -> None:
    """Exit with the driver's code; for a driver killed by signal N, die of signal N."""
    if code < 0:
        try:
            signal.signal(-code, signal.SIG_DFL)  # SIGKILL's cannot be set, and needs no reset
        except (OSError, ValueError):
            pass
        os.kill(os.getpid(), -code)
        code = 128 - code
    os._exit(code)


if __name__ == "__main__":
    exit_like(main(sys.argv))
