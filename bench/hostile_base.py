"""What the hostile classes of bench/hostile.py share: the bed they are tried on (a pristine one-row
set, keys, a work folder, the lab's cache), running memlab as a user does, and the checks every
class makes (no traceback, no raw control character printed, a file outside left as it was)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

#: Characters none of memlab's output may carry as themselves when a hostile text holds them.
RAW = ("\x1b", "\x07", "\r", "\u202e", "\ud800")
VICTIM_TEXT = "a file outside, which memlab must never write\n"


@dataclass(frozen=True)
class Bed:
    """A pristine one-row set, the publisher's key, a work folder and the lab's cache (None: the one the
    environment names, or the default)."""

    pristine: Path
    key: Path
    work: Path
    cache: Path | None = None

    def env(self) -> dict[str, str]:
        return {**os.environ, **({"MEMLAB_CACHE": str(self.cache)} if self.cache else {})}

    def copy(self, name: str = "rs") -> Path:
        """A fresh copy of the pristine set."""
        return Path(shutil.copytree(self.pristine, self.work / name, symlinks=True))

    def no_sweeps(self) -> tuple[str, Path]:
        """``--sweeps`` at an empty folder: a site of the sets given alone (not the checkout's sweeps)."""
        folder = self.work / "no-sweeps"
        folder.mkdir(exist_ok=True)
        return "--sweeps", folder

    def victim(self, name: str = "victim.txt") -> Path:
        """A file outside every set, with known bytes."""
        path = self.work / name
        path.write_text(VICTIM_TEXT)
        return path


@dataclass(frozen=True)
class Hostile:
    """One hostile class: its name, its kind, and how it is tried (``(held, what happened)``)."""

    name: str
    kind: str
    attempt: Callable[[Bed], tuple[bool, str]]


def memlab(bed: Bed, *args: object, timeout: float = 300) -> subprocess.CompletedProcess:
    """``memlab ARGS`` in a new process from the repository's root."""
    return subprocess.run([sys.executable, "-m", "lab.cli", *map(str, args)], cwd=ROOT, env=bed.env(),
                          capture_output=True, text=True, timeout=timeout)


def said(proc: subprocess.CompletedProcess) -> str:
    """Its exit code and the last line it printed."""
    lines = (proc.stderr.strip() or proc.stdout.strip()).splitlines()
    return f"exit {proc.returncode}: {lines[-1] if lines else ''}"


def clean(proc: subprocess.CompletedProcess) -> str | None:
    """Why its output is not clean (a traceback, a raw control character), or None."""
    text = proc.stdout + proc.stderr
    if "Traceback" in text:
        return "a traceback"
    raw = [repr(c) for c in RAW if c in text]
    return f"printed {', '.join(raw)} raw" if raw else None


def refused(proc: subprocess.CompletedProcess, code: int, *words: str) -> tuple[bool, str]:
    """Held when it exited ``code``, cleanly, saying every one of ``words``."""
    problem = clean(proc)
    if problem:
        return False, f"{said(proc)} ({problem})"
    missing = [w for w in words if w not in proc.stdout + proc.stderr]
    ok = proc.returncode == code and not missing
    return ok, said(proc) + (f" (never said {missing})" if missing else "")


def tried(hostile: Hostile, bed: Bed) -> tuple[bool, str]:
    """``hostile`` tried in a fresh work folder; a crash of the attempt itself is a class not held."""
    shutil.rmtree(bed.work, ignore_errors=True)
    bed.work.mkdir(parents=True)
    try:
        return hostile.attempt(bed)
    except Exception as exc:  # noqa: BLE001 -- the class did not hold, whatever broke
        return False, f"the attempt broke: {type(exc).__name__}: {exc}"
