"""The effect check (docs/method.md, a lab addition): does the served memory reflect the edit?

A pure function of the case's intended edit and what the read served; the check itself is the
case's own (``lab.cases.tN.effect``), found through the registry. An ACCEPTED cell whose edit
had no visible effect is a set-up error, not a verdict.
"""

from __future__ import annotations

from typing import Any

from lab.cases import BY_ID
from lab.cases.evidence import Served


def effect(case_id: str, intended: dict[str, Any], served: list[dict[str, Any]],
           baseline: list[dict[str, Any]], ordered: bool = True) -> dict[str, Any]:
    """Whether ``served`` shows the edit; ``baseline`` is the same context as served in C1;
    ``ordered`` False for a store declared unordered (:class:`~lab.cases.evidence.Served`)."""
    case = BY_ID.get(case_id)
    if case is None or case.effect is None:
        return {"visible": False, "detail": f"no effect check for {case_id}"}
    seen = Served.of(served, baseline, ordered)
    visible, detail = case.effect(intended, seen)
    return {"visible": bool(visible), "detail": detail, "served_markers": seen.markers}
