"""T1 content tamper: change the fact inside one existing record, in place.

On a sealed state the unit is the version row: its ciphertext is tampered in place (no token
to replace), and any change of what is served shows the edit; its ``form=<name>`` variant writes
the plaintext in another form the reader accepts, the fact replaced (:mod:`lab.cases.forms`). A
``place=`` variant (the token in one of several places of the record, :mod:`edits.places`)
changes exactly that place: the payload may then be unchanged, every other field must be.
"""

from __future__ import annotations

from edits import paths
from edits.model import EditSpec
from edits.ops import REPLACE
from edits.places import PREFIX, replace_at, token_places
from lab.cases import versions as v
from lab.cases.case import Case
from lab.cases.derived import recomputed
from lab.cases.evidence import (RecordView, changed_fields, find_marked, find_two, replaced, same_elsewhere,
                                stored_fields)
from lab.cases.forms import is_form, on_sealed_state
from lab.cases.seedplan import FACT_INDEX


def build(plan, layout) -> EditSpec:
    """The fact record of A, its fact replaced by the tampered one (sealed: no token, unless the
    layout declares another form its reader accepts, which the token is replaced in)."""
    fact = plan.of("A")[FACT_INDEX]
    if layout.payload.format == "opaque" and not layout.payload.forms:
        return EditSpec("T1", plan.contexts["A"], fact.marker, op=REPLACE)
    return EditSpec("T1", plan.contexts["A"], fact.marker, find=plan.facts["A"], replace=plan.tampered_fact, op=REPLACE)


def rule(view, spec, before, after) -> list[str]:
    """One record's payload changed (the fact token replaced), nothing else (a variant: one place)."""
    old, new, p = find_two(view, (before, spec["target"], "before"), (after, spec["target"], "after"))
    if p:
        return p
    if str(spec.get("variant") or "").startswith(PREFIX):
        return _one_place(old, new, spec) + same_elsewhere(view, before, after, {spec["target"]})
    if spec["replace"] not in new["payload"] or spec["find"] in new["payload"]:
        p.append("the fact token was not replaced in the payload")
    if new["payload"] != old["payload"].replace(spec["find"], spec["replace"]):
        p.append("the payload changed beyond the fact token")
    if (view.whole(new), new.get("identity"), new.get("metadata")) != \
            (view.whole(old), old.get("identity"), old.get("metadata")):
        p.append("identity, context or metadata changed")
    fields_old, fields_new = old.get("fields", {}), new.get("fields", {})
    for name in sorted(set(fields_old) | set(fields_new)):
        if not replaced(fields_old.get(name), fields_new.get(name), spec["find"], spec["replace"]):
            p.append(f"field {name!r} changed beyond the fact token")
    return p + same_elsewhere(view, before, after, {spec["target"]})


def _one_place(old, new, spec) -> list[str]:
    """The fact token replaced at the one place the variant names, and nowhere else."""
    find, repl, name = spec["find"], spec["replace"], spec["variant"]
    was, now = stored_fields(old), stored_fields(new)
    place = next((pl for pl in token_places(was, find) if pl.name() == name), None)
    if place is None:
        return [f"{name}: no such place of the record holds the fact token before the edit"]
    p = []
    if now.get(place.field) != replace_at(was[place.field], place.path, find, repl):
        held, holds = (paths.read(f.get(place.field), place.path) for f in (was, now))
        if holds != held:
            p.append(f"{name} changed beyond the fact token")
        else:
            p.append(f"the fact token was not replaced at {name}")
            if now.get(place.field) != was[place.field]:
                p.append(f"field {place.field!r} changed elsewhere than {name}")
    if others := changed_fields(old, new, place.field):
        p.append(f"field(s) {others} changed too: {name} changes one place only")
    if new["payload"] not in (old["payload"], old["payload"].replace(find, repl)):
        p.append("the payload changed beyond the fact token")
    if (RecordView.whole(new), new.get("identity"), new.get("metadata")) != \
            (RecordView.whole(old), old.get("identity"), old.get("metadata")):
        p.append("identity, context or metadata changed")
    return p


def state_rule(view, spec, before, after) -> list[str]:
    """The current version row's payload tampered in place (same size); it stays current."""
    p: list[str] = []
    holder = find_marked(view, before, spec["target"], "before", p)
    if p:
        return p
    ctx = spec.get("context") or holder["context"]
    if holder["context"] != ctx:
        return [f"the target was written into {holder['context']!r}, not {ctx!r}"]
    old = v.current(before, ctx)
    new = v.same_key(after, old)
    p += v.payload_moved(view, old, new, None)
    if new is not None and v.current(after, ctx) is not new:
        p.append("the edited row is no longer the current version")
    return p + v.rows_elsewhere(view, before, after, {v.rkey(old)} if old else set())


def effect(spec, served) -> tuple[bool, str]:
    """The tampered fact is served (sealed: what is served differs from the untouched store's)."""
    if spec.get("unit") == "state" and not is_form(spec):
        was = [str(r.get("text", "")) for r in served.baseline]
        now = [str(r.get("text", "")) for r in served.records]
        return now != was, f"served texts differ from the untouched store's: {now != was}"
    there = spec["replace"] in served.text
    return there, f"tampered fact {spec['replace']} served: {there}"


CASE = Case("T1", "content tamper", "edit", "A", "T1-T5",
            "one record's payload changed (the fact token replaced), nothing else", level="L1", op=REPLACE,
            build=build, rule=recomputed(rule), state_rule=on_sealed_state(rule, state_rule), effect=effect)
