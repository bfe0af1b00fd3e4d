"""The deletion family (T2 the most recent record, T3 a middle one): C3 and the effect check."""

from __future__ import annotations

from typing import Callable

from lab.cases.evidence import Rec, find_marked, same_elsewhere


def deleted(position: str, variants: dict[str, Callable[[list[Rec], list[Rec], str], list[str]]] | None = None):
    """C3: the record carrying the target, at ``position`` (``last`` | ``middle``) of its
    context, is absent; nothing else changed. ``variants``: for a spec of that variant, a check
    ``(before, after, context) -> problems`` of where the deletion landed, added when the rest holds."""
    def rule(view, spec, before, after) -> list[str]:
        p: list[str] = []
        victim = find_marked(view, before, spec["target"], "before", p)
        if p:
            return p
        records = view.sequence(before, victim)
        seq = [view.marker(r) for r in records]
        idx = seq.index(spec["target"])
        placed = view.keeps_order(records)
        if placed and position == "last" and idx != len(seq) - 1:
            p.append(f"the deleted record was at position {idx} of {len(seq)}, not the most recent")
        if placed and position == "middle" and idx in (0, len(seq) - 1):
            p.append("the deleted record was first or last, not in the middle")
        if any(view.marker(r) == spec["target"] for r in after):
            p.append("the record is still present")
        if len(after) != len(before) - 1:
            p.append(f"expected one record fewer, found {len(before)} -> {len(after)}")
        p += same_elsewhere(view, before, after, {spec["target"]})
        where = (variants or {}).get(spec.get("variant"))
        return p + where(before, after, victim["context"]) if where and not p else p
    return rule


def absent(spec, served) -> tuple[bool, str]:
    """The deleted record is not served."""
    gone = spec["target"] not in served.markers
    return gone, f"record {spec['target']} absent from what was served: {gone}"
