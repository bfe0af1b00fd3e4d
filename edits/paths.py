"""Paths inside stored values: read and write a value at a path in JSON text, MessagePack
bytes or an already parsed structure, changing nothing else.

A path is a tuple of steps: map keys, and list indexes written as digits. A
MessagePack extension whose data is itself MessagePack is stepped through (its
decoded value), so ``("2", "content")`` reaches ``content`` in
``Ext(5, value=[module, class, {"content": ...}, method])``.

Writing into JSON *text* replaces only the characters of the value at the path,
so the rest of the text keeps its exact bytes (separators, key order, escapes).
Writing into MessagePack re-encodes the blob, and only when it round-trips byte
for byte (:func:`edits.msgpack.roundtrips`).

Example::

    >>> set_in_json('{"role": "user", "content": "hi"}', ("role",), "assistant")
    '{"role": "assistant", "content": "hi"}'
    >>> get_path({"a": [{"b": 1}]}, ("a", "0", "b"))
    1
    >>> flatten({"a": [1, {"b": None}]})
    {'a.0': 1, 'a.1.b': None}
"""

from __future__ import annotations

import copy
import json
from json.decoder import scanstring
from typing import Any, Callable

from edits import msgpack
from edits.model import EditError

MISSING = object()
_DECODER = json.JSONDecoder()
_WS = " \t\r\n"


def step_into(value: Any) -> Any:
    """A decoded MessagePack extension's value (else the value itself)."""
    while isinstance(value, msgpack.Ext) and value.nested:
        value = value.value
    return value


def get_path(value: Any, path: tuple[str, ...]) -> Any:
    """The value at ``path`` inside a parsed structure, or MISSING."""
    for step in path:
        value = step_into(value)
        if isinstance(value, dict) and step in value:
            value = value[step]
        elif isinstance(value, list) and _index(step, len(value)) is not None:
            value = value[_index(step, len(value))]
        else:
            return MISSING
    return step_into(value)


def set_path(value: Any, path: tuple[str, ...], new: Any) -> Any:
    """A deep copy of ``value`` with ``new`` at ``path`` (which must exist); EditError if not."""
    if not path:
        return new
    out = copy.deepcopy(value)
    holder = out
    for step in path[:-1]:
        holder = _child(holder, step)
    holder = step_into(holder)
    last = path[-1]
    if isinstance(holder, dict) and last in holder:
        holder[last] = new
    elif isinstance(holder, list) and _index(last, len(holder)) is not None:
        holder[_index(last, len(holder))] = new
    else:
        raise EditError(f"no value at path {list(path)}")
    return out


def _child(holder: Any, step: str) -> Any:
    holder = step_into(holder)
    if isinstance(holder, dict) and step in holder:
        return holder[step]
    if isinstance(holder, list) and _index(step, len(holder)) is not None:
        return holder[_index(step, len(holder))]
    raise EditError(f"no value at step {step!r}")


def _index(step: str, n: int) -> int | None:
    if step.lstrip("-").isdigit() and -n <= int(step) < n:
        return int(step) % n
    return None


def parse(raw: Any, fmt: str) -> Any:
    """A stored value parsed for paths: JSON text/bytes, MessagePack bytes, or as it is."""
    if fmt == "msgpack" and isinstance(raw, (bytes, bytearray)):
        try:
            return msgpack.unpack(raw)
        except msgpack.MsgpackError as exc:
            raise EditError(f"not MessagePack: {exc}") from exc
    if isinstance(raw, (bytes, bytearray)):
        raw = raw.decode("utf-8")
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError as exc:
            raise EditError(f"not JSON: {exc}") from exc
    return raw


def read(raw: Any, path: tuple[str, ...], fmt: str = "json") -> Any:
    """The value at ``path`` inside the stored value ``raw`` (the value itself for an empty path)."""
    if not path:
        return raw
    try:
        return get_path(parse(raw, fmt), path)
    except EditError:
        return MISSING


def write(raw: Any, path: tuple[str, ...], new: Any, fmt: str = "json") -> Any:
    """``raw`` with ``new`` at ``path``, in the stored value's own type and format."""
    if not path:
        return new
    if fmt == "msgpack" and isinstance(raw, (bytes, bytearray)):
        if not msgpack.roundtrips(raw):
            raise EditError("the MessagePack value does not re-encode byte for byte; refusing to rewrite it")
        return type(raw)(msgpack.pack(set_path(msgpack.unpack(raw), path, new)))
    if isinstance(raw, str):
        return set_in_json(raw, path, new)
    if isinstance(raw, (bytes, bytearray)):
        return type(raw)(set_in_json(raw.decode("utf-8"), path, new).encode("utf-8"))
    return set_path(raw, path, new)


def encode_like(raw: Any, new: Any, fmt: str = "json") -> Any:
    """``new`` as a whole stored value of ``raw``'s type: MessagePack bytes (when ``raw``
    round-trips byte for byte), JSON text or bytes, or the value itself when ``raw`` is parsed."""
    if fmt == "msgpack" and isinstance(raw, (bytes, bytearray)):
        if not msgpack.roundtrips(raw):
            raise EditError("the MessagePack value does not re-encode byte for byte; refusing to rewrite it")
        return type(raw)(msgpack.pack(new))
    if isinstance(raw, str):
        return json.dumps(new, ensure_ascii=raw.isascii())
    if isinstance(raw, (bytes, bytearray)):
        return type(raw)(json.dumps(new, ensure_ascii=False).encode("utf-8"))
    return new


def json_span(text: str, path: tuple[str, ...]) -> tuple[int, int]:
    """Character span of the value at ``path`` in JSON ``text``; EditError when there is none."""
    start = _skip(text, 0)
    for step in path:
        start = _member(text, start, step)
    _, end = _DECODER.raw_decode(text, start)
    return start, end


def set_in_json(text: str, path: tuple[str, ...], new: Any) -> str:
    """JSON ``text`` with the value at ``path`` replaced by ``new``; nothing else changes."""
    start, end = json_span(text, path)
    return text[:start] + json.dumps(new, ensure_ascii=text.isascii()) + text[end:]


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _member(text: str, i: int, step: str) -> int:
    """Start of the member ``step`` of the object or array starting at ``i``."""
    opener = text[i:i + 1]
    if opener not in ("{", "["):
        raise EditError(f"step {step!r}: not an object or array at character {i}")
    i = _skip(text, i + 1)
    n = 0
    while text[i:i + 1] not in ("}", "]", ""):
        if opener == "{":
            key, i = scanstring(text, i + 1)
            i = _skip(text, i)
            i = _skip(text, i + 1)  # past ':'
            hit = key == step
        else:
            hit = step.isdigit() and int(step) == n
        if hit:
            return i
        _, i = _DECODER.raw_decode(text, i)
        i = _skip(text, i)
        if text[i:i + 1] == ",":
            i = _skip(text, i + 1)
        n += 1
    raise EditError(f"no member {step!r} in the JSON value")


def map_strings(value: Any, change: Callable[[str], str]) -> Any:
    """A deep copy of a parsed structure with ``change`` applied to every string value (keys kept;
    inside MessagePack extensions that hold a structure too)."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, list):
        return [map_strings(v, change) for v in value]
    if isinstance(value, dict):
        return {k: map_strings(v, change) for k, v in value.items()}
    if isinstance(value, msgpack.Ext) and value.nested:
        return msgpack.Ext(value.code, b"", map_strings(value.value, change))
    return copy.deepcopy(value)


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Every leaf of a parsed structure by dotted path (extensions stepped through; empty
    containers and raw extensions are leaves)."""
    value = step_into(value)
    items: list[tuple[str, Any]] = []
    if isinstance(value, dict) and value:
        items = [(str(k), v) for k, v in value.items()]
    elif isinstance(value, list) and value:
        items = [(str(i), v) for i, v in enumerate(value)]
    else:
        if isinstance(value, msgpack.Ext):
            value = {"ext": value.code, "hex": value.data.hex()}
        return {prefix: value}
    out: dict[str, Any] = {}
    for key, item in items:
        out.update(flatten(item, f"{prefix}.{key}" if prefix else key))
    return out
