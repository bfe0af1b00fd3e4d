"""The replay family (T6 a record of the other context, T7 an older record of the same one):
where the donor must come from, checked before the edit; C3 over records and over whole
version rows of a sealed state."""

from __future__ import annotations

from edits.model import EditError, EditSpec, Record
from edits.records import find_one
from lab.cases import versions as v
from lab.cases.evidence import find_two, same_elsewhere


def donor_from(other_context: bool):
    """The case's check before its transplant: the donor is of the other context than the victim
    (``other_context``) or of the same one. A marker that resolves to no single record, or a target
    outside the spec's context, is left to the editor to refuse."""
    def check(spec: EditSpec, records: list[Record]) -> None:
        try:
            target = find_one(records, spec.target, "target")
            donor = find_one(records, spec.donor or "", "donor")
        except EditError:
            return
        if (spec.context and target.context != spec.context) or donor is target or donor == target:
            return
        same = donor.whole_context() == target.whole_context()
        if other_context and same:
            raise EditError(f"{spec.case}: donor and victim are both in context {target.context!r}; "
                            "a replay needs another context")
        if not other_context and not same:
            raise EditError(f"{spec.case}: donor is in context {_named(donor)!r}, the victim in {_named(target)!r}")
    return check


def _named(record: Record):
    """A record's context for a message: its name, or with its scope where it has one."""
    return record.whole_context() if record.scope else record.context


def replayed(older_only: bool):
    """C3: the victim slot holds the donor's payload with the victim's identifiers; the donor is
    an older record of the same context (``older_only``) or one of the other context."""
    def rule(view, spec, before, after) -> list[str]:
        victim, donor, p = find_two(view, (before, spec["target"], "victim before"),
                                    (before, spec["donor"], "donor before"))
        if p:
            return p
        slot = [r for r in after if view.whole(r) == view.whole(victim)
                and (r.get("identity") == victim.get("identity") if view.identity
                     else r.get("locator") == victim.get("locator"))]
        if len(slot) != 1:
            return p + [f"the victim slot is gone or ambiguous ({len(slot)} records)"]
        if slot[0]["payload"] != donor["payload"]:
            p.append("the victim slot does not hold the donor's payload")
        if victim["payload"] == donor["payload"]:
            p.append("donor and victim were seeded with equal values")
        p += _older(view, spec, before, victim, donor) if older_only else _other_context(view, before, victim, donor)
        if len(after) != len(before):
            p.append("the number of records changed")
        if view.sig(donor) not in [view.sig(r) for r in after]:
            p.append("the donor record itself changed")
        return p + same_elsewhere(view, before, after, {spec["target"], spec["donor"]})
    return rule


def _older(view, spec, before, victim, donor) -> list[str]:
    records = view.sequence(before, victim)
    seq = [view.marker(r) for r in records]
    if view.whole(donor) != view.whole(victim) or (view.keeps_order(records)
                                                   and seq.index(spec["donor"]) >= seq.index(spec["target"])):
        return ["the donor is not an older record of the same context"]
    return []


def _other_context(view, before, victim, donor) -> list[str]:
    p = []
    if view.whole(donor) == view.whole(victim):
        p.append("the donor is from the same context")
    a_vals = {r["payload"] for r in view.sequence(before, donor)}
    b_vals = {r["payload"] for r in view.sequence(before, victim)}
    if a_vals & b_vals:
        p.append("the contexts were seeded with equal values: T6 is unscorable")
    return p


def state_replayed(older_only: bool):
    """C3 on a sealed state: the current version row holds the payload of an older version of the
    same context (``older_only``) or of the other context's current one; the donor untouched."""
    def rule(view, spec, before, after) -> list[str]:
        victim_mark, donor_mark, p = find_two(view, (before, spec["target"], "victim before"),
                                              (before, spec["donor"], "donor before"))
        if p:
            return p
        ctx = spec.get("context") or victim_mark["context"]
        victim = v.current(before, ctx)
        donor = donor_mark if older_only else v.current(before, donor_mark["context"])
        if victim is None or donor is None:
            return ["no current version row to replay over"]
        if older_only and (donor["context"] != ctx or v.rank(donor.get("order")) >= v.rank(victim.get("order"))):
            p.append("the donor is not an older version of the same context")
        if not older_only and donor["context"] == ctx:
            p.append("the donor is from the same context")
        p += v.payload_moved(view, victim, v.same_key(after, victim), donor)
        if v.same_key(after, donor) is None or view.sig(v.same_key(after, donor)) != view.sig(donor):
            p.append("the donor version row itself changed")
        return p + v.rows_elsewhere(view, before, after, {v.rkey(victim)})
    return rule
