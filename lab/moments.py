"""Named moments of a run: where the crash-safety tests kill ``memlab run`` (docs/resume.md).

A run *reaches* a moment at each point below. Nothing happens there unless the environment asks:

- ``MEMLAB_MOMENTS=FILE`` appends one line per moment reached, ``<moment> <row> <trial> <pid>``,
  to FILE (a test reads which trials each run saved, and waits for a moment);
- ``MEMLAB_PAUSE_AT=MOMENT[:TRIAL]`` makes the first thread that reaches MOMENT (of TRIAL, when
  named) write ``paused ...`` to FILE and sleep ``PAUSE_SECONDS``, long enough to be killed
  there, then go on as if nothing happened.

A pause only delays: it sits between two driver ops, before a service is probed or before a file
is written, never inside a timed op, so no timeout, answer or verdict depends on it (timings of
the trial it sits in grow by the pause). The lab reads nothing back from FILE.

    >>> MOMENTS[:3]
    ('seeding', 'service-start', 'saved')
"""

from __future__ import annotations

import os
import threading
import time

#: Every moment a run reaches, in the order a trial meets them.
MOMENTS = (
    "seeding",        # the first seeding write answered, the rest not yet written (the SUT runs)
    "service-start",  # a service process (PostgreSQL, Redis) spawned, not yet answering
    "saved",          # an observation file written (between two trials when it is a trial's)
    "edited",         # a case's fault step and C3 done, the SUT not yet restarted for the read
    "rows",           # a row file written, the other row files and the manifest not yet
    "manifest",       # every row file written, the manifest not yet
)
PAUSE_SECONDS = 120.0

_paused = threading.Event()
_lock = threading.Lock()


def reach(moment: str, row: str = "-", trial: str = "-") -> None:
    """Note ``moment`` (of ``row``'s ``trial``); pause there when ``MEMLAB_PAUSE_AT`` asks (once)."""
    assert moment in MOMENTS, moment
    events = os.environ.get("MEMLAB_MOMENTS")
    if not events:
        return
    _append(events, f"{moment} {row} {trial} {os.getpid()}")
    want, _, which = os.environ.get("MEMLAB_PAUSE_AT", "").partition(":")
    if want != moment or which not in ("", trial):
        return
    with _lock:
        if _paused.is_set():
            return
        _paused.set()
    _append(events, f"paused {moment} {row} {trial} {os.getpid()}")
    time.sleep(PAUSE_SECONDS)


def _append(path: str, line: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (line + "\n").encode())
    finally:
        os.close(fd)
