"""T8 metadata tamper: change a record's owner, role, source or timestamp; content untouched.

By default every place the layout declares for the field is set at once; a ``place=`` variant
(:mod:`edits.places`) sets one of them, and exactly that place must change: the metadata the
lab reads (the first declared place) may then be unchanged.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from edits import paths
from edits.layout_fields import FieldRef
from edits.model import EditSpec
from edits.places import PREFIX
from lab.cases.case import Case
from lab.cases.derived import recomputed
from lab.cases.evidence import changed_fields, find_two, same_elsewhere, stored_fields
from lab.cases.forms import on_sealed_state
from lab.cases.seedplan import FACT_INDEX, markers_in


FIELDS = ("role", "owner", "source", "timestamp")


def build(plan, layout) -> EditSpec:
    """The first metadata field the layout declares (role, owner, source, timestamp) of A's fact record."""
    field = next((name for name in FIELDS if name in layout.metadata), None)
    return EditSpec("T8", plan.contexts["A"], plan.of("A")[FACT_INDEX].marker, meta_field=field)


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
    if str(spec.get("variant") or "").startswith(PREFIX):
        p += _one_place(view, old, new, name, spec["variant"])
    elif name not in old.get("metadata", {}) or old["metadata"].get(name) == new.get("metadata", {}).get(name):
        p.append(f"metadata {name!r} did not change")
    rest_old = {k: v for k, v in old.get("metadata", {}).items() if k != name}
    rest_new = {k: v for k, v in new.get("metadata", {}).items() if k != name}
    if rest_old != rest_new:
        p.append("other metadata changed too")
    return p + same_elsewhere(view, before, after, {spec["target"]})


def _one_place(view, old, new, name: str, variant: str) -> list[str]:
    """The field's value changed at the one declared place the variant names, nothing else."""
    declared = [FieldRef(r["field"], tuple(r.get("path") or ()), r.get("format", "json"))
                for r in view.meta_refs.get(name, [])]
    ref = next((r for r in declared if PREFIX + r.name() == variant), None)
    if ref is None:
        return [f"{variant}: the layout declares no such place of metadata {name!r}"]
    was, now = stored_fields(old), stored_fields(new)
    before, after = (paths.read(f.get(ref.field), ref.path, ref.format) for f in (was, now))
    p = []
    if before is paths.MISSING or after is paths.MISSING or before == after:
        p.append(f"metadata {name!r} did not change at {variant}")
    elif now[ref.field] != paths.write(was[ref.field], ref.path, after, ref.format):
        p.append(f"field {ref.field!r} changed beyond {variant}")
    if others := changed_fields(old, new, ref.field):
        p.append(f"field(s) {others} changed too: {variant} changes one place only")
    return p


def effect(spec, served) -> tuple[bool, str]:
    """The record's served metadata differs from what C1 served."""
    name = spec.get("meta_field")
    now, then = _meta_of(served.records, spec["target"]), _meta_of(served.baseline, spec["target"])
    if now is None or then is None:
        return False, "the record's metadata was not served"
    if name in now or name in then:
        changed = now.get(name) != then.get(name)
        return changed, f"served {name}: {then.get(name)!r} -> {now.get(name)!r}"
    return now != then, f"served metadata {then!r} -> {now!r}"


def _meta_of(records: list[dict[str, Any]], marker: str) -> dict[str, Any] | None:
    for rec in records:
        if marker in markers_in(str(rec.get("text", ""))):
            meta = rec.get("meta")
            return meta if isinstance(meta, dict) else {}
    return None


CASE = Case("T8", "metadata tamper", "edit", "A", "T6-T8",
            "one record's metadata field changed, content untouched", ("metadata", "record"), level="L3",
            build=build, rule=recomputed(rule), state_rule=on_sealed_state(rule), effect=effect, alternatives=alternatives)
