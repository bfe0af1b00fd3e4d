"""Record helpers shared by every editor: decode a stored payload, find the one
record carrying a marker, replace bytes in place, sort and count changes.

Example::

    >>> from edits.layout import PayloadSpec
    >>> from edits.records import decode_payload, replace_same_length, changed_bytes
    >>> spec = PayloadSpec(field="data", format="json", path=("content",))
    >>> decode_payload('{"content": "FACT-A1 is blue", "role": "user"}', spec)
    'FACT-A1 is blue'
    >>> replace_same_length(b'{"content": "FACT-A1"}', "FACT-A1", "FACT-Z9")
    b'{"content": "FACT-Z9"}'
    >>> changed_bytes(b"abcd", b"abXdef")
    3
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, TypeVar

from edits.layout import PayloadSpec, StoreLayout
from edits.model import EditError, Record
from edits.paths import MISSING, read
from edits.relabel import decode

T = TypeVar("T", str, bytes)


def decode_payload(raw: Any, spec: PayloadSpec) -> str:
    """The served text inside a stored value (text, bytes, JSON text or an already parsed object).

    JSON is parsed when ``spec.format`` is json (or the value is already an object),
    MessagePack when it is msgpack, then ``spec.path`` is followed (list indexes as
    digits). A value that does not decode that way is shown as its raw text, so
    markers can still be found.
    """
    if spec.format == "msgpack" and isinstance(raw, (bytes, bytearray)):
        found = read(raw, spec.path, "msgpack")
        if found is MISSING or not spec.path:
            return raw.decode("utf-8", "replace")
        return "" if found is None else found if isinstance(found, str) else json.dumps(found, default=str)
    text = raw.decode("utf-8", "replace") if isinstance(raw, (bytes, bytearray)) else raw
    value: Any = text
    if spec.format == "json" and isinstance(text, str):
        try:
            value = json.loads(text)
        except ValueError:
            return text
    for step in spec.path:
        if isinstance(value, dict) and step in value:
            value = value[step]
        elif isinstance(value, list) and step.lstrip("-").isdigit() and -len(value) <= int(step) < len(value):
            value = value[int(step)]
        else:
            return text if isinstance(text, str) else json.dumps(text, ensure_ascii=False)
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def read_metadata(layout: StoreLayout, fields: dict[str, Any]) -> dict[str, Any]:
    """A record's metadata by name: the first place the layout names for each (a field, or a
    path inside one; None when the path is absent), as the word its ``values`` say (:mod:`edits.relabel`)."""
    out = {}
    for name, column in layout.metadata.items():
        refs = layout.meta_refs.get(name)
        if not refs:
            out[name] = fields.get(column)
            continue
        value = read(fields.get(refs[0].field), refs[0].path, refs[0].format)
        out[name] = None if value is MISSING else decode(refs[0], value)
    return out


def find_one(records: Iterable[Record], marker: str, role: str = "target") -> Record:
    """The single record whose payload contains ``marker``; EditError if none or several."""
    hits = [r for r in records if marker in r.payload or r.label == marker]
    if not hits:
        raise EditError(f"{role} marker {marker!r} is in no record's payload")
    if len(hits) > 1:
        keys = ", ".join(r.key() for r in hits)
        raise EditError(f"{role} marker {marker!r} is in {len(hits)} records ({keys}); markers must be unique")
    return hits[0]


def replace_same_length(data: T, find: str, replace: str) -> T:
    """``data`` with every ``find`` replaced by ``replace`` (same byte length); EditError if absent."""
    if len(find.encode()) != len(replace.encode()):
        raise EditError(f"find {find!r} and replace {replace!r} differ in encoded length")
    if isinstance(data, (bytes, bytearray)):
        old, new = find.encode(), replace.encode()
    else:
        old, new = find, replace
    if old not in data:
        raise EditError(f"{find!r} is not in the stored value")
    return data.replace(old, new)


def contains(value: Any, find: str) -> bool:
    """True when a stored text or bytes value contains ``find``."""
    if isinstance(value, str):
        return find in value
    if isinstance(value, (bytes, bytearray)):
        return find.encode() in value
    return False


def sort_records(records: Iterable[Record]) -> list[Record]:
    """Records sorted by (context, scope, order); None first, mixed types compared as text."""
    def key(r: Record) -> tuple:
        order, ctx = r.order, (r.context, [str(v) for v in r.scope])
        if order is None:
            return (*ctx, 0, 0, "")
        if isinstance(order, (int, float)) and not isinstance(order, bool):
            return (*ctx, 1, order, "")
        return (*ctx, 2, 0, str(order))
    return sorted(records, key=key)


def changed_bytes(before: bytes | None, after: bytes | None) -> int:
    """Differing bytes over the common length plus the size difference."""
    before, after = before or b"", after or b""
    common = min(len(before), len(after))
    differing = sum(1 for a, b in zip(before[:common], after[:common]) if a != b)
    return differing + abs(len(before) - len(after))


def read_files(paths: Iterable[Path]) -> dict[Path, bytes | None]:
    """The bytes of each path (None when it does not exist), to diff after an edit."""
    return {p: (p.read_bytes() if p.is_file() else None) for p in paths}


def changed_bytes_in(before: dict[Path, bytes | None]) -> int:
    """Total changed bytes of the files in ``before`` compared with their content now."""
    after = read_files(before)
    return sum(changed_bytes(before[p], after[p]) for p in before)
