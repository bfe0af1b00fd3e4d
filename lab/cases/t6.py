"""T6 cross-context replay: copy a genuine record of A over a record of B, keeping B's identifiers.

C3 also refuses T6 when the contexts were seeded with equal values (it would be unscorable).
"""

from __future__ import annotations

from edits.model import EditSpec
from edits.ops import TRANSPLANT
from lab.cases.case import Case
from lab.cases.derived import recomputed
from lab.cases.replay import donor_from, replayed, state_replayed
from lab.cases.seedplan import FACT_INDEX


def build(plan, layout) -> EditSpec:
    """A's fact record copied over B's."""
    return EditSpec("T6", plan.contexts["B"], plan.of("B")[FACT_INDEX].marker,
                    donor=plan.of("A")[FACT_INDEX].marker, op=TRANSPLANT)


def effect(spec, served) -> tuple[bool, str]:
    """The other context's record is served in B."""
    there = spec["donor"] in served.markers
    return there, f"the other context's record {spec['donor']} served here: {there}"


CASE = Case("T6", "cross-context replay", "edit", "B", "T6-T8",
            "the victim slot of B holds A's donor record with the victim's identifiers", level="L3", op=TRANSPLANT,
            build=build, check=donor_from(other_context=True), rule=recomputed(replayed(older_only=False)),
            state_rule=state_replayed(older_only=False), effect=effect)
