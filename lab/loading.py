"""Reading a saved result set's rows and run record, with errors that say what to do."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class Unreadable(Exception):
    """The input is not a result set that can be read (the CLI exits 2 with this message)."""


def load_rows(root: Path) -> list[dict[str, Any]]:
    """Every row of a result set, sorted by row and detection point."""
    root = Path(root)
    if not root.is_dir():
        raise Unreadable(f"{root} is not a folder; pass a result-set folder (the --out of `memlab run`)")
    paths = sorted((root / "rows").glob("*.json"))
    if not paths:
        raise Unreadable(f"{root}/rows holds no row files; is this a memlab result set?")
    rows = []
    for path in paths:
        row = _read(path)
        if not isinstance(row, dict) or not isinstance(row.get("cells"), dict) or "row" not in row:
            raise Unreadable(f"{path} is not a memlab row (needs 'row', 'detection_point' and 'cells')")
        rows.append(row)
    return sorted(rows, key=lambda r: (str(r["row"]), str(r.get("detection_point"))))


def load_run(root: Path) -> dict[str, Any]:
    """The run record (run.json) of a result set; empty when there is none."""
    path = Path(root) / "run.json"
    if not path.exists():
        return {}
    run = _read(path)
    if not isinstance(run, dict):
        raise Unreadable(f"{path} is not a JSON object")
    return run


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise Unreadable(f"{path} cannot be read as JSON: {exc}; `memlab verify` names what changed") from None
