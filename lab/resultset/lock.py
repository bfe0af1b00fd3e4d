"""One writer per result-set folder: the run holds an exclusive lock on ``<set>/run.lock``.

``claim`` takes the lock (``fcntl.flock``, released by the kernel when the writer ends, even on
kill -9) and refuses a folder another run is writing, or one that already holds a set (a
finished one: ``manifest.json``; or the remains of a killed run: ``run.json``, ``rows/``,
``observations/``), so two runs never splice into one set and a set is never merged into.
``memlab run --resume`` continues a killed run in its own folder: the lock must be free (the killed
run's process is gone) and the folder must hold a run (``run.json``); whether it is the same run is
the method's to prove (lab.method.resume).
The lock file is not evidence (verify ignores it); the descriptor is not inherited by SUTs.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import IO

from lab import safewrite

LOCK_FILE = "run.lock"
#: What a folder holds once a run has written into it.
SET_MARKS = ("manifest.json", "run.json", "rows", "observations")


class OutRefused(Exception):
    """The --out folder is being written by another run, or already holds a result set."""


def claim(root: Path, resume: bool = False) -> IO[str]:
    """Create ``root`` if needed and lock it for this process; keep the returned file open for the
    whole run (closing it, or the process ending, releases the lock). ``OutRefused`` says why not.
    ``resume``: the folder must hold the run to continue instead of nothing."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    handle = safewrite.open_file(root / LOCK_FILE, "a+")  # never a link: its truncation would reach out
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "another process"
        handle.close()
        raise OutRefused(f"{root} is being written by another memlab run ({holder} holds {root / LOCK_FILE}); "
                         "two runs into one --out would splice their results: wait for it, or choose "
                         "another --out") from None
    found = [name for name in SET_MARKS if (root / name).exists()]
    if resume and "run.json" not in found:
        handle.close()
        raise OutRefused(f"{root} holds no run.json: there is no run to resume there; start one with --out {root}")
    if found and not resume:
        handle.close()
        what = "a result set" if "manifest.json" in found else "the remains of a run that did not finish"
        raise OutRefused(f"{root} already holds {what} ({', '.join(found)}); a run never writes into an "
                         "existing set: choose a new --out (a killed `memlab run` is continued by `memlab run "
                         f"--resume {root}`; `memlab verify` says what the folder holds)")
    handle.seek(0)
    handle.truncate()
    handle.write(f"pid {os.getpid()}\n")
    handle.flush()
    return handle
