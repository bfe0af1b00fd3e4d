"""The cells of a release's result sets, flat, and the changes from one release to the next.

A release's cells are one text per name, read from its verified sets:

- at rest, per detection point: each case's verdict (``read T1: ACCEPTED``), the controls
  (``read C1: ok`` or ``FAIL``) and the level (``read level: L0``, or ``not evaluable``);
- lifecycle, per position: each check's status (``restarted stale_reuse: FAIL``) and the gate
  (``live gate: PASS``);
- beside the cells, each expression of a case where a cell has several (``read T1 default``:
  REPORTED, ``read T1 sidecar=ledger:emptied``: ACCEPTED): the cell is the weakest of them, so a release
  that changes one expression only (a fix of the default) shows there, as a variant change.

The row's name is not part of a cell's name: the cells of ``<row>_v3.0.0`` and of the published
``<row>`` line up. A change is a cell whose text differs between two releases measured one after the
other; it names the last release with the old text and the first with the new, and the releases
between them that were not measured (skipped by the halving, or not installable): with none, the
release is exact.

    >>> changes([("1.0", {"read T1": "ACCEPTED"}), ("1.1", {"read T1": "ACCEPTED"}),
    ...          ("1.2", {"read T1": "REJECTED"})], ["1.0", "1.1", "1.15", "1.2"])
    [{'cell': 'read T1', 'old': 'ACCEPTED', 'new': 'REJECTED', 'last_old': '1.1', 'first_new': '1.2', 'unmeasured_between': ['1.15']}]
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Sequence

from lab.resultset.loading import load_rows, read_strict

#: The order of detection points and positions in a lineup.
POINTS = ("read", "audit")
POSITIONS = ("live", "restarted")
#: What a cell shows when the release's set has no such cell (e.g. a lifecycle set not measured).
ABSENT = "-"


def _case_key(case: str) -> tuple[int, str]:
    found = re.fullmatch(r"T(\d+)", case)
    return (int(found.group(1)) if found else 99, case)


def at_rest_cells(root: Path) -> dict[str, str]:
    """The at-rest cells of the set in ``root`` (every row of it: one row, one or two points)."""
    out: dict[str, str] = {}
    rows = sorted(load_rows(root), key=lambda r: (POINTS.index(r["detection_point"])
                                                    if r["detection_point"] in POINTS else 9, r["detection_point"]))
    for row in rows:
        point = row["detection_point"]
        for case in sorted(row["cells"], key=_case_key):
            out[f"{point} {case}"] = str(row["cells"][case].get("verdict"))
        for control in ("C1", "C2"):
            out[f"{point} {control}"] = "ok" if row["controls"][control].get("ok") else "FAIL"
        out[f"{point} level"] = str(row.get("level")) if row.get("evaluable") else "not evaluable"
    return out


def at_rest_variants(root: Path) -> dict[str, str]:
    """The verdict of every expression of a case (its variants, docs/method.md "Variants") where a cell
    has more than one: ``read T1 default``, ``read T1 sidecar=ledger:emptied``. A cell is the weakest of
    them, so a release can change one expression (the default's) and leave the cell as it was."""
    out: dict[str, str] = {}
    for row in sorted(load_rows(root), key=lambda r: (POINTS.index(r["detection_point"])
                                                        if r["detection_point"] in POINTS else 9, r["detection_point"])):
        for case in sorted(row["cells"], key=_case_key):
            variants = row["cells"][case].get("variants") or []
            if len(variants) > 1:
                for variant in variants:
                    out[f"{row['detection_point']} {case} {variant.get('variant')}"] = str(variant.get("verdict"))
    return out


def set_variants(root: Path) -> dict[str, str]:
    """The variants of a release's at-rest set in ``root`` (none when it has no at-rest set)."""
    root = Path(root)
    return at_rest_variants(root) if (root / "manifest.json").is_file() and not _is_lifecycle(root) else {}


def lifecycle_rows(root: Path) -> list[dict[str, Any]]:
    """The rows of a lifecycle set, read strictly, in position order."""
    rows = [read_strict(p) for p in sorted((Path(root) / "rows").glob("*.json"))]
    return sorted(rows, key=lambda r: POSITIONS.index(r.get("position")) if r.get("position") in POSITIONS else 9)


def lifecycle_cells(root: Path) -> dict[str, str]:
    """The lifecycle cells of the set in ``root``: each check's status and the gate, per position."""
    out: dict[str, str] = {}
    for row in lifecycle_rows(root):
        position = row.get("position", "live")
        for check, result in (row.get("checks") or {}).items():
            out[f"{position} {check}"] = str(result.get("status"))
        out[f"{position} gate"] = str((row.get("gate") or {}).get("status") or row.get("status"))
    return out


def set_cells(root: Path) -> dict[str, str]:
    """Every cell of a release (or of the published row): its at-rest set in ``root`` and its lifecycle
    set in ``root/lifecycle`` (or ``root`` itself a lifecycle set), whichever exist."""
    root = Path(root)
    out: dict[str, str] = {}
    if (root / "manifest.json").is_file() and not _is_lifecycle(root):
        out.update(at_rest_cells(root))
    life = root if _is_lifecycle(root) else root / "lifecycle"
    if (life / "manifest.json").is_file():
        out.update(lifecycle_cells(life))
    return out


def _is_lifecycle(root: Path) -> bool:
    path = Path(root) / "manifest.json"
    return path.is_file() and str(read_strict(path).get("kind")) == "lifecycle"


def names(cell_sets: Sequence[dict[str, str]]) -> list[str]:
    """Every cell name of the releases, in the order they first come."""
    return list(dict.fromkeys(name for cells in cell_sets for name in cells))


def changes(measured: Sequence[tuple[str, dict[str, str]]], served: Sequence[str],
            present_in_both: bool = False) -> list[dict[str, Any]]:
    """Every change between releases measured one after the other (``measured`` oldest first; ``served``
    every release of the sweep's selection, to name the ones between that were not measured).
    ``present_in_both``: only names both releases have (variants: an expression one release lacks, as
    when its row could not be seeded, is said by its cell's change)."""
    out = []
    every = names([cells for _, cells in measured])
    for (old_version, old), (new_version, new) in zip(measured, measured[1:]):
        between = _between(served, old_version, new_version)
        for name in every:
            before, after = old.get(name, ABSENT), new.get(name, ABSENT)
            if present_in_both and ABSENT in (before, after):
                continue
            if before != after:
                out.append({"cell": name, "old": before, "new": after, "last_old": old_version,
                            "first_new": new_version, "unmeasured_between": between})
    return out


def _between(served: Sequence[str], low: str, high: str) -> list[str]:
    served = list(served)
    if low in served and high in served:
        return served[served.index(low) + 1:served.index(high)]
    return []


def differing(a: dict[str, str], b: dict[str, str]) -> list[str]:
    """The cell names whose text differs between two releases (a cell one lacks counts)."""
    return [name for name in names([a, b]) if a.get(name, ABSENT) != b.get(name, ABSENT)]


#: Short labels for a lineup's columns.
SHORT = {"REJECTED": "REJ", "REPORTED": "REP", "ACCEPTED": "ACC", "error": "ERR", "n/a": "n/a", "PASS": "PASS",
         "FAIL": "FAIL", "NOT TESTED": "NT", "INCONCLUSIVE": "INC", "ERROR": "ERR", "not evaluable": "n.e."}


def short(text: str) -> str:
    """A cell's text as a lineup column shows it."""
    return SHORT.get(text, text)
