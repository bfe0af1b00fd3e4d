"""A forked child of the fork server becoming the trial's driver process (``fork_server.py``).

In order, before any of the driver's code runs: its own session (so a stop reaches its children),
death with the server, default signal handlers, the trial's environment in place of the
server's (wholesale), the launcher's stdin/stdout/stderr on fd 0/1/2, the kit's stdio guard
taken anew on them, the trial's working folder, state that must not be shared between starts
(``tempfile``'s cached folder, the user site folders of ``site`` and ``sysconfig``, numpy's
global random state) made fresh; then ``driver.py`` runs
as ``__main__`` with ``sys.argv`` and ``sys.path[0]`` as ``python driver.py`` has them.
Imports only the standard library.
"""

from __future__ import annotations

import ctypes
import json
import os
import runpy
import signal
import sys

#: Set in a forked child, so the server's clean-up does not run there.
IN_CHILD = False
_PR_SET_PDEATHSIG = 1
try:
    _LIBC = ctypes.CDLL(None, use_errno=True)
except OSError:  # no libc to ask: the launcher's connection still ends the child
    _LIBC = None


def run(job: dict) -> None:
    """Become the trial's driver process and run its script (raises what the driver raises)."""
    server = os.getppid()
    os.setsid()
    if _LIBC is not None:
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != server:  # the server died before the prctl took hold
        os._exit(128 + signal.SIGKILL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    os.environ.clear()
    os.environ.update(job["env"])
    for target, fd in enumerate(job["fds"]):
        os.dup2(fd, target)
    for fd in job["fds"]:
        if fd > 2:
            os.close(fd)
    _guard_again()
    os.chdir(job["cwd"])
    _fresh_state()
    script, args = _script(job["argv"])
    sys.argv = [script, *args]
    sys.path[0] = os.path.dirname(script)
    if job.get("record"):
        _record_on_first_answer(job["record"])
    runpy.run_path(script, run_name="__main__")


def _script(argv: list[str]) -> tuple[str, list[str]]:
    """The script and its arguments in a plain ``python [flags] driver.py ARGS`` command line."""
    rest = argv[1:]
    while rest and rest[0].startswith("-"):
        rest = rest[1:]
    if not rest:
        raise SystemExit(f"memlab fork server: no script in {argv}")
    return rest[0], rest[1:]


def _guard_again() -> None:
    """The stdio guard on the trial's fd 0/1 (the server's copies are closed)."""
    import memlab_driver as kit
    from memlab_driver import guard

    for old in (guard.PROTOCOL_OUT, guard.PROTOCOL_IN):
        if old is not None:
            old.close()
    guard.PROTOCOL_OUT = guard.PROTOCOL_IN = None
    guard.guard_stdio()
    kit._PROTOCOL_OUT, kit._PROTOCOL_IN = guard.PROTOCOL_OUT, guard.PROTOCOL_IN


def _fresh_state() -> None:
    """What a preloaded module cached that a plain start would have computed anew."""
    if "tempfile" in sys.modules:
        sys.modules["tempfile"].tempdir = None  # gettempdir() reads the trial's TMPDIR again
    if "site" in sys.modules:  # the user site folders were computed from the server's HOME
        sys.modules["site"].USER_BASE = sys.modules["site"].USER_SITE = None  # recomputed from the trial's
    config = getattr(sys.modules.get("sysconfig"), "_CONFIG_VARS", None)
    if isinstance(config, dict) and "userbase" in config:  # sysconfig's cached copy of the same
        config["userbase"] = sys.modules["sysconfig"]._getuserbase()
    if "numpy.random" in sys.modules:  # the global RandomState was seeded once, in the server
        try:
            sys.modules["numpy.random"].seed()
        except Exception:  # noqa: BLE001  (a numpy without the legacy seed: nothing shared to renew)
            pass


class _FirstAnswer:
    """The protocol's output, recording the loaded modules once the first answer is written."""

    def __init__(self, out, path: str):
        self._out, self._path = out, path

    def write(self, text: str) -> int:
        written = self._out.write(text)
        if self._path:
            path, self._path = self._path, ""
            _write_modules(path)
        return written

    def __getattr__(self, name: str):
        return getattr(self._out, name)


def _record_on_first_answer(path: str) -> None:
    import memlab_driver as kit
    from memlab_driver import guard

    guard.PROTOCOL_OUT = kit._PROTOCOL_OUT = _FirstAnswer(guard.PROTOCOL_OUT, path)


def _write_modules(path: str) -> None:
    """The names of the loaded modules, in the order they were loaded, as a JSON list."""
    names = [n for n in list(sys.modules) if "__main__" not in n and not n.startswith("__memlab")]
    try:
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            json.dump(names, f)
        os.replace(path + ".tmp", path)
    except OSError:
        pass  # recording is an optimisation for the next run, never the trial's business


def track(folder: str | None, pid: int) -> str | None:
    """Record a child as ``<folder>/<pid>`` holding "pid start-time" (the run registry's format)."""
    if not folder:
        return None
    try:
        with open(f"/proc/{pid}/stat") as f:
            start = f.read().rsplit(")", 1)[1].split()[19]
        path = os.path.join(folder, str(pid))
        with open(path, "w") as f:
            f.write(f"{pid} {start}")
        return path
    except (OSError, IndexError):
        return None


def untrack(path: str | None) -> None:
    """Forget a child recorded by :func:`track`."""
    if path:
        try:
            os.unlink(path)
        except OSError:
            pass
