"""Score, group rates and level of a row, from its cells alone (docs/method.md "Score", "Levels").

Decision rules (also written into every manifest):
- N counts the cells with a verdict REJECTED, REPORTED or ACCEPTED; ``n/a`` and
  ``error`` cells are excluded.
- passes = REJECTED + REPORTED at the read point; partial = REPORTED at the audit
  point; metric = (passes + 0.5 * partial) / N, None when N = 0.
- A group rate uses the same formula over the group's cells.
- Level: L0 for any evaluable row; each further level needs every case of it and
  of the levels below REJECTED at the read point (n/a or error stops the climb).
- A row whose C1 or C2 failed is not evaluable: no metric, no rates, no level.
"""

from __future__ import annotations

from typing import Any

from lab.cases.revisions import CURRENT, Revision

#: (level, the cases it adds), lowest first, from each case's level (a case with none is not in it).
LADDER = CURRENT.ladder


def decision_rules(revision: Revision) -> dict[str, str]:
    """The decision rules of ``revision``, word for word as its manifests state them."""
    groups = list(revision.groups)
    return {
        "N": "cells whose verdict is REJECTED, REPORTED or ACCEPTED; n/a and error are excluded",
        "metric": "(REJECTED + REPORTED at read + 0.5 * REPORTED at audit) / N; null when N = 0",
        "group_rates": f"the metric's formula over {', '.join(groups[:-1])} and {groups[-1]} separately",
        "level": "L0 when evaluable; " + "; ".join(f"{name} {'also' if i else 'needs'} {','.join(ids)}"
                                                   for i, (name, ids) in enumerate(revision.ladder))
                 + "; each REJECTED at the read point; a not evaluable row has no level",
        "evaluable": "C1 and C2 both hold",
    }


DECISION_RULES = decision_rules(CURRENT)


def credit(cell: dict[str, Any]) -> float | None:
    """1 for a pass, 0.5 for an audit-only report, 0 for ACCEPTED, None when not counted."""
    verdict = cell.get("verdict")
    if verdict == "REJECTED":
        return 1.0
    if verdict == "REPORTED":
        return 0.5 if cell.get("detection_point") == "audit" else 1.0
    if verdict == "ACCEPTED":
        return 0.0
    return None


def rate(cells: dict[str, dict[str, Any]], ids: tuple[str, ...]) -> dict[str, Any]:
    """Counts and metric over the given case ids."""
    credits = [c for i in ids if (c := credit(cells.get(i, {}))) is not None]
    verdicts = [cells.get(i, {}).get("verdict") for i in ids]
    return {
        "N": len(credits),
        "passes": sum(1 for c in credits if c == 1.0),
        "partial": sum(1 for c in credits if c == 0.5),
        "accepted": verdicts.count("ACCEPTED"),
        "na": verdicts.count("n/a"),
        "errors": verdicts.count("error"),
        "metric": round(sum(credits) / len(credits), 6) if credits else None,
    }


def level(cells: dict[str, dict[str, Any]], revision: Revision = CURRENT) -> str:
    """The highest level whose cases (and those below) are all REJECTED at the read point."""
    reached = "L0"
    for name, ids in revision.ladder:
        if all(cells.get(i, {}).get("verdict") == "REJECTED" and cells[i].get("detection_point") == "read"
               for i in ids):
            reached = name
        else:
            break
    return reached


def score(cells: dict[str, dict[str, Any]], evaluable: bool, revision: Revision = CURRENT) -> dict[str, Any]:
    """Metric, counts, group rates and level of one row, over the cases of ``revision``."""
    if not evaluable:
        return {"metric": None, "counts": None, "groups": None, "level": None}
    total = rate(cells, revision.cases)
    return {
        "metric": total["metric"],
        "counts": {k: v for k, v in total.items() if k != "metric"},
        "groups": {g: rate(cells, ids)["metric"] for g, ids in revision.groups.items()},
        "level": level(cells, revision),
    }
