"""C3, "edit landed": did the raw store change exactly as the case intends?

Pure functions over saved evidence: the record views (``Record.to_json()``)
read by the generic editor before and after the edit, and the file digests of
the raw volumes. Records are matched by the markers the lab seeded, so the
check works whether a store's identity is a key or a position.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from lab.seedplan import markers_in

Rec = dict[str, Any]


@dataclass
class C3Result:
    """Whether the edit landed, why not, and the evidence summary."""

    ok: bool
    reasons: list[str] = field(default_factory=list)
    evidence: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Plain data for the observation file."""
        return {"ok": self.ok, "reasons": list(self.reasons), "evidence": self.evidence}


def check_edit(spec: dict[str, Any], layout: dict[str, Any], before: list[Rec], after: list[Rec],
               files: dict[str, Any], untouched_files: dict[str, Any] | None = None) -> C3Result:
    """C3 for T1..T8: ``spec`` is ``EditSpec.to_json()``, ``files`` the store-volume digest diff."""
    reasons: list[str] = []
    changed_files = files.get("added", []) + files.get("removed", []) + files.get("changed", [])
    if not changed_files:
        reasons.append("raw volume unchanged: no file of the store differs after the edit")
    if untouched_files and any(untouched_files.get(k) for k in ("added", "removed", "changed")):
        reasons.append(f"a volume the adversary does not hold changed: {untouched_files}")
    view = _View(layout)
    rule = (_STATE_RULES if spec.get("unit") == "state" else _RULES).get(spec["case"])
    if rule is None:
        return C3Result(False, [f"no C3 rule for {spec['case']}"])
    reasons += rule(view, spec, before, after)
    evidence = {"records_before": len(before), "records_after": len(after),
                "files_changed": sorted(changed_files), "record_changes": view.changes(before, after)}
    return C3Result(not reasons, reasons, evidence)


def check_restore(mid_expect: str, named: list[str], before: list[Rec], mid: list[Rec], after: list[Rec],
                  digests_before: dict[str, Any], digests_after: dict[str, Any], layout: dict[str, Any]) -> C3Result:
    """C3 for T9 (``mid_expect='added'``) and T10 (``'removed'``): the SUT op changed exactly the
    named records, and the restored copy equals the pre-op store record for record and byte for byte."""
    view = _View(layout)
    reasons: list[str] = []
    b, m = view.by_marker(before), view.by_marker(mid)
    added, removed = sorted(set(m) - set(b)), sorted(set(b) - set(m))
    if mid_expect == "added" and (added != sorted(named) or removed):
        reasons.append(f"the genuine write should add exactly {named}; it added {added}, removed {removed}")
    if mid_expect == "removed" and (removed != sorted(named) or added):
        reasons.append(f"the erasure should remove exactly {named}; it removed {removed}, added {added}")
    if view.signatures(after) != view.signatures(before):
        reasons.append("the restored store differs from the copy record for record")
    if digests_after != digests_before:
        reasons.append("the restored volume differs from the copy byte for byte")
    evidence = {"records_before": len(before), "records_between": len(mid), "records_after": len(after),
                "between": {"added": added, "removed": removed}, "restored_equal": not reasons}
    return C3Result(not reasons, reasons, evidence)


class _View:
    """Record comparisons that ignore what a position-ordered store renumbers."""

    def __init__(self, layout: dict[str, Any]):
        self.positional = layout.get("order") == "@position"
        self.order_field = None if self.positional else layout.get("order")
        self.identity = tuple(layout.get("identity") or ())
        self.payload_field = (layout.get("payload") or {}).get("field")
        self.meta_fields = dict(layout.get("metadata") or {})

    def marker(self, rec: Rec) -> str | None:
        if rec.get("label"):  # an opaque record: the marker the lab attributes to it
            return rec["label"]
        found = markers_in(rec.get("payload", ""))
        return found[0] if found else None

    def by_marker(self, recs: list[Rec]) -> dict[str, Rec]:
        return {m: r for r in recs if (m := self.marker(r))}

    def sig(self, rec: Rec, drop: tuple[str, ...] = (), keep_identity: bool = True) -> tuple:
        fields = {k: v for k, v in rec.get("fields", {}).items() if k != self.order_field and k not in drop}
        ident = tuple(rec.get("identity", ())) if keep_identity and self.identity else ()
        return (rec["context"], repr(ident), rec.get("payload"), repr(sorted(rec.get("metadata", {}).items())),
                repr(sorted(fields.items())))

    def signatures(self, recs: list[Rec]) -> list[tuple]:
        return [self.sig(r) for r in recs]

    def sequence(self, recs: list[Rec], context: str) -> list[Rec]:
        return [r for r in recs if r["context"] == context]

    def others(self, recs: list[Rec], markers: set[str]) -> list[tuple]:
        return [self.sig(r) for r in recs if self.marker(r) not in markers]

    def changes(self, before: list[Rec], after: list[Rec]) -> dict[str, list[str]]:
        b, a = self.by_marker(before), self.by_marker(after)
        return {"removed": sorted(set(b) - set(a)), "added": sorted(set(a) - set(b)),
                "changed": sorted(m for m in set(a) & set(b) if self.sig(a[m]) != self.sig(b[m]))}


def _find(view: _View, recs: list[Rec], marker: str, label: str, problems: list[str]) -> Rec | None:
    hits = [r for r in recs if view.marker(r) == marker]
    if len(hits) != 1:
        problems.append(f"{label}: expected one record with marker {marker}, found {len(hits)}")
        return None
    return hits[0]


def _replaced(old: Any, new: Any, find: str, replace: str) -> bool:
    """``new`` equals ``old`` with the token replaced: in text, in bytes (shown as hex), or
    anywhere inside a structured value (the tokens are plain ASCII, so its JSON form serves)."""
    if isinstance(old, dict) and isinstance(new, dict) and "hex" in old and "hex" in new:
        return bytes.fromhex(new["hex"]) == bytes.fromhex(old["hex"]).replace(find.encode(), replace.encode())
    dump = lambda value: json.dumps(value, sort_keys=True)  # noqa: E731
    return dump(new) == dump(old).replace(find, replace)


def _two(view: _View, first: tuple[list[Rec], str, str], second: tuple[list[Rec], str, str]):
    """Find one record in each of two record lists by marker; problems when either is not unique."""
    problems: list[str] = []
    a = _find(view, first[0], first[1], first[2], problems)
    b = _find(view, second[0], second[1], second[2], problems)
    return a, b, problems


def _same_elsewhere(view: _View, before: list[Rec], after: list[Rec], skip: set[str]) -> list[str]:
    if view.others(before, skip) != view.others(after, skip):
        return [f"records other than {sorted(skip)} changed"]
    return []


def _t1(view, spec, before, after):
    old, new, p = _two(view, (before, spec["target"], "before"), (after, spec["target"], "after"))
    if p:
        return p
    if spec["replace"] not in new["payload"] or spec["find"] in new["payload"]:
        p.append("the fact token was not replaced in the payload")
    if new["payload"] != old["payload"].replace(spec["find"], spec["replace"]):
        p.append("the payload changed beyond the fact token")
    if (new["context"], new.get("identity"), new.get("metadata")) != \
            (old["context"], old.get("identity"), old.get("metadata")):
        p.append("identity, context or metadata changed")
    fields_old, fields_new = old.get("fields", {}), new.get("fields", {})
    for name in sorted(set(fields_old) | set(fields_new)):
        if not _replaced(fields_old.get(name), fields_new.get(name), spec["find"], spec["replace"]):
            p.append(f"field {name!r} changed beyond the fact token")
    return p + _same_elsewhere(view, before, after, {spec["target"]})


def _deletion(position: str):
    def rule(view, spec, before, after):
        p: list[str] = []
        victim = _find(view, before, spec["target"], "before", p)
        if p:
            return p
        seq = [view.marker(r) for r in view.sequence(before, victim["context"])]
        idx = seq.index(spec["target"])
        if position == "last" and idx != len(seq) - 1:
            p.append(f"the deleted record was at position {idx} of {len(seq)}, not the most recent")
        if position == "middle" and idx in (0, len(seq) - 1):
            p.append("the deleted record was first or last, not in the middle")
        if any(view.marker(r) == spec["target"] for r in after):
            p.append("the record is still present")
        if len(after) != len(before) - 1:
            p.append(f"expected one record fewer, found {len(before)} -> {len(after)}")
        return p + _same_elsewhere(view, before, after, {spec["target"]})
    return rule


def _t4(view, spec, before, after):
    p: list[str] = []
    first = _find(view, before, spec["target"], "before", p)
    if p:
        return p
    ctx = first["context"]
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
    return p + _same_elsewhere(view, before, after, {spec["target"], spec["second"]})


def _t5(view, spec, before, after):
    template, forged, p = _two(view, (before, spec["target"], "before"), (after, spec["replace"], "after"))
    if p:
        return p
    if len(after) != len(before) + 1:
        p.append(f"expected exactly one new record, found {len(before)} -> {len(after)}")
    if forged["context"] != template["context"]:
        p.append("the forged record is not in the target context")
    seq = [view.marker(r) for r in view.sequence(after, forged["context"])]
    if seq and seq[-1] != spec["replace"]:
        p.append("the forged record is not the most recent of its context")
    if view.identity and forged["identity"] == template["identity"]:
        p.append("the forged record reuses the template's identity")
    return p + _same_elsewhere(view, before, after, {spec["replace"]})


def _replay(older_only: bool):
    def rule(view, spec, before, after):
        victim, donor, p = _two(view, (before, spec["target"], "victim before"),
                                (before, spec["donor"], "donor before"))
        if p:
            return p
        slot = [r for r in after if r["context"] == victim["context"]
                and (r.get("identity") == victim.get("identity") if view.identity
                     else r.get("locator") == victim.get("locator"))]
        if len(slot) != 1:
            return p + [f"the victim slot is gone or ambiguous ({len(slot)} records)"]
        held = slot[0]
        if held["payload"] != donor["payload"]:
            p.append("the victim slot does not hold the donor's payload")
        if victim["payload"] == donor["payload"]:
            p.append("donor and victim were seeded with equal values")
        if older_only:
            seq = [view.marker(r) for r in view.sequence(before, victim["context"])]
            if donor["context"] != victim["context"] or seq.index(spec["donor"]) >= seq.index(spec["target"]):
                p.append("the donor is not an older record of the same context")
        else:
            if donor["context"] == victim["context"]:
                p.append("the donor is from the same context")
            a_vals = {r["payload"] for r in before if r["context"] == donor["context"]}
            b_vals = {r["payload"] for r in before if r["context"] == victim["context"]}
            if a_vals & b_vals:
                p.append("the contexts were seeded with equal values: T6 is unscorable")
        if len(after) != len(before):
            p.append("the number of records changed")
        if view.sig(donor) not in [view.sig(r) for r in after]:
            p.append("the donor record itself changed")
        return p + _same_elsewhere(view, before, after, {spec["target"], spec["donor"]})
    return rule


def _t8(view, spec, before, after):
    old, new, p = _two(view, (before, spec["target"], "before"), (after, spec["target"], "after"))
    if p:
        return p
    name = spec.get("meta_field")
    if old["payload"] != new["payload"]:
        p.append("the content changed")
    if name not in old.get("metadata", {}) or old["metadata"].get(name) == new.get("metadata", {}).get(name):
        p.append(f"metadata {name!r} did not change")
    rest_old = {k: v for k, v in old.get("metadata", {}).items() if k != name}
    rest_new = {k: v for k, v in new.get("metadata", {}).items() if k != name}
    if rest_old != rest_new:
        p.append("other metadata changed too")
    return p + _same_elsewhere(view, before, after, {spec["target"]})


_RULES = {"T1": _t1, "T2": _deletion("last"), "T3": _deletion("middle"), "T4": _t4, "T5": _t5,
          "T6": _replay(older_only=False), "T7": _replay(older_only=True), "T8": _t8}


# ---- unit "state": whole version rows of a sealed (opaque) state, see edits.lists -------------
# The records are version rows (identity = the version), labelled with the marker whose seeding
# write made each one current; the newest row of a context is its current state.

def _rank(value: Any) -> tuple:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, value, "")
    return (1, 0, str(value))


def _rkey(rec: Rec) -> tuple:
    return rec["context"], repr(rec.get("identity"))


def _versions(recs: list[Rec], context: str) -> list[Rec]:
    return sorted((r for r in recs if r["context"] == context), key=lambda r: _rank(r.get("order")))


def _rows_elsewhere(view: _View, before: list[Rec], after: list[Rec], skip: set[tuple]) -> list[str]:
    old = {_rkey(r): view.sig(r) for r in before if _rkey(r) not in skip}
    new = {_rkey(r): view.sig(r) for r in after if _rkey(r) not in skip}
    return [] if old == new else ["version rows other than the edited one changed"]


def _payload_moved(view: _View, old: Rec | None, new: Rec | None, source: Rec | None) -> list[str]:
    """``new`` is ``old`` with its payload field taken from ``source`` (or just changed, same size)."""
    if old is None or new is None:
        return ["the edited version row is gone"]
    field_name = view.payload_field
    fo, fn = old.get("fields", {}), new.get("fields", {})
    p = []
    if {k: v for k, v in fo.items() if k != field_name} != {k: v for k, v in fn.items() if k != field_name}:
        p.append("fields other than the payload changed in the edited version row")
    if fn.get(field_name) == fo.get(field_name):
        p.append("the payload of the version row did not change")
    if source is None and len(json.dumps(fn.get(field_name))) != len(json.dumps(fo.get(field_name))):
        p.append("the payload changed size: not an in-place tamper")
    if source is not None and fn.get(field_name) != source.get("fields", {}).get(field_name):
        p.append("the version row does not hold the donor's payload")
    return p


def _same_key(recs: list[Rec], rec: Rec | None) -> Rec | None:
    hits = [r for r in recs if rec is not None and _rkey(r) == _rkey(rec)]
    return hits[0] if len(hits) == 1 else None


def _state_t1(view, spec, before, after):
    p: list[str] = []
    holder = _find(view, before, spec["target"], "before", p)
    if p:
        return p
    ctx = spec.get("context") or holder["context"]
    if holder["context"] != ctx:
        return [f"the target was written into {holder['context']!r}, not {ctx!r}"]
    old = (_versions(before, ctx) or [None])[-1]
    new = _same_key(after, old)
    p += _payload_moved(view, old, new, None)
    if new is not None and (_versions(after, ctx) or [None])[-1] is not new:
        p.append("the edited row is no longer the current version")
    return p + _rows_elsewhere(view, before, after, {_rkey(old)} if old else set())


def _state_t2(view, spec, before, after):
    p: list[str] = []
    target = _find(view, before, spec["target"], "before", p)
    if p:
        return p
    rows = _versions(before, target["context"])
    labelled = [r for r in rows if view.marker(r)]
    k = labelled.index(target)
    if k == 0:
        return ["the target is the first record of its context: there is no earlier state"]
    keep = labelled[k - 1]
    doomed = {_rkey(r) for r in rows if _rank(r.get("order")) > _rank(keep.get("order"))}
    if target is not rows[-1] and _rank(target.get("order")) <= _rank(keep.get("order")):
        p.append("the target's version is not newer than the state kept")
    if {_rkey(r) for r in after} != {_rkey(r) for r in before} - doomed:
        p.append("the version rows removed are not exactly those newer than the state kept")
    now = _versions(after, target["context"])
    if not now or _rkey(now[-1]) != _rkey(keep):
        p.append("the state kept is not the current version after the edit")
    return p + _rows_elsewhere(view, before, after, doomed)


def _state_replay(older_only: bool):
    def rule(view, spec, before, after):
        victim_mark, donor_mark, p = _two(view, (before, spec["target"], "victim before"),
                                          (before, spec["donor"], "donor before"))
        if p:
            return p
        ctx = spec.get("context") or victim_mark["context"]
        victim = (_versions(before, ctx) or [None])[-1]
        donor = donor_mark if older_only else (_versions(before, donor_mark["context"]) or [None])[-1]
        if victim is None or donor is None:
            return ["no current version row to replay over"]
        if older_only and (donor["context"] != ctx or _rank(donor.get("order")) >= _rank(victim.get("order"))):
            p.append("the donor is not an older version of the same context")
        if not older_only and donor["context"] == ctx:
            p.append("the donor is from the same context")
        p += _payload_moved(view, victim, _same_key(after, victim), donor)
        if _same_key(after, donor) is None or view.sig(_same_key(after, donor)) != view.sig(donor):
            p.append("the donor version row itself changed")
        return p + _rows_elsewhere(view, before, after, {_rkey(victim)})
    return rule


_STATE_RULES = {"T1": _state_t1, "T2": _state_t2, "T6": _state_replay(older_only=False),
                "T7": _state_replay(older_only=True)}

