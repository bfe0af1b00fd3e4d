"""T3 middle deletion: delete a record that is neither first nor last.

On list-element records the element is removed inside the current version row (default) or, variant
``version=new``, in a new newest version row of the adversary's authorship whose list lacks it (the
genuine rows untouched). Removing whole version rows cannot express a middle deletion: the list of a
context only grows from version to version, so every genuine version that lacks the middle record
also lacks every record written after it; making one of them current is T2's rollback, a tail
truncation, not a middle deletion.
"""

from __future__ import annotations

from edits.lists import NEW_VERSION
from edits.model import EditSpec
from edits.ops import DELETE
from lab.cases import versions as v
from lab.cases.case import Case
from lab.cases.derived import recomputed
from lab.cases.deletion import absent, deleted
from lab.cases.forms import on_sealed_state
from lab.cases.seedplan import FACT_INDEX


def build(plan, layout) -> EditSpec:
    """The fact record of A (index 2 of 5: the middle)."""
    return EditSpec("T3", plan.contexts["A"], plan.of("A")[FACT_INDEX].marker, op=DELETE)


CASE = Case("T3", "middle deletion", "edit", "A", "T1-T5",
            "a record that is neither first nor last absent, nothing else", ("record",), level="L1", op=DELETE,
            build=build, rule=recomputed(deleted("middle", {NEW_VERSION: v.in_new_version})),
            state_rule=on_sealed_state(deleted("middle")), effect=absent)
