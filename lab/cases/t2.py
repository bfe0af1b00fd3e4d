"""T2 tail truncation: delete the most recent record(s) so an earlier state becomes current.

On a sealed state the context is rolled back a version: the version rows newer than the
state before the target's write are gone, and that state is current again. On list-element
records that rollback is the default too; variant ``element`` removes the newest element inside
the current version row instead, which stays current (C3 checks it did).
"""

from __future__ import annotations

from edits.lists import LAST_ELEMENT
from edits.model import EditSpec
from edits.ops import ROLLBACK
from lab.cases import versions as v
from lab.cases.case import Case
from lab.cases.derived import recomputed
from lab.cases.deletion import absent, deleted
from lab.cases.evidence import find_marked


def build(plan, layout) -> EditSpec:
    """A rolled back to before its newest record (where no versions are kept: that record deleted)."""
    return EditSpec("T2", plan.contexts["A"], plan.of("A")[-1].marker, op=ROLLBACK)


def state_rule(view, spec, before, after) -> list[str]:
    """Exactly the version rows newer than the state before the target's write removed."""
    p: list[str] = []
    target = find_marked(view, before, spec["target"], "before", p)
    if p:
        return p
    rows = v.versions(before, target["context"])
    labelled = [r for r in rows if view.marker(r)]
    k = labelled.index(target)
    if k == 0:
        return ["the target is the first record of its context: there is no earlier state"]
    keep = labelled[k - 1]
    doomed = {v.rkey(r) for r in rows if v.rank(r.get("order")) > v.rank(keep.get("order"))}
    if target is not rows[-1] and v.rank(target.get("order")) <= v.rank(keep.get("order")):
        p.append("the target's version is not newer than the state kept")
    if {v.rkey(r) for r in after} != {v.rkey(r) for r in before} - doomed:
        p.append("the version rows removed are not exactly those newer than the state kept")
    now = v.versions(after, target["context"])
    if not now or v.rkey(now[-1]) != v.rkey(keep):
        p.append("the state kept is not the current version after the edit")
    return p + v.rows_elsewhere(view, before, after, doomed)


CASE = Case("T2", "tail truncation", "edit", "A", "T1-T5",
            "the most recent record of the context absent, nothing else", ("order",), level="L2", op=ROLLBACK,
            build=build, rule=recomputed(deleted("last", {LAST_ELEMENT: v.same_version})), state_rule=state_rule, effect=absent)
