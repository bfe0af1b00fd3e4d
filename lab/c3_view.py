"""The record view C3 compares with: records matched by the markers the lab seeded.

A record here is ``Record.to_json()`` as the generic editor read it. The view
ignores what a position-ordered store renumbers, and finds records by marker
(an opaque record by the label the lab gave it).
"""

from __future__ import annotations

from typing import Any

from lab.seedplan import markers_in

Rec = dict[str, Any]


class RecordView:
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


def find_marked(view: RecordView, recs: list[Rec], marker: str, label: str, problems: list[str]) -> Rec | None:
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
