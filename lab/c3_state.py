"""C3 rules for unit "state": whole version rows of a sealed (opaque) state (see edits.lists).

The records are version rows (identity = the version), labelled with the marker whose seeding
write made each one current; the newest row of a context is its current state. T1 tampers the
current row's payload in place, T2 rolls a context back to an earlier state, T6/T7 copy another
version row's payload over the current one.
"""

from __future__ import annotations

import json
from typing import Any

from lab.c3_view import Rec, RecordView, find_marked, find_two


def _rank(value: Any) -> tuple:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, value, "")
    return (1, 0, str(value))


def _rkey(rec: Rec) -> tuple:
    return rec["context"], repr(rec.get("identity"))


def _versions(recs: list[Rec], context: str) -> list[Rec]:
    return sorted((r for r in recs if r["context"] == context), key=lambda r: _rank(r.get("order")))


def _rows_elsewhere(view: RecordView, before: list[Rec], after: list[Rec], skip: set[tuple]) -> list[str]:
    old = {_rkey(r): view.sig(r) for r in before if _rkey(r) not in skip}
    new = {_rkey(r): view.sig(r) for r in after if _rkey(r) not in skip}
    return [] if old == new else ["version rows other than the edited one changed"]


def _payload_moved(view: RecordView, old: Rec | None, new: Rec | None, source: Rec | None) -> list[str]:
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
    holder = find_marked(view, before, spec["target"], "before", p)
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
    target = find_marked(view, before, spec["target"], "before", p)
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
        victim_mark, donor_mark, p = find_two(view, (before, spec["target"], "victim before"),
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


STATE_RULES = {"T1": _state_t1, "T2": _state_t2, "T6": _state_replay(older_only=False),
                "T7": _state_replay(older_only=True)}
