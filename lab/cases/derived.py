"""C3 of a ``derived=recomputed`` variant (:mod:`edits.derived`): the case's default edit made, and
every derived value the store declares (``store.derived``: unkeyed digests, hash chains) consistent
again, as a keyless adversary who writes the store would leave it.

:func:`recomputed` wraps a case's C3 rule: a spec of another variant goes to the rule unchanged.
For a ``derived=recomputed`` spec it runs the rule as for the default edit, on the records with the
derived columns of their own table left out (the recompute rewrites them: a chain's links and
digests after the edited row, its renumbered order), and adds a problem for every context whose
declared derived values do not all match their declaration -- after the edit (the recompute did
not land) and before it (the declaration does not describe the store). The check it reads is the
editor's, saved with each record (``Record.derived``: rows checked and rows wrong, per value).
"""

from __future__ import annotations

from functools import wraps
from typing import Any, Callable

from edits.derived_layout import RECOMPUTED
from lab.cases.evidence import Rec, RecordView

Rule = Callable[[RecordView, dict[str, Any], list[Rec], list[Rec]], list[str]]


def recomputed(rule: Rule) -> Rule:
    """``rule``, and for a ``derived=recomputed`` spec its check as described in the module."""
    @wraps(rule)
    def judged(view: RecordView, spec: dict[str, Any], before: list[Rec], after: list[Rec]) -> list[str]:
        if spec.get("variant") != RECOMPUTED:
            return rule(view, spec, before, after)
        decls = (view.layout.get("options") or {}).get("derived") or []
        if not decls:
            return [f"{RECOMPUTED}: the layout declares no derived values (store.derived)"]
        own = _own_columns(decls, view.layout.get("table"))
        base = {k: v for k, v in spec.items() if k != "variant"}
        return (rule(view, base, _without(before, own), _without(after, own))
                + consistent(before, "before the edit: store.derived does not describe the store")
                + consistent(after, "after the edit: the recompute did not land"))
    return judged


def consistent(recs: list[Rec], when: str) -> list[str]:
    """A problem per context whose records carry no derived-value check, or one with a wrong row."""
    out, seen = [], set()
    for rec in recs:
        ctx = rec.get("context")
        if ctx in seen:
            continue
        seen.add(ctx)
        status = rec.get("derived")
        if not status:
            out.append(f"context {ctx!r}: no derived value checked ({when})")
            continue
        wrong = [f"{name} {s['wrong']} of {s['checked']}" for name, s in sorted(status.items()) if s.get("wrong")]
        if wrong:
            out.append(f"context {ctx!r}: derived values wrong ({', '.join(wrong)} rows), {when}")
    return out


def _own_columns(decls: list[dict[str, Any]], table: str | None) -> set[str]:
    """The records' own columns a recompute may rewrite: each declared value of their table, a
    chain's link, and its order when renumbered."""
    out: set[str] = set()
    for d in decls:
        if d.get("table") == table:
            chain = d.get("chain") or {}
            out |= {d["field"], *([chain["link"]] if chain else []), *([chain["order"]] if chain.get("renumber") else [])}
    return out


def _without(recs: list[Rec], columns: set[str]) -> list[Rec]:
    return [{**r, "fields": {k: v for k, v in r.get("fields", {}).items() if k not in columns}} for r in recs]
