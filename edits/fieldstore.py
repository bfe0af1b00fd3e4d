"""The record operations (:mod:`edits.ops`) on stores whose records are rows of named fields under an id, made through
the store's own client (Qdrant points, LanceDB rows): one piece of logic for both.

A backend subclass reads the records and says how to express three calls in its client:
``_set`` (set some fields of one record), ``_remove`` (delete one record) and ``_upsert``
(write a whole record at an id, replacing any record there); ``_run`` makes a list of calls in
one session and returns them as text (the edit's statements). ``_context_of`` reads the lab's
context out of a stored one (``layout.context_pattern``). Everything else is here:

- replace: the token replaced in every field that holds it (a string, or the strings of a nested
  object; never the context or identity);
  where several fields (or paths inside one) hold it, each is a variant of its own
  (``place=<field>``, :mod:`edits.places`);
- delete (and rollback: the newest) removes the record; swap exchanges the order field of two
  records;
- forge upserts a copy of the template (its vector too) under a fresh id, marker replaced, with
  the context's next order value;
- transplant upserts the donor's fields and vector at the victim's id, keeping the victim's
  context, identity and order fields; set_meta sets one metadata field (one place: a metadata
  field is one payload field here, so no variant).
"""

from __future__ import annotations

import copy
from typing import Any

from edits.layout_fields import LayoutError
from edits.model import EditError, Record
from edits.places import PlaceVariants, places_in, replace_at
from edits.plan import EditorBase, Outcome, Plan
from edits.records import contains, replace_same_length
from edits.registry import Field
from edits.values import fresh_identity, next_order

Call = tuple[str, dict[str, Any]]


def _context_pattern(pattern: Any, store: dict) -> str:
    if not isinstance(pattern, str) or pattern.count("{context}") != 1:
        raise LayoutError("context_pattern", f"{pattern!r} must hold {{context}} exactly once", 'e.g. "/{context}"')
    return pattern


CONTEXT_PATTERN = Field("context_pattern", default="{context}", parse=_context_pattern)
"""``context_pattern``: how a stored context value holds the lab's context (``"/{context}"``: CrewAI's
scopes); a field of the backends built on this module."""


class FieldStoreEditor(PlaceVariants, EditorBase):
    """Shared hooks over ``_set``, ``_remove``, ``_upsert`` and ``_run`` (see the module)."""

    def _set(self, rec: Record, values: dict[str, Any]) -> Call:
        raise NotImplementedError

    def _remove(self, rec: Record) -> Call:
        raise NotImplementedError

    def _upsert(self, record_id: Any, fields: dict[str, Any], vector_of: Record) -> Call:
        """Write ``fields`` as the whole record ``record_id``, with the vector of ``vector_of``."""
        raise NotImplementedError

    def _run(self, calls: list[Call]) -> list[str]:
        raise NotImplementedError

    def _context_of(self, value: Any) -> str:
        """The lab's context in a stored context value, by ``layout.context_pattern`` (e.g. "/{context}")."""
        text = str(value)
        head, _, tail = self.layout.context_pattern.partition("{context}")
        if len(text) >= len(head) + len(tail) and text.startswith(head) and text.endswith(tail):
            return text[len(head):len(text) - len(tail)]
        return text  # outside the pattern: kept whole, never one of the lab's contexts

    def _kept(self) -> set[str]:
        """Fields that stay with a record's slot: context, identity, order."""
        return {self.layout.context, self.layout.order, *self.layout.identity}

    def _token_skip(self) -> set[str]:
        """The context and identity fields never count as a place of the token."""
        return {self.layout.context, *self.layout.identity}

    def _replace(self, p: Plan) -> Outcome:
        if p.spec.variant:
            new = self._variant_values(p.target, p.spec)
            return Outcome(self._run([self._set(p.target, new)]), [p.target.key()],
                           {"fields": sorted(new), "place": p.spec.variant})
        new = {k: replace_at(v, (), p.spec.find, p.spec.replace) for k, v in p.target.fields.items()
               if k not in self._token_skip() and places_in(v, p.spec.find)}
        if self.layout.payload.field not in new:
            raise EditError(f"{p.spec.find!r} is not in the payload field {self.layout.payload.field!r}")
        return Outcome(self._run([self._set(p.target, new)]), [p.target.key()], {"fields": sorted(new)})

    def _delete(self, p: Plan) -> Outcome:
        return Outcome(self._run([self._remove(p.target)]), [p.target.key()])

    def _swap(self, p: Plan) -> Outcome:
        a, b, order = p.target, p.other, self.layout.order
        stmts = self._run([self._set(a, {order: b.fields.get(order)}), self._set(b, {order: a.fields.get(order)})])
        return Outcome(stmts, [a.key(), b.key()], {"swapped": [order]})

    def _forge(self, p: Plan) -> Outcome:
        new_id = fresh_identity([r.locator["id"] for r in p.records])
        fields = {k: replace_same_length(v, p.spec.find, p.spec.replace) if contains(v, p.spec.find) else v
                  for k, v in copy.deepcopy(p.target.fields).items()}
        fields[self.layout.order] = next_order(r.order for r in p.in_context(p.target.context))
        for name in self.layout.identity:
            fields[name] = new_id
        stmts = self._run([self._upsert(new_id, fields, p.target)])
        return Outcome(stmts, [str(new_id)], {"template": p.target.key(), "new": str(new_id)})

    def _transplant(self, p: Plan) -> Outcome:
        fields = copy.deepcopy(p.other.fields)
        for name in self._kept():
            if name in p.target.fields:
                fields[name] = p.target.fields[name]
        stmts = self._run([self._upsert(p.target.locator["id"], fields, p.other)])
        return Outcome(stmts, [p.target.key()], {"donor": p.other.key(), "kept": sorted(self._kept())})

    def _set_meta(self, p: Plan) -> Outcome:
        name = self.layout.metadata[p.spec.meta_field]
        return Outcome(self._run([self._set(p.target, {name: p.meta_value})]), [p.target.key()],
                       {"field": name, "old": p.target.metadata.get(p.spec.meta_field), "new": p.meta_value})
