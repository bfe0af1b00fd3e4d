"""The evidence the cases' rules read: records as the generic editor saw them, and what a read served.

A record here is ``Record.to_json()`` as the generic editor read it. :class:`RecordView`
ignores what a position-ordered store renumbers and finds records by the markers the lab
seeded (an opaque record by the label the lab gave it), so a C3 rule works whether a store's
identity is a key or a position. :class:`Served` is what the read after the restart served,
as the effect checks see it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from lab.cases.seedplan import markers_in

Rec = dict[str, Any]


class RecordView:
    """Record comparisons that ignore what a position-ordered store renumbers."""

    def __init__(self, layout: dict[str, Any]):
        self.layout = layout
        self.positional = layout.get("order") == "@position"
        self.order_field = None if self.positional else layout.get("order")
        self.identity = tuple(layout.get("identity") or ())
        self.payload_field = (layout.get("payload") or {}).get("field")
        self.meta_fields = dict(layout.get("metadata") or {})
        self.meta_refs = dict(layout.get("metadata_refs") or {})  # name -> [{field, path, format}], when declared

    def marker(self, rec: Rec) -> str | None:
        """The seeded marker a record carries (an opaque record: the label the lab gave it)."""
        if rec.get("label"):
            return rec["label"]
        found = markers_in(rec.get("payload", ""))
        return found[0] if found else None

    def by_marker(self, recs: list[Rec]) -> dict[str, Rec]:
        """The marked records by marker."""
        return {m: r for r in recs if (m := self.marker(r))}

    def sig(self, rec: Rec, drop: tuple[str, ...] = (), keep_identity: bool = True) -> tuple:
        """What must not change about a record, order field aside."""
        fields = {k: v for k, v in rec.get("fields", {}).items() if k != self.order_field and k not in drop}
        ident = tuple(rec.get("identity", ())) if keep_identity and self.identity else ()
        return (*self.whole(rec), repr(ident), rec.get("payload"), repr(sorted(rec.get("metadata", {}).items())),
                repr(sorted(fields.items())))

    def signatures(self, recs: list[Rec]) -> list[tuple]:
        """The signatures of the records, in order."""
        return [self.sig(r) for r in recs]

    @staticmethod
    def whole(rec: Rec) -> tuple[str, str]:
        """A record's whole context: its context and the scope of a context made of several fields
        (``context: [session_id, app_name, user_id]``; none for a context of one field)."""
        return rec["context"], repr(rec.get("scope") or [])

    def sequence(self, recs: list[Rec], context: str | Rec) -> list[Rec]:
        """The records of one context, in store order: ``context`` by name, or a record whose whole
        context (its scope too) the records share."""
        if isinstance(context, dict):
            return [r for r in recs if self.whole(r) == self.whole(context)]
        return [r for r in recs if r["context"] == context]

    @staticmethod
    def keeps_order(seq: list[Rec]) -> bool:
        """Whether a context's records have a place at all: False when the editor read every one with no
        order (a map whose store orders its keys itself, as jsonb does: a place there says nothing of
        when a record was written, so a rule's position check does not apply; the lab chose the target
        by the seed plan's order)."""
        return any(r.get("order") is not None for r in seq)

    def others(self, recs: list[Rec], markers: set[str]) -> list[tuple]:
        """The signatures of the records not carrying one of ``markers``."""
        return [self.sig(r) for r in recs if self.marker(r) not in markers]

    def between(self, before: list[Rec], after: list[Rec]) -> tuple[list[str], list[str]]:
        """The markers added and removed from ``before`` to ``after``."""
        b, a = self.by_marker(before), self.by_marker(after)
        return sorted(set(a) - set(b)), sorted(set(b) - set(a))

    def changes(self, before: list[Rec], after: list[Rec]) -> dict[str, list[str]]:
        """Markers removed, added and changed (the C3 evidence summary)."""
        b, a = self.by_marker(before), self.by_marker(after)
        return {"removed": sorted(set(b) - set(a)), "added": sorted(set(a) - set(b)),
                "changed": sorted(m for m in set(a) & set(b) if self.sig(a[m]) != self.sig(b[m]))}


def find_marked(view: RecordView, recs: list[Rec], marker: str, label: str, problems: list[str]) -> Rec | None:
    """The one record carrying ``marker``; a problem (and None) when it is not unique."""
    hits = [r for r in recs if view.marker(r) == marker]
    if len(hits) != 1:
        problems.append(f"{label}: expected one record with marker {marker}, found {len(hits)}")
        return None
    return hits[0]


def find_two(view: RecordView, first: tuple[list[Rec], str, str], second: tuple[list[Rec], str, str]):
    """Find one record in each of two record lists by marker; problems when either is not unique."""
    problems: list[str] = []
    a = find_marked(view, first[0], first[1], first[2], problems)
    b = find_marked(view, second[0], second[1], second[2], problems)
    return a, b, problems


def stored_fields(rec: Rec) -> dict[str, Any]:
    """A record view's fields as the store holds them (bytes shown as hex back to bytes)."""
    return {k: bytes.fromhex(v["hex"]) if isinstance(v, dict) and set(v) == {"hex"} else v
            for k, v in rec.get("fields", {}).items()}


def changed_fields(old: Rec, new: Rec, but: str) -> list[str]:
    """The fields, other than ``but``, that differ between two views of a record."""
    a, b = old.get("fields", {}), new.get("fields", {})
    return sorted(k for k in set(a) | set(b) if k != but and a.get(k) != b.get(k))


def same_elsewhere(view: RecordView, before: list[Rec], after: list[Rec], skip: set[str]) -> list[str]:
    """A problem when records other than those carrying ``skip`` changed."""
    if view.others(before, skip) != view.others(after, skip):
        return [f"records other than {sorted(skip)} changed"]
    return []


def replaced(old: Any, new: Any, find: str, replace: str) -> bool:
    """``new`` equals ``old`` with the token replaced: in text, in bytes (shown as hex), or
    anywhere inside a structured value (the tokens are plain ASCII, so its JSON form serves)."""
    if isinstance(old, dict) and isinstance(new, dict) and "hex" in old and "hex" in new:
        return bytes.fromhex(new["hex"]) == bytes.fromhex(old["hex"]).replace(find.encode(), replace.encode())
    dump = lambda value: json.dumps(value, sort_keys=True)  # noqa: E731
    return dump(new) == dump(old).replace(find, replace)


def meta_of(records: list[dict[str, Any]], marker: str) -> dict[str, Any] | None:
    """The served metadata of the record whose text carries ``marker`` ({} when it has none), or
    None when no served record carries it."""
    for rec in records:
        if marker in markers_in(str(rec.get("text", ""))):
            meta = rec.get("meta")
            return meta if isinstance(meta, dict) else {}
    return None


@dataclass(frozen=True)
class Served:
    """What the read served, as the effect checks see it: the ``records`` (driver-shaped), the
    seeded ``markers`` in the order served, every served ``text`` joined, ``baseline``: the
    same context as served in C1, and ``ordered``: False on a store declared unordered (the
    order served means nothing; its records' order key is seen in their served metadata)."""

    records: list[dict[str, Any]]
    baseline: list[dict[str, Any]]
    markers: list[str]
    text: str
    ordered: bool = True

    @classmethod
    def of(cls, records: list[dict[str, Any]], baseline: list[dict[str, Any]], ordered: bool = True) -> "Served":
        """The view of what a read served."""
        return cls(records, baseline, [m for rec in records for m in markers_in(str(rec.get("text", "")))],
                   " ".join(str(rec.get("text", "")) for rec in records), ordered)
