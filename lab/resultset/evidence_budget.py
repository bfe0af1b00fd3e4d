"""The per-run evidence budget: how many bytes one run may write into its result set.

One lifecycle observation is bounded (lab.lifecycle.runner.Budget), one at-rest answer by the driver's
line limit; nothing else bounds what a whole run writes. A SUT that answers a lot on every trial, or
writes endless stderr into its log, could fill the disk across many observations. So each run that
writes a set (``memlab run``, ``compose``, ``lifecycle run``, ``frontdoor run``) holds one
:class:`EvidenceBudget`: every observation file (and store dump) is charged as it is saved, and at
each charge the set's ``logs/`` files are measured as they are then (``lstat``: a link is never
followed; past a few hundred files, at most as often as keeps that within 1 % of the run's time). The
charge that takes the run past its limit raises :class:`EvidenceOverBudget` once,
after the file is written: what was measured is kept, the run stops as a harness error (exit 2) and
``--resume`` with a bigger ``--evidence-budget`` completes it. A resumed set's observations count
from the start, so resuming with the same budget stops again.

    >>> parse_size("500M"), parse_size("4GiB"), parse_size("2k"), parse_size("1048576")
    (524288000, 4294967296, 2048, 1048576)
"""

from __future__ import annotations

import heapq
import os
import re
import threading
import time
from fractions import Fraction
from pathlib import Path
from typing import Callable, Iterator

MIB = 1024 * 1024
#: The default budget of one run: roomy (the largest published set is 17 MB), strict enough to keep a disk.
DEFAULT_LIMIT = 2 * 1024 * MIB
#: Logs measured at every charge while ``logs/`` holds at most this many files; past it, as often as keeps
#: their measuring within 1/LOG_SCAN_SHARE of the run's time (EvidenceBudget._measured_logs).
LOG_FILES_CHEAP, LOG_SCAN_SHARE = 256, 100
#: The largest budget an option may give.
MAX_LIMIT = 1024 ** 4
UNITS = {"": 1, "K": 1024, "M": MIB, "G": 1024 * MIB, "T": 1024 ** 4}
_SIZE = re.compile(r"(\d{1,16}(?:\.\d{1,6})?)\s*(?:([KMGT])(?:I?B)?|B)?", re.IGNORECASE | re.ASCII)
SIZE_FORM = "a size in bytes, or with K, M, G or T (powers of 1024, e.g. 500M, 4G, 4GiB)"


def parse_size(text: str) -> int:
    """``text`` as a number of bytes above 0 and at most ``MAX_LIMIT`` (1 TiB); ValueError saying the
    form otherwise."""
    match = _SIZE.fullmatch(str(text).strip()) if len(str(text)) <= 40 else None
    if match is None:
        raise ValueError(f"{str(text)[:40]!r} is not {SIZE_FORM}")
    size = Fraction(match.group(1)) * UNITS[(match.group(2) or "").upper()]
    if size.denominator != 1 or not 0 < size <= MAX_LIMIT:
        raise ValueError(f"{str(text).strip()!r} is {float(size):g} bytes: give {SIZE_FORM}, a whole number of "
                         "bytes above 0 and at most 1T")
    return int(size)


def mib(size: int) -> str:
    """``size`` bytes in MiB (and in KiB below one MiB, where a tenth of a MiB says little)."""
    return f"{size / MIB:.1f} MiB" if size >= MIB else f"{size / MIB:.3f} MiB/{size / 1024:.1f} KiB"


class EvidenceOverBudget(Exception):
    """A run wrote more than its evidence budget; what it wrote is kept. ``describe(fix)`` is the message."""

    def __init__(self, root: Path, written: int, limit: int, largest: list[tuple[int, str]]):
        super().__init__(f"evidence budget: {mib(written)} written into {root}, over its {mib(limit)} "
                         "(--evidence-budget)")
        self.root, self.written, self.limit, self.largest = Path(root), written, limit, largest

    def describe(self, resume: str | None) -> str:
        """The stop said in full: the set, the MiB written against the budget, the largest files, the fix
        (``resume``: the command that continues the run, else a new run is the way)."""
        files = ", ".join(f"{name} ({mib(size)})" for size, name in self.largest)
        again = (f"`{resume} {self.root} --evidence-budget <bigger>` continues it" if resume
                 else "run again into a new --out with a bigger --evidence-budget")
        return (f"{self}: the run stopped as a harness error, every observation it saved is kept\n"
                f"  largest files: {files or 'none'}\n"
                f"  fix: {again}, or find why the SUT writes so much (its answers, its logs in {self.root / 'logs'})")

    def record(self) -> dict[str, object]:
        """What run.json says of the stop."""
        return {"by": "evidence-budget", "written": self.written, "limit": self.limit}


class EvidenceBudget:
    """What one run may write into the set at ``root`` (``limit`` bytes); thread-safe. ``on_over`` is
    called once, when the limit is first passed, before the exception is raised (a run stops its
    other trials with it)."""

    def __init__(self, root: Path, limit: int = DEFAULT_LIMIT, on_over: Callable[[], object] = lambda: None):
        self.root, self.limit, self.on_over = Path(root), limit, on_over
        self._lock = threading.Lock()
        self._files = dict(_sizes(self.root / "observations"))  # a resumed set's evidence counts
        self._total = sum(self._files.values())
        self.over = False
        self._logs: dict[Path, int] = {}
        self._logs_due = 0.0  # when the logs are measured again (lab.resultset.evidence_budget.LOG_FILES_CHEAP)

    def charge(self, *paths: Path) -> int:
        """Count the files just written (a file written again counts once, at its new size) and the logs
        as they are; the bytes written. Past the limit the first time: EvidenceOverBudget."""
        with self._lock:
            for path in paths:
                size = _size(path)
                self._total += size - self._files.get(Path(path), 0)
                self._files[Path(path)] = size
            logs = self._measured_logs()
            written = self._total + sum(logs.values())
            if written <= self.limit or self.over:
                return written
            self.over = True
        self.on_over()
        raise EvidenceOverBudget(self.root, written, self.limit, self._largest(logs))

    def _measured_logs(self) -> dict[Path, int]:
        """The logs' sizes: measured at every charge while they are few; past ``LOG_FILES_CHEAP`` files, again
        only once ``LOG_SCAN_SHARE`` times the last measurement's time has passed, so that measuring them costs
        the run at most 1/LOG_SCAN_SHARE of its time however many trials a set holds (a scan of a whole
        matrix's logs at every save would grow with the square of its trials)."""
        now = time.monotonic()
        if now >= self._logs_due:
            self._logs = dict(_sizes(self.root / "logs"))
            took = time.monotonic() - now
            self._logs_due = now + LOG_SCAN_SHARE * took if len(self._logs) > LOG_FILES_CHEAP else 0.0
        return self._logs

    def _largest(self, logs: dict[Path, int], count: int = 3) -> list[tuple[int, str]]:
        """The ``count`` largest files charged (and logs), as (bytes, path relative to the set)."""
        top = heapq.nlargest(count, ((s, p) for d in (self._files, logs) for p, s in d.items()))
        return [(size, os.path.relpath(path, self.root)) for size, path in top]


def _size(path: Path) -> int:
    """The bytes of ``path`` itself (a link is not followed; a file gone counts nothing)."""
    try:
        return os.lstat(path).st_size
    except FileNotFoundError:
        return 0


def _sizes(folder: Path) -> Iterator[tuple[Path, int]]:
    """(path, bytes) of every file under ``folder`` (``lstat``; links neither followed nor entered)."""
    try:
        entries = list(os.scandir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            yield from _sizes(Path(entry.path))
        else:
            try:
                yield Path(entry.path), entry.stat(follow_symlinks=False).st_size
            except FileNotFoundError:
                continue
