"""C3, "edit landed": did the raw store change exactly as the case intends?

Pure functions over saved evidence: the record views (``Record.to_json()``)
read by the generic editor before and after the edit, and the file digests of
the raw volumes. Records are matched by the markers the lab seeded, so the
check works whether a store's identity is a key or a position. The record
view is :mod:`lab.c3_view`; the rules for whole version rows of a sealed state
are :mod:`lab.c3_state`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from lab.c3_state import STATE_RULES
from lab.c3_view import Rec, RecordView, find_marked, find_two


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
    view = RecordView(layout)
    rule = (STATE_RULES if spec.get("unit") == "state" else _RULES).get(spec["case"])
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
    view = RecordView(layout)
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


def _replaced(old: Any, new: Any, find: str, replace: str) -> bool:
    """``new`` equals ``old`` with the token replaced: in text, in bytes (shown as hex), or
    anywhere inside a structured value (the tokens are plain ASCII, so its JSON form serves)."""
    if isinstance(old, dict) and isinstance(new, dict) and "hex" in old and "hex" in new:
        return bytes.fromhex(new["hex"]) == bytes.fromhex(old["hex"]).replace(find.encode(), replace.encode())
    dump = lambda value: json.dumps(value, sort_keys=True)  # noqa: E731
    return dump(new) == dump(old).replace(find, replace)


def _same_elsewhere(view: RecordView, before: list[Rec], after: list[Rec], skip: set[str]) -> list[str]:
    if view.others(before, skip) != view.others(after, skip):
        return [f"records other than {sorted(skip)} changed"]
    return []


def _t1(view, spec, before, after):
    old, new, p = find_two(view, (before, spec["target"], "before"), (after, spec["target"], "after"))
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
        victim = find_marked(view, before, spec["target"], "before", p)
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
    first = find_marked(view, before, spec["target"], "before", p)
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
    template, forged, p = find_two(view, (before, spec["target"], "before"), (after, spec["replace"], "after"))
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
        victim, donor, p = find_two(view, (before, spec["target"], "victim before"),
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
    old, new, p = find_two(view, (before, spec["target"], "before"), (after, spec["target"], "after"))
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
