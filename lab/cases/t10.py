"""T10 erasure resurrection: copy the complete store; erase one record through the SUT's own
erasure interface (the whole context if that is all it offers); put the old copy back.

It differs from T9 in that a head that only grows (count, high-water mark) catches T9 and can
miss T10; a head committing to the current state catches both. Not yet in the ladder.
"""

from __future__ import annotations

from lab.cases.case import Case, CaseError, SutOp
from lab.cases.restore import changed_exactly
from lab.cases.seedplan import FACT_INDEX


def sut_op(plan, seed_ids, capabilities) -> SutOp:
    """The fault step: A's fact record erased through the SUT (or all of A, where that is all it offers)."""
    ctx = plan.contexts["A"]
    if capabilities.erasure == "context":
        named, record = [r.marker for r in plan.of("A")], None
    else:
        victim = plan.of("A")[FACT_INDEX]
        if victim.marker not in seed_ids:
            raise CaseError(f"no SUT record id known for {victim.marker}")
        named, record = [victim.marker], seed_ids[victim.marker]
    return SutOp("erase", {"context": ctx, "record": record},
                 {"op": "erase", "context": ctx, "record": record, "markers": named}, named)


def effect(spec, served) -> tuple[bool, str]:
    """Erased records are served again."""
    back = [m for m in spec["markers"] if m in served.markers]
    return bool(back), f"erased records served again: {back}"


CASE = Case("T10", "erasure resurrection", "erasure", "A", "T10",
            "the erasure removed exactly the named record(s); the restored copy equals the pre-erasure store",
            ("snapshot", "erasure"), rule=changed_exactly("erasure", "remove", "removed"), effect=effect,
            sut_op=sut_op)
