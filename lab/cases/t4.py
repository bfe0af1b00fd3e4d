"""T4 reordering: swap the position of two records (order keys, timestamps, parent links).

Variant ``swap=contents``: on list-element records the two records' texts are exchanged and each
keeps its identity and everything else in its place; on SQL rows ordered by a column of their
own the rows' contents (all but identity, key, context and order) are exchanged. Either way the
order by identity is unchanged while the order served is swapped. Re-pointing parent links
cannot reorder list elements: the parent links of version rows order the versions of a context's
state, not the records inside one, and the read serves the list of the newest version whatever
its parents say.
"""

from __future__ import annotations

from edits.plan import SWAP_CONTENTS
from edits.model import EditSpec
from edits.ops import SWAP
from lab.cases.case import Case
from lab.cases.derived import recomputed
from lab.cases.evidence import find_marked, meta_of, same_elsewhere
from lab.cases.forms import on_sealed_state


def build(plan, layout) -> EditSpec:
    """Records 1 and 3 of A exchanged."""
    a = plan.of("A")
    return EditSpec("T4", plan.contexts["A"], a[1].marker, second=a[3].marker, op=SWAP)


def rule(view, spec, before, after) -> list[str]:
    """Two distinct records exchanged in order, payloads and everything else as they were."""
    p: list[str] = []
    first = find_marked(view, before, spec["target"], "before", p)
    if p:
        return p
    ctx = first  # its whole context: the records sharing its scope too
    seq_b = [view.marker(r) for r in view.sequence(before, ctx)]
    seq_a = [view.marker(r) for r in view.sequence(after, ctx)]
    i, j = seq_b.index(spec["target"]), seq_b.index(spec["second"])
    want = list(seq_b)
    want[i], want[j] = want[j], want[i]
    if spec["target"] == spec["second"]:
        p.append("T4 needs two distinct records")
    if seq_a != want:
        p.append(f"order after the edit is {seq_a}, expected {want}")
    if sorted(r["payload"] for r in before) != sorted(r["payload"] for r in after):
        p.append("payloads changed beyond an exchange of positions")
    if spec.get("variant") == SWAP_CONTENTS:
        p += _identities_kept(view.sequence(before, ctx), view.sequence(after, ctx), (i, j))
    return p + same_elsewhere(view, before, after, {spec["target"], spec["second"]})


def _identities_kept(before: list, after: list, places: tuple[int, int]) -> list[str]:
    """``swap=contents``: the records at the two places keep their identities (only contents moved)."""
    if len(before) != len(after) or any(before[k].get("identity") != after[k].get("identity") for k in places):
        return ["the identities moved with the records: not an exchange of contents"]
    return []


def effect(spec, served) -> tuple[bool, str]:
    """The second record is served before the first; on a store declared unordered (its order
    served means nothing), the two records' served metadata exchanged instead."""
    order = served.markers
    if spec["target"] not in order or spec["second"] not in order:
        return False, "one of the exchanged records was not served"
    if not served.ordered:
        return exchanged_meta(spec, served)
    swapped = order.index(spec["second"]) < order.index(spec["target"])
    return swapped, f"{spec['second']} served before {spec['target']}: {swapped}"


def exchanged_meta(spec, served) -> tuple[bool, str]:
    """The served metadata fields whose values the two records exchanged since C1 (their order key,
    a timestamp, where the store keeps no order the read serves)."""
    now = {m: meta_of(served.records, spec[m]) for m in ("target", "second")}
    then = {m: meta_of(served.baseline, spec[m]) for m in ("target", "second")}
    if None in (*now.values(), *then.values()):
        return False, "the exchanged records' metadata was not served, here or in C1"
    keys = sorted(k for k in then["target"] if k in then["second"] and then["target"][k] != then["second"][k]
                  and now["target"].get(k) == then["second"][k] and now["second"].get(k) == then["target"][k])
    if not keys:
        return False, f"no served metadata of {spec['target']} and {spec['second']} exchanged (unordered store)"
    return True, f"served {', '.join(keys)} of {spec['target']} and {spec['second']} exchanged (unordered store)"


CASE = Case("T4", "reordering", "edit", "A", "T1-T5",
            "two distinct records exchanged in order, nothing else", ("order", "record"), level="L2", op=SWAP,
            build=build, rule=recomputed(rule), state_rule=on_sealed_state(rule), effect=effect)
