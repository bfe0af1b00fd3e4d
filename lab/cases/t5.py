"""T5 forged insertion: insert a new record of the adversary's authorship in the SUT's own format.

On list-element records the forged element is appended inside the current version row (default) or,
variant ``version=new``, in a new newest version row of the adversary's authorship on top of the
genuine ones: a copy of the newest row with a fresh version value, its parent link (where the layout
names one) to the genuine newest, the forged element appended; the genuine rows stay as they were.
"""

from __future__ import annotations

from edits.lists import NEW_VERSION
from edits.model import EditSpec
from edits.ops import FORGE
from lab.cases import versions as v
from lab.cases.case import Case
from lab.cases.derived import recomputed
from lab.cases.evidence import find_two, same_elsewhere
from lab.cases.forms import on_sealed_state


def build(plan, layout) -> EditSpec:
    """A copy of A's newest record with the forged marker in place of its own."""
    newest = plan.of("A")[-1]
    return EditSpec("T5", plan.contexts["A"], newest.marker, find=newest.marker, replace=plan.forged_marker, op=FORGE)


def rule(view, spec, before, after) -> list[str]:
    """Exactly one new record, in the target context, after the others, with an identity of its own."""
    template, forged, p = find_two(view, (before, spec["target"], "before"), (after, spec["replace"], "after"))
    if p:
        return p
    if len(after) != len(before) + 1:
        p.append(f"expected exactly one new record, found {len(before)} -> {len(after)}")
    if view.whole(forged) != view.whole(template):
        p.append("the forged record is not in the target context" + (
            f" (its scope {forged.get('scope')}, the template's {template.get('scope')})"
            if forged.get("scope") != template.get("scope") else ""))
    records = view.sequence(after, forged)
    seq = [view.marker(r) for r in records]
    if seq and view.keeps_order(records) and seq[-1] != spec["replace"]:
        p.append("the forged record is not the most recent of its context")
    if view.identity and forged["identity"] == template["identity"]:
        p.append("the forged record reuses the template's identity")
    p += same_elsewhere(view, before, after, {spec["replace"]})
    if spec.get("variant") == NEW_VERSION and not p:
        p += v.in_new_version(before, after, forged["context"])
    return p


def effect(spec, served) -> tuple[bool, str]:
    """The forged record is served."""
    there = spec["replace"] in served.markers
    return there, f"forged record {spec['replace']} served: {there}"


CASE = Case("T5", "forged insertion", "edit", "A", "T1-T5",
            "exactly one new record, after the others, nothing else", ("record",), level="L1", op=FORGE,
            build=build, rule=recomputed(rule), state_rule=on_sealed_state(rule), effect=effect)
