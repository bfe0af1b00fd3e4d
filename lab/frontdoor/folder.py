"""The --out folder of a front-door run: what it holds, and claiming it for one writer.

A run writes into a folder that is absent, empty, or holds a front-door set (which it replaces: the
set's own files are removed, nothing else); any other folder is refused, never written into. The
folder is locked for the run (``lab.resultset.lock``), so two runs never splice into one set.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO

from lab.frontdoor.saved import KIND, MANIFEST_SCHEMA, OWN_FILES
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


def claim_out(root: Path) -> tuple[IO[str], bool]:
    """Lock ``root`` for this run; returns the lock (keep it open for the run) and whether a front-door
    set was replaced. ``OutRefused`` says why the folder cannot be written."""
    root = Path(root)
    if root.exists() and not root.is_dir():
        raise OutRefused(f"{root} is a file, not a folder: give --out a new or empty folder")
    held = sorted(p.name for p in root.iterdir() if p.name != LOCK_FILE) if root.is_dir() else []
    if not held:
        return claim(root), False
    if not is_frontdoor(root):
        shown = ", ".join(held[:5]) + (f" and {len(held) - 5} more" if len(held) > 5 else "")
        raise OutRefused(f"{root} is not empty ({shown}) and holds no front-door set; memlab frontdoor run "
                         "writes only into a new or empty folder, or over a front-door set: choose another --out")
    if not (root / "run.json").is_file() or (root / "rows").is_symlink():
        raise OutRefused(f"{root} holds a front-door set that is not whole (no run.json, or rows/ is a link): "
                         "remove it, or choose another --out")
    handle = claim(root, resume=True)  # the lock, over a folder that holds a run
    _remove_own_files(root)
    return handle, True


def _remove_own_files(root: Path) -> None:
    """The files a front-door run writes (a link among them removed as a link, never followed)."""
    for name in OWN_FILES:
        (root / name).unlink(missing_ok=True)
    rows = root / "rows"
    if rows.is_dir():
        for path in rows.iterdir():
            if path.suffix in (".json", ".tmp") and not path.is_dir():
                path.unlink()
        if not any(rows.iterdir()):
            rows.rmdir()
