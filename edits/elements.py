"""The edits of one element of a stored list, shared by every editor of list-element records.

Records that are the elements of a list (``records:``, :mod:`edits.layout_records`) are edited
the same way whatever holds the list -- a version row of a SQL table (:mod:`edits.lists`), a
RedisJSON document, a JSON file per context (:mod:`edits.jsonfiles`): a replace replaces the token
in the target element's strings; a delete removes the element; a swap exchanges two elements
(``swap=contents``: their texts); a forge appends a copy of the template element with fresh identity
values and the marker replaced; a transplant puts a copy of the donor element in the victim's place
with the victim's identity values; a set_meta relabels a metadata field at its places inside the
element (:mod:`edits.relabel`).

:class:`ElementEdits` holds those hooks; an editor supplies where the list is: ``_edit_list(record,
change, variant)`` lets ``change(items)`` edit the list holding ``record`` and stores it,
``_element_of(record)`` reads one element, ``_all_elements()`` every element (for fresh identity
values), ``_list_name()`` and ``_where(record)`` name the list and a record's holder in words.

Example::

    >>> from edits.layout_records import ElementRecords
    >>> spec = ElementRecords(text=("text",), version=None, metadata={"role": ("role",)})
    >>> element = {"role": "user", "text": "mA1-q note"}
    >>> element_metadata(spec, element)
    {'role': 'user'}
    >>> set_element_meta(spec, element, "role", "user", "assistant")
    ({'role': 'assistant', 'text': 'mA1-q note'}, {'role': 'assistant'})
"""

from __future__ import annotations

import copy
from typing import Any, Callable

from edits import msgpack, paths
from edits.model import EditError, Record
from edits.places import meta_refs_of
from edits.plan import SWAP_CONTENTS, Outcome, Plan
from edits.relabel import decode, place_value
from edits.values import fresh_identity


class ElementEdits:
    """The operation hooks of :class:`edits.plan.EditorBase` on list elements (see the module)."""

    spec: Any  # the layout's ElementRecords

    def _edit_list(self, record: Record, change: Callable[[list], str],
                   variant: str | None = None) -> tuple[list[str], dict[str, Any]]:
        raise NotImplementedError  # pragma: no cover - per holder of the list

    def _element_of(self, record: Record) -> Any:
        raise NotImplementedError  # pragma: no cover

    def _all_elements(self) -> list[Any]:
        raise NotImplementedError  # pragma: no cover

    def _list_name(self) -> str:
        raise NotImplementedError  # pragma: no cover

    def _where(self, record: Record) -> str:
        """Where a record's list is, for an operation's words (a version row, a file)."""
        return record.context

    def _replace(self, p: Plan) -> Outcome:
        i = p.target.order

        def change(items):
            before = items[i]
            items[i] = replace_strings(items[i], p.spec.find, p.spec.replace)
            if items[i] == before:
                raise EditError(f"{p.spec.op}: {p.spec.find!r} is in no string of the element")
            return f"replace {p.spec.find} by {p.spec.replace} in element {i} of {self._list_name()}"
        stmts, detail = self._edit_list(p.target, change)
        return Outcome(stmts, [p.target.key()], detail)

    def _delete(self, p: Plan) -> Outcome:
        i = p.target.order

        def change(items):
            del items[i]
            return f"remove element {i} of {self._list_name()}"
        stmts, detail = self._edit_list(p.target, change, p.spec.variant)
        return Outcome(stmts, [p.target.key()], detail)

    def _swap(self, p: Plan) -> Outcome:
        i, j = p.target.order, p.other.order
        text = self.spec.text

        def change(items):
            if p.spec.variant == SWAP_CONTENTS:
                a, b = paths.get_path(items[i], text), paths.get_path(items[j], text)
                items[i], items[j] = paths.set_path(items[i], text, b), paths.set_path(items[j], text, a)
                return f"exchange the {'.'.join(text)} of elements {i} and {j} of {self._list_name()}"
            items[i], items[j] = items[j], items[i]
            return f"exchange elements {i} and {j} of {self._list_name()}"
        stmts, detail = self._edit_list(p.target, change)
        return Outcome(stmts, [p.target.key(), p.other.key()], detail)

    def _forge(self, p: Plan) -> Outcome:
        fresh = {}
        for path in self.spec.identity:
            fresh[path] = fresh_identity([plain(paths.get_path(e, path)) for e in self._all_elements()])
        key = "|".join(str(v) for v in fresh.values()) or f"{p.target.context}|{len(p.in_context(p.target.context))}"

        def change(items):
            new = replace_strings(items[p.target.order], p.spec.find, p.spec.replace)
            for path, value in fresh.items():
                new = paths.set_path(new, path, value)
            items.append(new)
            return f"append a copy of element {p.target.order} with fresh identity {key} to {self._list_name()}"
        stmts, detail = self._edit_list(p.target, change, p.spec.variant)
        return Outcome(stmts, [key], {**detail, "template": p.target.key(), "new": key})

    def _transplant(self, p: Plan) -> Outcome:
        donor, where = self._element_of(p.other), self._where(p.other)

        def change(items):
            new = copy.deepcopy(donor)
            for path in self.spec.identity:
                new = paths.set_path(new, path, paths.get_path(items[p.target.order], path))
            items[p.target.order] = new
            return f"copy element {p.other.order} of {where} over element {p.target.order}, keeping its identity"
        stmts, detail = self._edit_list(p.target, change)
        return Outcome(stmts, [p.target.key()], {**detail, "donor": p.other.key()})

    def _set_meta(self, p: Plan) -> Outcome:
        name, old = p.spec.meta_field, p.target.metadata.get(p.spec.meta_field)
        written: dict[str, Any] = {}

        def change(items):
            items[p.target.order], stored = set_element_meta(self.spec, items[p.target.order], name, old,
                                                             p.meta_value, p.spec.variant)
            written.update(stored)
            return setting(stored, f"element {p.target.order}")
        stmts, detail = self._edit_list(p.target, change)
        places = {"field": next(iter(written))} if len(written) == 1 else {"places": written}
        return Outcome(stmts, [p.target.key()], {**detail, **places, "old": old, "new": p.meta_value})


def element_record(spec, context: str, index: int, element: Any, locator: dict[str, Any]) -> Record:
    """Element ``index`` of a context's list as a Record: its text, identity (else the context and the
    index), metadata, every leaf as a field; ordered by its index."""
    text = paths.get_path(element, spec.text)
    identity = tuple(plain(paths.get_path(element, p)) for p in spec.identity)
    return Record(context=context, identity=identity or (context, index), order=index,
                  payload="" if text in (None, paths.MISSING) else str(text),
                  metadata=element_metadata(spec, element),
                  fields={k: plain(v) for k, v in paths.flatten(element).items()}, locator=locator)


def element_metadata(spec, element: Any) -> dict[str, Any]:
    """An element's metadata by name: the word its first place of each field reads (:mod:`edits.relabel`)."""
    return {n: decode(spec.places_of(n)[0], plain(paths.get_path(element, p))) for n, p in spec.metadata.items()}


def setting(stored: dict[str, Any], what: str) -> str:
    """What a set_meta did: "set <place> of <what> to <value>", or each place's value in turn."""
    if len(stored) == 1:
        ((place, value),) = stored.items()
        return f"set {place} of {what} to {value!r}"
    return f"set {', '.join(f'{k} to {v!r}' for k, v in stored.items())} of {what}"


def set_element_meta(spec, element: Any, name: str, old: Any, new: Any, variant: str | None = None) -> tuple[Any, dict]:
    """``element`` with metadata ``name`` relabelled ``old`` -> ``new`` at every place of the field (a
    ``place=`` variant: the one it names), each in its own encoding; and what each place now stores."""
    stored = {}
    for ref in meta_refs_of(spec.places_of(name), variant):
        value = place_value(name, ref, plain(paths.get_path(element, ref.path)), old, new)
        element = paths.set_path(element, ref.path, value)
        stored[".".join(ref.path)] = value
    return element, stored


def plain(value: Any) -> Any:
    """A value as plain data (a raw extension as {ext, hex}; MISSING as None)."""
    if value is paths.MISSING:
        return None
    if isinstance(value, msgpack.Ext):
        return {"ext": value.code, "hex": value.data.hex()} if not value.nested else plain(value.value)
    return value


def replace_strings(value: Any, find: str, replace: str) -> Any:
    """A deep copy of ``value`` with ``find`` replaced in every string (keys kept)."""
    return paths.map_strings(value, lambda text: text.replace(find, replace))
