"""Finding and ending what a run left running, by the run's marks, never by a process name.

A run's processes carry ``MEMLAB_RUN_ID=<run id>`` in their environment (a SUT's children too,
also those that left its session with ``setsid``: they inherit the environment), and a local
service's server (PostgreSQL, Redis) runs with its data directory as its working directory
(PostgreSQL also names its postmaster in ``postmaster.pid``). ``gc`` ends them, waits until
they are gone, and removes a scratch folder only when no live process works in it
(:func:`holders`); what it cannot end is left with the reason.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

#: How long a killed process may take to disappear (its kernel teardown) before it counts as left.
GONE_SECONDS = 10.0


def marked(run_id: str) -> list[int]:
    """Live processes carrying ``MEMLAB_RUN_ID=run_id`` in their environment (never this one)."""
    mark = f"MEMLAB_RUN_ID={run_id}".encode() + b"\0"
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if (b"\0" + mark in b"\0" + (proc / "environ").read_bytes() + b"\0" and running(int(proc.name))
                    and int(proc.name) != os.getpid()):
                found.append(int(proc.name))
        except OSError:
            continue
    return sorted(found)


def holders(folder: Path) -> list[int]:
    """Live processes working inside ``folder`` (their cwd under it), and every live postmaster a
    ``postmaster.pid`` under it names: a data directory in use."""
    folder = Path(folder).resolve()
    found = set()
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            cwd = Path(os.readlink(proc / "cwd"))
        except OSError:
            continue
        if (cwd == folder or folder in cwd.parents) and running(int(proc.name)):
            found.add(int(proc.name))
    for pidfile in folder.rglob("postmaster.pid") if folder.is_dir() else []:
        try:
            pid = int(pidfile.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue
        if running(pid) and str(pidfile.parent) in _cmdline(pid):
            found.add(pid)
    found.discard(os.getpid())
    return sorted(found)


def end(pids: list[int]) -> list[int]:
    """SIGKILL each process and its process group; wait until they are gone. Returns those left."""
    for pid in pids:
        for kill in (os.killpg, os.kill):
            try:
                kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                continue
    deadline = time.monotonic() + GONE_SECONDS
    left = [pid for pid in pids if running(pid)]
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = [pid for pid in left if running(pid)]
    return left


def running(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie (a zombie holds no folder and runs nothing)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def describe(pid: int) -> str:
    """``pid (command line)`` for a message."""
    return f"{pid} ({_cmdline(pid)[:120] or '?'})"


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""
