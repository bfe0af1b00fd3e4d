"""The --out folder of a front-door run: what it holds, and claiming it for one writer.

A run writes into a folder that is absent or empty; any other folder, a front-door set among them, is
refused, never written into. The
folder is locked for the run (``lab.resultset.lock``), so two runs never splice into one set.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO

from lab.frontdoor.saved import KIND, MANIFEST_SCHEMA
from lab.resultset.files import read_json
from lab.resultset.lock import LOCK_FILE, OutRefused, claim


def is_frontdoor(root: Path) -> bool:
    """Whether ``root`` holds a front-door set (its manifest's schema, or its run.json's kind)."""
    for name, key, wanted in (("manifest.json", "schema", MANIFEST_SCHEMA), ("run.json", "kind", KIND)):
        try:
            data = read_json(Path(root) / name)
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get(key) == wanted:
            return True
    return False


def claim_out(root: Path) -> IO[str]:
    """Lock ``root`` for this run; returns the lock (keep it open for the run). ``OutRefused`` says why
    the folder cannot be written: a file, or a folder that holds anything (a set already measured is
    never replaced: no result is lost)."""
    root = Path(root)
    if root.exists() and not root.is_dir():
        raise OutRefused(f"{root} is a file, not a folder: give --out a new or empty folder")
    held = sorted(p.name for p in root.iterdir() if p.name != LOCK_FILE) if root.is_dir() else []
    if held:
        shown = ", ".join(held[:5]) + (f" and {len(held) - 5} more" if len(held) > 5 else "")
        what = "a front-door set" if is_frontdoor(root) else "no front-door set"
        raise OutRefused(f"{root} is not empty ({shown}; it holds {what}): memlab frontdoor run writes only into a "
                         "new or empty folder, so that no result is lost: choose another --out")
    return claim(root)
