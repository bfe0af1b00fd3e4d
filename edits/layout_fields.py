"""The pieces every store layout is built from: the error a bad field raises, where a payload
or a value sits (a field, a path inside it, its format), and the parsers of those pieces.
See :mod:`edits.layout` for the whole ``store:`` schema.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PAYLOAD_FORMATS = ("text", "json", "msgpack", "opaque")
PATH_FORMATS = ("json", "msgpack")
POSITION = "@position"
METADATA_NAMES = ("owner", "role", "source", "timestamp")
TEMPLATES = Path(__file__).with_name("templates")  # the committed structures of payload forms (edits.forms)
FORM_NAME = re.compile(r"^[a-z0-9][a-z0-9.-]{0,39}$")


class LayoutError(ValueError):
    """A layout field is missing or wrong; ``field`` names it, ``fix`` says how to mend it."""

    def __init__(self, field_name: str, message: str, fix: str):
        super().__init__(f"store.{field_name}: {message} (fix: {fix})")
        self.field = f"store.{field_name}"
        self.message = message
        self.fix = fix


@dataclass(frozen=True)
class PayloadForm:
    """``payload.forms[i]``: another form the SUT's reader accepts in the field of an opaque
    payload -- its ``format`` and the ``path`` of the record list in it, the columns of the
    row that say a row is in this form (``set``: column -> value), and the committed
    ``template`` its structure comes from (:mod:`edits.forms`)."""

    name: str
    format: str
    path: tuple[str, ...]
    set: tuple[tuple[str, Any], ...]
    template: str

    def to_json(self) -> dict[str, Any]:
        """Plain data for result rows."""
        return {"name": self.name, "format": self.format, "path": list(self.path),
                "set": dict(self.set), "template": self.template}


@dataclass(frozen=True)
class PayloadSpec:
    """Where the served text sits: a field, its format, and a path inside it; an opaque payload's
    other forms its reader accepts (``forms``)."""

    field: str
    format: str = "text"
    path: tuple[str, ...] = ()
    forms: tuple[PayloadForm, ...] = ()


@dataclass(frozen=True)
class FieldRef:
    """One place a value sits: a field (None: inside a list element), a path inside it, the
    format the path reads (json text or msgpack bytes; a parsed value is read as is), and the
    place's own vocabulary (``values``: word -> what this place stores for it; none: the word
    itself), so one metadata field can be encoded differently in each place that holds it."""

    field: str | None
    path: tuple[str, ...] = ()
    format: str = "json"
    values: tuple[tuple[str, Any], ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Plain data for result rows (``values`` only when declared)."""
        out: dict[str, Any] = {"field": self.field, "path": list(self.path), "format": self.format}
        return {**out, "values": dict(self.values)} if self.values else out

    def name(self) -> str:
        """A display name: the field, or the dotted path of an element-relative ref."""
        if self.field is None:
            return ".".join(self.path)
        return ".".join((self.field, *self.path))


def text_field(data: dict, key: str) -> str:
    """``store.<key>``, a non-empty string."""
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise LayoutError(key, "missing or not a string", f"set store.{key}")
    return value


def payload_spec(value: Any) -> PayloadSpec:
    """``store.payload``: a field name, or {field, format, path}."""
    if isinstance(value, str) and value:
        return PayloadSpec(field=value)
    if isinstance(value, dict):
        fmt = value.get("format", "text")
        if fmt not in PAYLOAD_FORMATS:
            raise LayoutError("payload.format", f"unknown format {fmt!r}", f"use one of {list(PAYLOAD_FORMATS)}")
        path = value.get("path", [])
        if isinstance(path, str):
            path = [path]
        if not isinstance(value.get("field"), str):
            raise LayoutError("payload.field", "missing", "name the field that holds the payload")
        forms = forms_of(value.get("forms"), fmt, value["field"])
        return PayloadSpec(field=value["field"], format=fmt, path=tuple(str(p) for p in path), forms=forms)
    raise LayoutError("payload", "missing", "name the field that holds the served text")


def forms_of(raw: Any, fmt: str, payload_field: str) -> tuple[PayloadForm, ...]:
    """``payload.forms``: the other forms an opaque payload's reader accepts (none when absent)."""
    if raw is None:
        return ()
    fix = ("e.g. forms: [{name: plain-msgpack, format: msgpack, path: [channel_values, messages], "
           "set: {type: msgpack}, template: langgraph-checkpoint-v4}]")
    if fmt != "opaque":
        raise LayoutError("payload.forms", f"a {fmt} payload is read as it is; forms are other forms of an "
                          "opaque payload", "drop forms:, or declare format: opaque")
    if not isinstance(raw, list) or not raw:
        raise LayoutError("payload.forms", "must be a non-empty list of forms", fix)
    out: list[PayloadForm] = []
    for i, item in enumerate(raw):
        at = f"payload.forms[{i}]"
        keys = {"name", "format", "path", "set", "template"}
        if not isinstance(item, dict) or set(item) != keys:
            got = sorted(item) if isinstance(item, dict) else type(item).__name__
            raise LayoutError(at, f"a form is exactly {{{', '.join(sorted(keys))}}}, found {got}", fix)
        name = item["name"]
        if not isinstance(name, str) or not FORM_NAME.match(name) or name in {f.name for f in out}:
            raise LayoutError(f"{at}.name", f"{name!r} is not a unique short name (a-z, 0-9, '.', '-')",
                              "e.g. name: plain-msgpack")
        if item["format"] not in PATH_FORMATS:
            raise LayoutError(f"{at}.format", f"unknown format {item['format']!r}", f"use one of {list(PATH_FORMATS)}")
        sets = item["set"]
        if not isinstance(sets, dict) or not sets or not all(
                isinstance(c, str) and c and c != payload_field and isinstance(v, (str, int))
                and not isinstance(v, bool) for c, v in sets.items()):
            raise LayoutError(f"{at}.set", "must map the columns that mark a row as in this form (not the payload "
                              "field) to a string or integer value", "e.g. set: {type: msgpack}")
        if not isinstance(item["template"], str) or not FORM_NAME.match(item["template"]) \
                or not (TEMPLATES / f"{item['template']}.json").is_file():
            known = sorted(p.stem for p in TEMPLATES.glob("*.json"))
            raise LayoutError(f"{at}.template", f"{item['template']!r} names no template of edits/templates/",
                              f"use one of {known}, or commit the form's structure there as data")
        path = item["path"] if isinstance(item["path"], list) else None
        if path is None or not all(isinstance(p, (str, int)) and not isinstance(p, bool) for p in path):
            raise LayoutError(f"{at}.path", "must be the path of the record list in the form (a list; [] = the "
                              "whole value)", "e.g. path: [channel_values, messages]")
        out.append(PayloadForm(name=name, format=item["format"], path=tuple(str(p) for p in path),
                               set=tuple(sorted(sets.items())), template=item["template"]))
    return tuple(out)


def path_of(where: str, value: Any) -> tuple[str, ...]:
    """A path inside a value: one key or index, or a list of them."""
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, list) or not value or not all(
            isinstance(p, (str, int)) and not isinstance(p, bool) for p in value):
        raise LayoutError(where, "must be a path: a list of keys and list indexes", "e.g. [2, content]")
    return tuple(str(p) for p in value)


def refs_of(where: str, value: Any) -> tuple[FieldRef, ...]:
    """A metadata entry: a field name, {field, path[, format][, values]}, or a list of those (first is read)."""
    items = value if isinstance(value, list) else [value]
    out = []
    for i, item in enumerate(items):
        at = f"{where}[{i}]" if isinstance(value, list) else where
        if isinstance(item, str) and item:
            out.append(FieldRef(item))
        elif isinstance(item, dict) and isinstance(item.get("field"), str) and \
                set(item) <= {"field", "path", "format", "values"}:
            fmt = item.get("format", "json")
            if fmt not in PATH_FORMATS:
                raise LayoutError(f"{at}.format", f"unknown format {fmt!r}", f"use one of {list(PATH_FORMATS)}")
            out.append(FieldRef(item["field"], path_of(f"{at}.path", item["path"]) if "path" in item else (), fmt,
                                vocabulary_of(f"{at}.values", item.get("values"))))
        else:
            raise LayoutError(at, "a metadata entry is a field name or {field, path[, values]}",
                              "e.g. role: role, or role: {field: data, path: [role]}")
    if not out:
        raise LayoutError(where, "names no field", "e.g. role: role")
    return same_words(where, tuple(out))


def vocabulary_of(where: str, raw: Any) -> tuple[tuple[str, Any], ...]:
    """``values:`` of one place: the lab's word for each value of the field (user, assistant,
    system for a role) -> what this place stores for it, one distinct string or integer each."""
    if raw is None:
        return ()
    fix = "e.g. values: {user: human, assistant: ai, system: system}"
    if not isinstance(raw, dict) or not raw:
        raise LayoutError(where, "must be a non-empty mapping of word: stored value", fix)
    for word, stored in raw.items():
        if not isinstance(word, str) or not word:
            raise LayoutError(where, f"word {word!r} is not a non-empty string", fix)
        if not isinstance(stored, (str, int)) or isinstance(stored, bool) or stored == "":
            raise LayoutError(f"{where}.{word}", f"{stored!r} is not a non-empty string or an integer", fix)
    if len({repr(v) for v in raw.values()}) != len(raw):
        raise LayoutError(where, "two words store the same value, so a stored value would read as either",
                          "give each word its own stored value")
    return tuple(raw.items())


def same_words(where: str, refs: tuple[FieldRef, ...]) -> tuple[FieldRef, ...]:
    """``refs`` unchanged when every place that declares ``values`` declares the same words (so each
    place can store whatever word the field is set to); a LayoutError naming the odd place otherwise."""
    declared = [(i, r) for i, r in enumerate(refs) if r.values]
    for i, ref in declared[1:]:
        first, words = sorted(w for w, _ in declared[0][1].values), sorted(w for w, _ in ref.values)
        if words != first:
            raise LayoutError(f"{where}[{i}].values", f"words {words} differ from {first} of the place before",
                              "declare the same words at every place of the field")
    return refs
