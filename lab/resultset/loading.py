"""Reading a saved result set's manifest, rows and run record, with errors that say what to do."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lab.cases import CASE_IDS
from lab.resultset.results import MANIFEST_SCHEMA


class Unreadable(Exception):
    """The input is not a result set that can be read (the CLI exits 2 with this message)."""


def load_manifest(root: Path) -> dict[str, Any]:
    """The manifest of a result set; ``Unreadable`` with what is wrong and how to fix it."""
    root = Path(root)
    if not root.is_dir():
        raise Unreadable(f"{root} is not a folder; pass a result-set folder (the --out of `memlab run`)")
    path = root / "manifest.json"
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise Unreadable(f"{path} is missing: not a memlab result set, or its run never finished") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise Unreadable(f"{path} cannot be read as JSON: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("schema") != MANIFEST_SCHEMA:
        got = manifest.get("schema") if isinstance(manifest, dict) else type(manifest).__name__
        raise Unreadable(f"{path}: schema {got!r}, expected {MANIFEST_SCHEMA!r}")
    for key, kind in (("rows", list), ("evidence", list), ("decision_rules", dict), ("method_revision", str)):
        if not isinstance(manifest.get(key), kind):
            raise Unreadable(f"{path}: {key!r} missing or not a {kind.__name__}; "
                             "it was edited or written by another tool, so the set cannot be verified")
    return manifest


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
        problem = shape_problem(row)
        if problem:
            raise Unreadable(f"{path} is not a memlab row: {problem}; `memlab verify` names what changed")
        rows.append(row)
    return sorted(rows, key=lambda r: (r["row"], r["detection_point"]))


def shape_problem(row: Any) -> str | None:
    """What keeps ``row`` from having a memlab row's shape (the parts reports read), or None."""
    if not isinstance(row, dict):
        return "not a JSON object"
    for key in ("row", "detection_point"):
        if not isinstance(row.get(key), str):
            return f"{key!r} missing or not a string"
    cells, controls = row.get("cells"), row.get("controls")
    if not isinstance(cells, dict) or any(not isinstance(cells.get(c), dict) for c in CASE_IDS):
        return f"'cells' needs one object for each of {', '.join(CASE_IDS)}"
    if not isinstance(controls, dict) or any(not isinstance(controls.get(c), dict) for c in ("C1", "C2")):
        return "'controls' needs C1 and C2"
    return None


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
