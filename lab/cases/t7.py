"""T7 rollback replay: copy an older genuine record of A over A's most recent record."""

from __future__ import annotations

from edits.model import EditSpec
from edits.ops import TRANSPLANT
from lab.cases.case import Case
from lab.cases.derived import recomputed
from lab.cases.replay import donor_from, replayed, state_replayed


def build(plan, layout) -> EditSpec:
    """A's oldest record copied over its newest."""
    a = plan.of("A")
    return EditSpec("T7", plan.contexts["A"], a[-1].marker, donor=a[0].marker, op=TRANSPLANT)


def effect(spec, served) -> tuple[bool, str]:
    """The newest record gone, the older one served.

    A SUT may fold the replayed copy into the donor it duplicates (same record id inside the
    payload): the newest record is then simply gone, which the agent sees all the same."""
    order = served.markers
    rolled = spec["target"] not in order and spec["donor"] in order
    copies = order.count(spec["donor"])
    return rolled, (f"newest {spec['target']} replaced by older {spec['donor']}: {rolled} "
                    f"(the older record served {copies} time(s))")


CASE = Case("T7", "rollback replay", "edit", "A", "T6-T8",
            "the most recent slot of A holds an older record of A with its identifiers", level="L2", op=TRANSPLANT,
            build=build, check=donor_from(other_context=False), rule=recomputed(replayed(older_only=True)),
            state_rule=state_replayed(older_only=True), effect=effect)
