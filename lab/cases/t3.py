"""T3 middle deletion: delete a record that is neither first nor last."""

from __future__ import annotations

from edits.model import EditSpec
from lab.cases.case import Case
from lab.cases.deletion import absent, deleted
from lab.cases.forms import on_sealed_state
from lab.cases.seedplan import FACT_INDEX


def build(plan, layout) -> EditSpec:
    """The fact record of A (index 2 of 5: the middle)."""
    return EditSpec("T3", plan.contexts["A"], plan.of("A")[FACT_INDEX].marker)


CASE = Case("T3", "middle deletion", "edit", "A", "T1-T5",
            "a record that is neither first nor last absent, nothing else", ("record",), level="L1",
            build=build, rule=deleted("middle"), state_rule=on_sealed_state(deleted("middle")), effect=absent)
