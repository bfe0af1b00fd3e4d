"""T8 metadata tamper: change a record's owner, role, source or timestamp; content untouched.

By default every place the layout declares for the field is set at once, each in its own
encoding (:mod:`edits.relabel`: a class name for a role, epoch seconds beside ISO text), and every
place must then hold what the relabel gives it; a ``place=`` variant (:mod:`edits.places`) sets one
of them, and exactly that place must change: the metadata the lab reads (the first declared place)
may then be unchanged.
"""

from __future__ import annotations

from dataclasses import replace

from edits import paths
from edits.layout_fields import FieldRef, vocabulary_of
from edits.layout_records import element_places
from edits.model import EditSpec
from edits.ops import SET_META
from edits.places import PREFIX
from edits.relabel import relabelled
from lab.cases.case import Case
from lab.cases.derived import recomputed
from lab.cases.evidence import changed_fields, find_two, meta_of, same_elsewhere, stored_fields
from lab.cases.forms import on_sealed_state
from lab.cases.seedplan import FACT_INDEX, markers_in


FIELDS = ("role", "owner", "source", "timestamp")


def build(plan, layout) -> EditSpec:
    """The first metadata field the layout declares (role, owner, source, timestamp) of A's fact record."""
    field = next((name for name in FIELDS if name in layout.metadata), None)
    return EditSpec("T8", plan.contexts["A"], plan.of("A")[FACT_INDEX].marker, meta_field=field, op=SET_META)


def alternatives(plan, layout) -> list[EditSpec]:
    """Each other declared metadata field of the same record, a variant of its own."""
    base = build(plan, layout)
    return [replace(base, meta_field=name) for name in FIELDS if name in layout.metadata and name != base.meta_field]


def rule(view, spec, before, after) -> list[str]:
    """One record's metadata field changed; its content and other metadata untouched."""
    old, new, p = find_two(view, (before, spec["target"], "before"), (after, spec["target"], "after"))
    if p:
        return p
    name = spec.get("meta_field")
    if old["payload"] != new["payload"]:
        p.append("the content changed")
    if view.whole(old) != view.whole(new):
        p.append("the record's context changed")
    if str(spec.get("variant") or "").startswith(PREFIX):
        p += _one_place(view, old, new, name, spec["variant"])
    elif name not in old.get("metadata", {}) or old["metadata"].get(name) == new.get("metadata", {}).get(name):
        p.append(f"metadata {name!r} did not change")
    else:
        p += _every_place(view, old, new, name)
    rest_old = {k: v for k, v in old.get("metadata", {}).items() if k != name}
    rest_new = {k: v for k, v in new.get("metadata", {}).items() if k != name}
    if rest_old != rest_new:
        p.append("other metadata changed too")
    return p + same_elsewhere(view, before, after, {spec["target"]})


def _declared(view, name: str) -> tuple[FieldRef, ...]:
    """Every place the layout (as its JSON) declares for metadata field ``name``, first the one read."""
    records = view.layout.get("records")
    if records:
        if name in (records.get("places") or {}):
            return element_places(f"records.places.{name}", records["places"][name])
        return (FieldRef(None, tuple(records["metadata"][name])),) if name in records.get("metadata", {}) else ()
    refs = view.meta_refs.get(name)
    if refs:
        return tuple(FieldRef(r["field"], tuple(r.get("path") or ()), r.get("format", "json"),
                              vocabulary_of(name, r.get("values"))) for r in refs)
    return (FieldRef(view.meta_fields[name]),) if name in view.meta_fields else ()


def _held(rec, ref: FieldRef):
    """What a record view holds at a place: a leaf of its element, or a path inside a stored field."""
    if ref.field is None:
        return rec.get("fields", {}).get(".".join(ref.path), paths.MISSING)
    return paths.read(stored_fields(rec).get(ref.field), ref.path, ref.format)


def _every_place(view, old, new, name: str) -> list[str]:
    """Each declared place of the field holds, after the edit, its own encoding of the new value."""
    refs = _declared(view, name)
    if len(refs) < 2 and not any(r.values for r in refs):
        return []  # one place: that it changed is the whole test
    held = [_held(old, r) for r in refs]
    want = relabelled(name, refs, held, old["metadata"][name], new["metadata"][name])
    return [f"{ref.name()} holds {got!r}, not {exp!r}: the relabel is not the same at every place"
            for ref, exp, got in zip(refs, want, (_held(new, r) for r in refs)) if got != exp]


def _one_place(view, old, new, name: str, variant: str) -> list[str]:
    """The field's value changed at the one declared place the variant names (to a value of its
    vocabulary, where it has one), nothing else."""
    ref = next((r for r in _declared(view, name) if PREFIX + r.name() == variant), None)
    if ref is None:
        return [f"{variant}: the layout declares no such place of metadata {name!r}"]
    before, after = _held(old, ref), _held(new, ref)
    p = []
    if before is paths.MISSING or after is paths.MISSING or before == after:
        p.append(f"metadata {name!r} did not change at {variant}")
    elif ref.values and after not in [v for _, v in ref.values]:
        p.append(f"{variant} holds {after!r}, none of its declared values {dict(ref.values)}")
    elif ref.field is not None and stored_fields(new)[ref.field] != \
            paths.write(stored_fields(old)[ref.field], ref.path, after, ref.format):
        p.append(f"field {ref.field!r} changed beyond {variant}")
    if others := changed_fields(old, new, ref.name() if ref.field is None else ref.field):
        p.append(f"field(s) {others} changed too: {variant} changes one place only")
    return p


def effect(spec, served) -> tuple[bool, str]:
    """The record's served metadata differs from what C1 served, or -- a relabelled field that is
    also the order key (a timestamp the read orders by) -- the order it is served in does."""
    name = spec.get("meta_field")
    now, then = meta_of(served.records, spec["target"]), meta_of(served.baseline, spec["target"])
    if now is None or then is None:
        return False, "the record's metadata was not served"
    if name in now or name in then:
        changed, detail = now.get(name) != then.get(name), f"served {name}: {then.get(name)!r} -> {now.get(name)!r}"
    else:
        changed, detail = now != then, f"served metadata {then!r} -> {now!r}"
    if changed:
        return True, detail
    moved = _order_moved(spec["target"], served)
    return (True, f"{detail}; {moved}") if moved else (False, detail)


def _order_moved(target: str, served) -> str | None:
    """How the served order changed since C1 (the relabelled record moved), or None: unchanged, or a
    store declared unordered (its served order means nothing)."""
    then = [m for rec in served.baseline for m in markers_in(str(rec.get("text", "")))]
    if not served.ordered or target not in then or target not in served.markers or served.markers == then:
        return None
    return (f"served order changed: {target} at position {then.index(target)} of {len(then)} in C1, "
            f"now {served.markers.index(target)} of {len(served.markers)}")


CASE = Case("T8", "metadata tamper", "edit", "A", "T6-T8",
            "one record's metadata field changed, content untouched", ("metadata", "record"), level="L3", op=SET_META,
            build=build, rule=recomputed(rule), state_rule=on_sealed_state(rule), effect=effect, alternatives=alternatives)
