"""The places of a record that hold a value, and the ``replace``/``set_meta`` variants that edit one place alone.

``replace`` by default replaces the fact token in every place of the record at once; ``set_meta`` sets a metadata
field in every place the layout declares for it (``metadata: {role: [{field: data, path: [role]},
role]}``). A SUT that checks one copy and serves another is only measured on the copy it serves
when each place can be edited on its own, so where a record holds the value in more than one
place an editor offers one variant per place (``EditSpec.variant``), named ``place=<where>``:

- ``replace``: a field (a column, a hash field, a top-level key of a JSON line) that holds the token is
  one place, ``place=<field>``; a JSON field that holds it at several paths is one place per
  path, ``place=<field>.<path>`` (list indexes as digits);
- ``set_meta``: each declared place of the field, ``place=<field>`` or ``place=<field>.<path>``.

One place only is the default expression: no variant is offered then.

Example::

    >>> fields = {"body": "FACT-A1 here", "doc": '{"text": "FACT-A1", "copy": ["FACT-A1"]}', "n": 3}
    >>> [p.name() for p in token_places(fields, "FACT-A1")]
    ['place=body', 'place=doc.text', 'place=doc.copy.0']
    >>> replace_at(fields["doc"], ("copy", "0"), "FACT-A1", "FACT-Z9")
    '{"text": "FACT-A1", "copy": ["FACT-Z9"]}'
    >>> meta_variants((FieldRef("data", ("role",)), FieldRef("role")))
    ['place=data.role', 'place=role']
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable

from edits import paths
from edits.layout import StoreLayout
from edits.layout_fields import FieldRef
from edits.model import EditError, EditSpec, Record
from edits.ops import REPLACE, SET_META
from edits.records import contains, find_one, replace_same_length

PREFIX = "place="


@dataclass(frozen=True)
class Place:
    """One place of a record that holds a value: a field, and a path inside its JSON (or none)."""

    field: str
    path: tuple[str, ...] = ()

    def name(self) -> str:
        """The variant name: ``place=<field>`` or ``place=<field>.<path>``."""
        return PREFIX + ".".join((self.field, *self.path))


def _parsed(value: Any) -> Any:
    """A JSON text or bytes value parsed to a container, a container as it is, else None."""
    if isinstance(value, (dict, list)):
        return value
    if isinstance(value, (str, bytes, bytearray)):
        try:
            found = json.loads(value)
        except (ValueError, UnicodeDecodeError):
            return None
        return found if isinstance(found, (dict, list)) else None
    return None


def _string_paths(value: Any, find: str, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """The paths of the strings inside a parsed structure that hold ``find``, in document order."""
    if isinstance(value, str):
        return [prefix] if find in value else []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    return [p for key, item in items for p in _string_paths(item, find, (*prefix, str(key)))]


def _count(value: Any, find: str) -> int:
    raw = json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list)) else value
    return raw.count(find.encode() if isinstance(raw, (bytes, bytearray)) else find)


def places_in(value: Any, find: str) -> list[tuple[str, ...]]:
    """The paths inside one stored value that hold ``find``: ``[()]`` when the value holds it as a
    whole (plain text or bytes, or JSON holding it at one path only, or elsewhere than in strings),
    one path per string when its JSON holds it in several; ``[]`` when it does not hold it."""
    parsed = _parsed(value)
    if parsed is None:
        return [()] if contains(value, find) else []
    found = _string_paths(parsed, find)
    if len(found) < 2 or sum(paths.get_path(parsed, p).count(find) for p in found) != _count(value, find):
        return [()] if found or contains(value, find) else []
    return found


def token_places(fields: dict[str, Any], find: str, skip: Iterable[str] = ()) -> list[Place]:
    """Every place of a record's ``fields`` (but ``skip``) that holds the token ``find``."""
    skipped = set(skip)
    return [Place(name, path) for name, value in fields.items() if name not in skipped
            for path in places_in(value, find)]


def replace_at(value: Any, path: tuple[str, ...], find: str, replace: str) -> Any:
    """``value`` with ``find`` replaced by ``replace`` (same length) only at ``path``: in the raw
    characters or bytes of that JSON value, so the rest keeps its exact bytes; the whole value
    for an empty path."""
    if not path:
        return _replaced_everywhere(value, find, replace) if isinstance(value, (dict, list)) else \
            replace_same_length(value, find, replace)
    if isinstance(value, (bytes, bytearray)):
        return type(value)(replace_at(value.decode("utf-8"), path, find, replace).encode("utf-8"))
    if isinstance(value, str):
        start, end = paths.json_span(value, path)
        return value[:start] + replace_same_length(value[start:end], find, replace) + value[end:]
    return paths.set_path(value, path, replace_same_length(paths.get_path(value, path), find, replace))


def _replaced_everywhere(value: Any, find: str, replace: str) -> Any:
    """A parsed structure with ``find`` replaced in every key and string (as in its raw text)."""
    if isinstance(value, str):
        return value.replace(find, replace)
    if isinstance(value, dict):
        return {_replaced_everywhere(k, find, replace): _replaced_everywhere(v, find, replace)
                for k, v in value.items()}
    if isinstance(value, list):
        return [_replaced_everywhere(v, find, replace) for v in value]
    return value


def chosen(places: list[Place], variant: str | None) -> list[Place]:
    """The places a variant edits: all for the default (None), else the one it names."""
    if variant is None:
        return places
    named = [p for p in places if p.name() == variant]
    if not named:
        raise EditError(f"variant {variant!r} names no place that holds the value "
                        f"(places: {[p.name() for p in places]})")
    return named


def meta_variants(refs: tuple[FieldRef, ...]) -> list[str]:
    """The ``set_meta`` variants of a field declared at ``refs``: one per place, none when there is one."""
    return [PREFIX + r.name() for r in refs] if len(refs) > 1 else []


def meta_refs_of(refs: tuple[FieldRef, ...], variant: str | None) -> tuple[FieldRef, ...]:
    """The declared places a ``set_meta`` edit writes: all for the default (None), else the one named."""
    if variant is None:
        return refs
    named = tuple(r for r in refs if PREFIX + r.name() == variant)
    if not named:
        raise EditError(f"variant {variant!r} names no declared place of the field "
                        f"(places: {[PREFIX + r.name() for r in refs]})")
    return named


class PlaceVariants:
    """``variants`` of a record editor for ``replace`` and ``set_meta``, and the places a variant edits.

    A backend names the fields ``replace`` never rewrites (``_token_skip``: its context and identity) and
    where a metadata field sits (``_meta_places``: the layout's declared places, else its field).
    Records that are list elements (``records:``) and sealed states offer none here.
    """

    layout: StoreLayout
    unordered_fields = False  # True: the store keeps no order of a record's fields; variants by field name

    def _token_skip(self) -> set[str]:
        """Fields that never count as a place of the token."""
        return set()

    def _meta_places(self, name: str) -> tuple[FieldRef, ...]:
        """Every declared place of metadata field ``name``."""
        return self.layout.meta_refs.get(name) or (FieldRef(self.layout.metadata[name]),)

    def variants(self, spec: EditSpec, records: list[Record]) -> list[str]:
        """A replace: one ``place=`` per place of the target that holds the token; a set_meta: one per
        declared place of the field; none where there is one place only."""
        if spec.unit != "record" or self.layout.records is not None:
            return []
        if spec.op == REPLACE and spec.find:
            try:
                target = find_one(records, spec.target)
            except EditError:
                return []
            places = token_places(target.fields, spec.find, self._token_skip())
            if self.unordered_fields:
                places.sort(key=lambda place: place.field)
            return [p.name() for p in places] if len(places) > 1 else []
        if spec.op == SET_META and spec.meta_field in self.layout.metadata:
            return meta_variants(self._meta_places(spec.meta_field))
        return []

    def _variant_values(self, target: Record, spec: EditSpec) -> dict[str, Any]:
        """The new values of the fields a ``replace`` variant edits: the token replaced at its one place."""
        values: dict[str, Any] = {}
        for place in chosen(token_places(target.fields, spec.find, self._token_skip()), spec.variant):
            current = values.get(place.field, target.fields[place.field])
            values[place.field] = replace_at(current, place.path, spec.find, spec.replace)
        return values
