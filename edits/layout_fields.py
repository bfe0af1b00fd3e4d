"""The pieces every store layout is built from: the error a bad field raises, where a payload
or a value sits (a field, a path inside it, its format), and the parsers of those pieces.
See :mod:`edits.layout` for the whole ``store:`` schema.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

PAYLOAD_FORMATS = ("text", "json", "msgpack", "opaque")
PATH_FORMATS = ("json", "msgpack")
POSITION = "@position"
METADATA_NAMES = ("owner", "role", "source", "timestamp")


class LayoutError(ValueError):
    """A layout field is missing or wrong; ``field`` names it, ``fix`` says how to mend it."""

    def __init__(self, field_name: str, message: str, fix: str):
        super().__init__(f"store.{field_name}: {message} (fix: {fix})")
        self.field = f"store.{field_name}"
        self.message = message
        self.fix = fix


@dataclass(frozen=True)
class PayloadSpec:
    """Where the served text sits: a field, its format, and a path inside it."""

    field: str
    format: str = "text"
    path: tuple[str, ...] = ()


@dataclass(frozen=True)
class FieldRef:
    """One place a value sits: a field (None: inside a list element), a path inside it, and
    the format the path reads (json text or msgpack bytes; a parsed value is read as is)."""

    field: str | None
    path: tuple[str, ...] = ()
    format: str = "json"

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
        return PayloadSpec(field=value["field"], format=fmt, path=tuple(str(p) for p in path))
    raise LayoutError("payload", "missing", "name the field that holds the served text")


def path_of(where: str, value: Any) -> tuple[str, ...]:
    """A path inside a value: one key or index, or a list of them."""
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, list) or not value or not all(
            isinstance(p, (str, int)) and not isinstance(p, bool) for p in value):
        raise LayoutError(where, "must be a path: a list of keys and list indexes", "e.g. [2, content]")
    return tuple(str(p) for p in value)


def refs_of(where: str, value: Any) -> tuple[FieldRef, ...]:
    """A metadata entry: a field name, {field, path[, format]}, or a list of those (first is read)."""
    items = value if isinstance(value, list) else [value]
    out = []
    for i, item in enumerate(items):
        at = f"{where}[{i}]" if isinstance(value, list) else where
        if isinstance(item, str) and item:
            out.append(FieldRef(item))
        elif isinstance(item, dict) and isinstance(item.get("field"), str) and set(item) <= {"field", "path", "format"}:
            fmt = item.get("format", "json")
            if fmt not in PATH_FORMATS:
                raise LayoutError(f"{at}.format", f"unknown format {fmt!r}", f"use one of {list(PATH_FORMATS)}")
            out.append(FieldRef(item["field"], path_of(f"{at}.path", item["path"]) if "path" in item else (), fmt))
        else:
            raise LayoutError(at, "a metadata entry is a field name or {field, path}",
                              "e.g. role: role, or role: {field: data, path: [role]}")
    if not out:
        raise LayoutError(where, "names no field", "e.g. role: role")
    return tuple(out)
