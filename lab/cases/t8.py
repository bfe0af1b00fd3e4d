"""T8 metadata tamper: change a record's owner, role, source or timestamp; content untouched."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from edits.model import EditSpec
from lab.cases.case import Case
from lab.cases.evidence import find_two, same_elsewhere
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
    if name not in old.get("metadata", {}) or old["metadata"].get(name) == new.get("metadata", {}).get(name):
        p.append(f"metadata {name!r} did not change")
    rest_old = {k: v for k, v in old.get("metadata", {}).items() if k != name}
    rest_new = {k: v for k, v in new.get("metadata", {}).items() if k != name}
    if rest_old != rest_new:
        p.append("other metadata changed too")
    return p + same_elsewhere(view, before, after, {spec["target"]})


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
            build=build, rule=rule, state_rule=on_sealed_state(rule), effect=effect, alternatives=alternatives)
