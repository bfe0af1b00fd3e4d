"""The fork server: one process that has imported a SUT once and forks a fresh driver per start.

Started by the lab's local runtime (``lab/runtime/forkserver.py``) in the SUT's environment as
``python -u -m memlab_driver.fork_server SPEC_FILE STATUS_FD`` (the spec a JSON file: a recorded
module list outgrows one command-line argument, 128 KiB), in the driver's folder (so
``sys.path[0]`` is the driver's folder, as for ``python driver.py``). It imports the kit (as
every driver does first), then *preloads*: it runs ``driver.py``'s top level under another
name than ``__main__`` (the driver's imports and environment defaults, no ``serve``), then
imports the modules the spec names. It never opens a store. It refuses to serve when a preload
fails or when more than one thread runs afterwards (forking a threaded process is unsafe), and
says so on the status fd; otherwise it listens on a Unix socket.

Each connection is one start, from ``fork_launch.py``: the launcher's stdin/stdout/stderr
(SCM_RIGHTS) and a JSON line ``{"argv", "cwd", "env", "track", "record"}``. The server forks;
the child becomes the trial's driver (``fork_child.py``); the server answers ``{"pid": N}``,
later ``{"exit": code}`` (negative: killed by that signal). When the child ends, or the
launcher's connection closes first (it was killed), the server SIGKILLs the child's process
group. The server exits on SIGTERM, when its parent (memlab) is gone, or after ``idle``
seconds with no child running; it then kills every child's group. Single-threaded by design.
Imports only the standard library.

A launcher in another PID namespace (the docker runtime's: the server runs in a container)
asks for a SIGTERM of the child's group with a ``{"signal": 15}`` line on its connection.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import socket
import sys
import time

import memlab_driver  # noqa: F401  (first, as in every driver: the stdio guard and the signal capture)
from memlab_driver import fork_child
from memlab_driver.fork_preload import preload

#: Largest request line a launcher may send (argv, cwd and environment as JSON).
MAX_REQUEST = 1 << 20


class _Shutdown(Exception):
    """SIGTERM, or the parent is gone: end every child and exit."""


class Server:
    """The accept/fork/reap loop over one listening socket (see the module docstring)."""

    def __init__(self, listener: socket.socket, idle: float):
        self.listener, self.idle = listener, idle
        self.selector = selectors.DefaultSelector()
        self.selector.register(listener, selectors.EVENT_READ, ("accept", None))
        self.children: dict[int, dict] = {}  # pid -> {"conn", "pidfd", "track"}
        self.parent = os.getppid()

    def drop(self) -> None:
        """In a forked child: close everything the server holds (its objects, not bare numbers,
        so no finalizer closes a descriptor number the driver reuses later)."""
        self.selector.close()
        self.listener.close()
        for child in self.children.values():
            child["conn"].close()
            _close(child["pidfd"])
        self.children = {}

    def serve(self) -> dict | None:
        """Serve until shutdown (returns None) or, in a forked child, return its request."""
        last = time.monotonic()
        try:
            while True:
                for key, _ in self.selector.select(timeout=0.5):
                    kind, pid = key.data
                    if kind == "accept":
                        job = self.accept()
                        if job is not None:
                            return job
                    elif kind == "conn":
                        self.launcher_gone(pid)
                    else:
                        self.reap(pid)
                if self.children:
                    last = time.monotonic()
                if os.getppid() != self.parent:
                    raise _Shutdown("parent gone")
                if self.idle and time.monotonic() - last > self.idle:
                    return None
        except _Shutdown:
            return None
        finally:
            if not fork_child.IN_CHILD:
                self.close()

    def accept(self) -> dict | None:
        """Read one start request with its descriptors and fork; the request in the child."""
        conn, _ = self.listener.accept()
        fds: list[int] = []
        try:
            conn.settimeout(5)
            data, fds, _, _ = socket.recv_fds(conn, MAX_REQUEST, 3)
            while not data.endswith(b"\n") and len(data) < MAX_REQUEST:
                more = conn.recv(MAX_REQUEST)
                if not more:
                    break
                data += more
            request = json.loads(data)
            if len(fds) != 3:
                raise ValueError(f"{len(fds)} descriptors sent, 3 expected")
        except (OSError, ValueError) as exc:
            _note(f"bad start request: {exc}")
            for fd in fds:
                _close(fd)
            conn.close()
            return None
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
        sys.stdout.flush(), sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            fork_child.IN_CHILD = True
            self.drop()
            conn.close()
            return {**request, "fds": fds}
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
        for fd in fds:
            os.close(fd)
        pidfd = os.pidfd_open(pid)
        track = fork_child.track(request.get("track"), pid)
        self.children[pid] = {"conn": conn, "pidfd": pidfd, "track": track}
        self.selector.register(pidfd, selectors.EVENT_READ, ("child", pid))
        self.selector.register(conn, selectors.EVENT_READ, ("conn", pid))
        _send(conn, {"pid": pid})
        return None

    def launcher_gone(self, pid: int) -> None:
        """The launcher's connection closed (or spoke out of turn): kill the child's group."""
        child = self.children.get(pid)
        if child is None:  # reaped in the same round of events
            return
        if _asked_signal(child["conn"]) == signal.SIGTERM:  # a launcher outside this PID namespace
            _signalpg(pid, signal.SIGTERM)
            return
        self.selector.unregister(child["conn"])
        _killpg(pid)

    def reap(self, pid: int) -> None:
        """The child ended: kill what is left in its group, tell the launcher its exit code."""
        child = self.children.pop(pid)
        _, status = os.waitpid(pid, 0)
        _killpg(pid)
        self.selector.unregister(child["pidfd"])
        os.close(child["pidfd"])
        try:
            self.selector.unregister(child["conn"])
        except KeyError:
            pass
        _send(child["conn"], {"exit": os.waitstatus_to_exitcode(status)})
        child["conn"].close()
        fork_child.untrack(child["track"])

    def close(self) -> None:
        """Kill every child's group, stop listening."""
        for pid, child in list(self.children.items()):
            _killpg(pid)
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
            child["conn"].close()
            fork_child.untrack(child["track"])
        self.children.clear()
        try:
            os.unlink(self.listener.getsockname())
        except OSError:
            pass
        self.listener.close()


def main(spec: dict, status_fd: int) -> dict | None:
    """Preload, report on ``status_fd``, serve; returns a request only in a forked child."""
    status = preload(spec["driver"], spec.get("modules", []), spec.get("optional", []),
                     spec.get("per_start", []), spec.get("private", ""), spec.get("unused_paths", []))
    if status.get("ready"):
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(spec["socket"])
        listener.listen(16)
        status["pid"] = os.getpid()
    os.write(status_fd, (json.dumps(status) + "\n").encode())
    os.close(status_fd)
    if not status.get("ready"):
        return None
    signal.signal(signal.SIGTERM, _on_sigterm)
    return Server(listener, float(spec.get("idle", 0))).serve()


def _on_sigterm(signum, frame) -> None:
    raise _Shutdown("SIGTERM")


def _send(conn: socket.socket, message: dict) -> None:
    try:
        conn.sendall((json.dumps(message) + "\n").encode())
    except OSError:
        pass  # the launcher is gone; its child is being killed


def _killpg(pid: int) -> None:
    _signalpg(pid, signal.SIGKILL)


def _signalpg(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _asked_signal(conn: socket.socket) -> int | None:
    """The signal a readable launcher connection asks for (``{"signal": N}``), or None: it closed
    or said something else (either way the launcher is gone or misbehaves)."""
    try:
        line = conn.recv(64, socket.MSG_DONTWAIT)
        return int(json.loads(line)["signal"]) if line.endswith(b"\n") else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _close(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


def _note(message: str) -> None:
    os.write(2, f"memlab fork server: {message}\n".encode())


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as _spec:
        _job = main(json.load(_spec), int(sys.argv[2]))
    if _job is None:
        sys.exit(0)
    fork_child.run(_job)
