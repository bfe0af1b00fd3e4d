"""The ``form=<name>`` variants of a case on a sealed state: the context's plaintext written in
another form the SUT's reader accepts (``payload.forms``, see :mod:`edits.forms`).

The adversary cannot read the ciphertext, so what it writes is the context's records as the
lab seeded them (``EditSpec.seeded``), with the case's edit made on them. C3 of such a variant:

- the current version row of the target's context is now in the form (its records are read
  as list elements, ``locator.form`` naming it), no sealed payload is left in it, and no
  other version row changed;
- its records are exactly those the case intends: the case's own list-element rule holds
  from the *genuine* plaintext (the seeded records in that form,
  :func:`edits.forms.genuine_view`) to the records the row holds now -- once the row is
  plain, the rule of a plain list row applies to it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from edits import forms
from edits.model import EditError, EditSpec
from lab.cases import versions as v
from lab.cases.evidence import Rec, RecordView, find_marked

Rule = Callable[..., list[str]]


def is_form(spec: dict[str, Any]) -> bool:
    """True when ``spec`` (``EditSpec.to_json()``) is a ``form=<name>`` variant."""
    return str(spec.get("variant") or "").startswith(forms.PREFIX)


def seeded_texts(plan, context: str) -> tuple[str, ...]:
    """The texts the lab seeded into ``context``, in write order (what a form variant authors)."""
    label = next((k for k, c in plan.contexts.items() if c == context), None)
    return tuple(r.text for r in plan.of(label)) if label else ()


def authoring(case, spec: EditSpec, plan, layout) -> EditSpec:
    """``spec`` on a layout that declares forms: it carries the seeded texts of its context; a case
    that edits one record inside the payload (needs ``record``: T3, T4, T5, T8) has no expression
    on the sealed form, so its own spec is the first form's variant (the editor offers the others)."""
    spec = replace(spec, seeded=seeded_texts(plan, spec.context))
    if "record" in case.needs and spec.unit == "state" and spec.variant is None:
        spec = replace(spec, variant=forms.PREFIX + layout.payload.forms[0].name)
    return spec


def on_sealed_state(element_rule: Rule, sealed_rule: Rule | None = None) -> Rule:
    """A case's rule for whole version rows (``unit: state``): its form variants checked by
    :func:`form_rule` over ``element_rule``, its default expression by ``sealed_rule``."""
    def rule(view: RecordView, spec: dict[str, Any], before: list[Rec], after: list[Rec]) -> list[str]:
        if is_form(spec):
            return form_rule(element_rule, view, spec, before, after)
        if sealed_rule is None:
            return [f"{spec['case']}: a record inside a sealed payload has no default expression; "
                    "only its form variants write one"]
        return sealed_rule(view, spec, before, after)
    return rule


def form_rule(element_rule: Rule, view: RecordView, spec: dict[str, Any], before: list[Rec],
              after: list[Rec]) -> list[str]:
    """C3 of a form variant (see the module)."""
    p: list[str] = []
    name = str(spec["variant"])[len(forms.PREFIX):]
    holder = find_marked(view, before, spec["target"], "before", p)
    if p:
        return p
    ctx = spec.get("context") or holder["context"]
    old = v.current(before, ctx)
    if old is None or holder["context"] != ctx:
        return [f"the target's version row is not in context {ctx!r}"]
    in_form = [r for r in after if (r.get("locator") or {}).get("form")]
    rows_after = [r for r in after if r not in in_form]
    held = [r for r in in_form if r["context"] == ctx and r["locator"].get("version") == old["locator"].get("version")]
    if len(held) != len(in_form):
        p.append("records in a form outside the current version row of the target's context")
    if any(r["locator"]["form"] != name for r in in_form):
        p.append(f"a row is in another form than {name}")
    if v.same_key(rows_after, old) is not None:
        p.append("the current version row still holds its sealed payload")
    if not held:
        p.append(f"the current version row of {ctx!r} holds no records in form {name}")
    p += v.rows_elsewhere(view, before, rows_after, {v.rkey(old)})
    try:
        genuine = forms.genuine_view(view.layout, name, ctx, list(spec.get("seeded") or []))
    except EditError as exc:
        return p + [str(exc)]
    if not genuine:
        return p + ["the spec carries no seeded texts: no plaintext to author"]
    return p + element_rule(view, {**spec, "unit": "record"}, genuine, held)
