"""The deletion family (T2 the most recent record, T3 a middle one): C3 and the effect check."""

from __future__ import annotations

from lab.cases.evidence import find_marked, same_elsewhere


def deleted(position: str):
    """C3: the record carrying the target, at ``position`` (``last`` | ``middle``) of its
    context, is absent; nothing else changed."""
    def rule(view, spec, before, after) -> list[str]:
        p: list[str] = []
        victim = find_marked(view, before, spec["target"], "before", p)
        if p:
            return p
        seq = [view.marker(r) for r in view.sequence(before, victim["context"])]
        idx = seq.index(spec["target"])
        if position == "last" and idx != len(seq) - 1:
            p.append(f"the deleted record was at position {idx} of {len(seq)}, not the most recent")
        if position == "middle" and idx in (0, len(seq) - 1):
            p.append("the deleted record was first or last, not in the middle")
        if any(view.marker(r) == spec["target"] for r in after):
            p.append("the record is still present")
        if len(after) != len(before) - 1:
            p.append(f"expected one record fewer, found {len(before)} -> {len(after)}")
        return p + same_elsewhere(view, before, after, {spec["target"]})
    return rule


def absent(spec, served) -> tuple[bool, str]:
    """The deleted record is not served."""
    gone = spec["target"] not in served.markers
    return gone, f"record {spec['target']} absent from what was served: {gone}"
