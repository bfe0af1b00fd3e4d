"""Every string and number in a served JSON value, in document order: what the judge reads.

A secondary path serves a value wherever it likes: in a memory's ``text``, in another field, as a
JSON number (a PIN ``4242``), as an object's member name. ``leaves`` walks a value depth first with
an explicit stack (a deep answer cannot overflow Python's), keeping member names and every string
and number (a boolean or null is no value), numbers as JSON writes them. Example::

    >>> leaves({"key": "pin", "value": 4242, "tags": ["old", {"score": 0.5}], "ok": True})
    ['key', 'pin', 'value', '4242', 'tags', 'old', 'score', '0.5', 'ok']

May import: the standard library.
"""
from __future__ import annotations

import json
from typing import Any


def leaves(value: Any) -> list[str]:
    """Member names, strings and numbers of a JSON value, in document order."""
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, (int, float)):
            out.append(json.dumps(item))
        elif isinstance(item, dict):
            for name, member in reversed(list(item.items())):
                stack += [member, str(name)]
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
    return out


def text_of(value: Any) -> str:
    """A JSON value read whole: its leaves, one a line."""
    return "\n".join(leaves(value))


def record_text(record: dict, first: tuple[str, ...] = ("text",)) -> str:
    """One served record read whole: the values of the fields named in ``first`` (its ``text``), then
    every other field, name and value (meta, id ...)."""
    head = [record[name] for name in first if name in record]
    return text_of([*head, {k: v for k, v in record.items() if k not in first}])
