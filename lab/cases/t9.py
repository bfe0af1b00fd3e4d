"""T9 whole-store rollback: copy the complete store (every file and sidecar); write one more
genuine record through the SUT; put the old copy back.

It differs from T2 in that the head is restored too: it separates a head kept in the store
from one anchored off it.
"""

from __future__ import annotations

from lab.cases.case import Case, SutOp
from lab.cases.restore import changed_exactly

#: Where the genuine record T9 writes after the snapshot goes, after the seeded ones (C2's is at 0).
T9_EXTRA_OFFSET = 1


def sut_op(plan, seed_ids, capabilities) -> SutOp:
    """The fault step: one more genuine record of A written through the SUT."""
    ctx, extra = plan.contexts["A"], plan.extra("A", T9_EXTRA_OFFSET)
    return SutOp("write", {"context": ctx, "text": extra.text, "meta": extra.meta},
                 {"op": "write", "context": ctx, "marker": extra.marker, "text": extra.text},
                 [extra.marker], version_marker=extra.marker)


def effect(spec, served) -> tuple[bool, str]:
    """The record written after the copy is missing."""
    gone = spec["marker"] not in served.markers
    return gone, f"record {spec['marker']} written after the copy is missing: {gone}"


CASE = Case("T9", "whole-store rollback", "rollback", "A", "T9",
            "the genuine write added exactly one record; the restored copy equals the pre-write store",
            ("snapshot",), level="L4", rule=changed_exactly("genuine write", "add", "added"), effect=effect,
            sut_op=sut_op)
