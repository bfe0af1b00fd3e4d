"""Whole version rows of a sealed (opaque) state: what the cases' state rules share (see edits.version_rows).

The records are version rows (identity = the version), labelled with the marker whose seeding
write made each one current; the newest row of a context is its current state. T1 tampers the
current row's payload in place, T2 rolls a context back to an earlier state, T6/T7 copy another
version row's payload over the current one.

On a readable payload the records are list elements, each naming the version row that holds it
(``locator.version``, and ``locator.parent`` where the layout declares the parent link): the
variants' rules check in which version row an edit landed (:func:`same_version`,
:func:`in_new_version`).
"""

from __future__ import annotations

import json
from typing import Any

from lab.cases.evidence import Rec, RecordView


def rank(value: Any) -> tuple:
    """A sort key for order values of any type (numbers first)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, value, "")
    return (1, 0, str(value))


def rkey(rec: Rec) -> tuple:
    """A version row's key: its context and identity."""
    return rec["context"], repr(rec.get("identity"))


def versions(recs: list[Rec], context: str) -> list[Rec]:
    """The version rows of a context, oldest first."""
    return sorted((r for r in recs if r["context"] == context), key=lambda r: rank(r.get("order")))


def current(recs: list[Rec], context: str) -> Rec | None:
    """The newest version row of a context (its current state), or None."""
    return (versions(recs, context) or [None])[-1]


def rows_elsewhere(view: RecordView, before: list[Rec], after: list[Rec], skip: set[tuple]) -> list[str]:
    """A problem when version rows other than those keyed in ``skip`` changed."""
    old = {rkey(r): view.sig(r) for r in before if rkey(r) not in skip}
    new = {rkey(r): view.sig(r) for r in after if rkey(r) not in skip}
    return [] if old == new else ["version rows other than the edited one changed"]


def payload_moved(view: RecordView, old: Rec | None, new: Rec | None, source: Rec | None) -> list[str]:
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


def same_key(recs: list[Rec], rec: Rec | None) -> Rec | None:
    """The one row of ``recs`` with ``rec``'s key, or None."""
    hits = [r for r in recs if rec is not None and rkey(r) == rkey(rec)]
    return hits[0] if len(hits) == 1 else None


def held_in(recs: list[Rec], context: str) -> list[Any]:
    """The version rows (``locator.version``) that hold the records of a context, in record order."""
    return list(dict.fromkeys(r.get("locator", {}).get("version") for r in recs if r["context"] == context))


def same_version(before: list[Rec], after: list[Rec], context: str) -> list[str]:
    """A problem unless the context's records sit in the same one version row before and after."""
    old, new = held_in(before, context), held_in(after, context)
    if len(old) != 1 or old != new:
        return [f"the records of the context moved from version row(s) {old} to {new}: not an edit "
                "inside the current version"]
    return []


def in_new_version(before: list[Rec], after: list[Rec], context: str) -> list[str]:
    """A problem unless the context's records sit, after the edit, in one new version row ranked after
    the one current before (and linked to it as its parent, where the records name a parent)."""
    old, new = held_in(before, context), held_in(after, context)
    if len(old) != 1 or len(new) != 1:
        return [f"the records of the context are not in one version row each before and after ({old} -> {new})"]
    if new[0] == old[0] or rank(new[0]) <= rank(old[0]):
        return [f"the records sit in version row {new[0]!r}, not in a new one after {old[0]!r}"]
    parents = {r["locator"]["parent"] for r in after if r["context"] == context and "parent" in r.get("locator", {})}
    if parents and parents != {old[0]}:
        return [f"the new version row's parent is {sorted(map(str, parents))}, not the genuine newest {old[0]!r}"]
    return []
