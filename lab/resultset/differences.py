"""How a stated row differs from the row its saved observations give again, in words (``memlab verify``)."""

from __future__ import annotations

from typing import Any

#: The row's score: the recount checks these (lab.resultset.recount), not the re-derivation.
SCORE_FIELDS = ("metric", "counts", "groups", "level")


def row_differences(row: dict[str, Any], again: dict[str, Any]) -> list[tuple[str, str]]:
    """``(ground, detail)``: each cell that differs (``verdict-not-derivable``), then the other fields
    that differ (``row-not-derivable``); the score and method revision are checked elsewhere."""
    out = []
    for cid in sorted(set(again["cells"]) | set(row["cells"]), key=case_order):
        problem = cell_difference(row["cells"].get(cid), again["cells"].get(cid))
        if problem:
            out.append(("verdict-not-derivable", f"{cid}: {problem}"))
    skip = {"cells", "method_revision", *SCORE_FIELDS}
    differ = sorted(k for k in (set(again) | set(row)) - skip if again.get(k) != row.get(k))
    if differ:
        out.append(("row-not-derivable", f"field(s) {', '.join(differ)} differ from what observations/"
                                         f"{row['row']} and run.json give"))
    return out


def cell_difference(stated: Any, derived: Any) -> str | None:
    """What differs between a stated cell and the derived one, in words; None when they are equal."""
    if stated == derived:
        return None
    if not isinstance(stated, dict) or not isinstance(derived, dict):
        return f"the row has {'no cell' if stated is None else 'an extra cell'} here"
    key = ("verdict", "detection_point", "observation_class")
    if tuple(stated.get(k) for k in key) != tuple(derived.get(k) for k in key):
        return (f"the row says {stated.get('verdict')} ({stated.get('detection_point')}, class "
                f"{stated.get('observation_class')}); its observations give {derived.get('verdict')} "
                f"({derived.get('detection_point')}, class {derived.get('observation_class')}): "
                f"{derived.get('reason')}")
    fields = sorted(k for k in set(stated) | set(derived) if stated.get(k) != derived.get(k))
    return f"verdict agrees, but {', '.join(fields)} differ(s) from what the observations give"


def case_order(cid: str) -> tuple[int, str]:
    """T1..T10 in number order, anything else after."""
    digits = cid[1:] if cid[:1] == "T" else ""
    return (int(digits) if digits.isdigit() else 99, cid)
