"""A schema error as a :class:`ProfileError`: the dotted field, its line, what is wrong in
words, and the fix (the field's own, else one for the kind of error).

Example::

    >>> from pydantic import ValidationError
    >>> from lab.profile.schema import Document
    >>> try:
    ...     Document.model_validate({"row": "a", "timeouts": {"op": True}})
    ... except ValidationError as exc:
    ...     print(to_profile_error(exc, "p.yaml", {"timeouts.op": 3}, {"timeouts.op": "yes"}))
    p.yaml:3: timeouts.op: YAML reads yes as the boolean true, not a number
      fix: a number of seconds from 0.5 to 3600, e.g. timeouts: {start: 60, op: 30}
"""

from __future__ import annotations

import fnmatch
import re
import types
import typing
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from lab.profile.model import ProfileError
from lab.profile.schema import CHANNELS, LEVELS, MAX_BYTES, MAX_SECONDS, MIN_BYTES, MIN_SECONDS, Document

SECONDS = f"a number of seconds from {MIN_SECONDS:g} to {MAX_SECONDS:g}, e.g. timeouts: {{start: 60, op: 30}}"
#: A field's own fix (``*`` any name or index, an index written ``.0``); the first match wins.
FIXES = {
    "row": "name the row with letters, digits, '.', '_', '+', '-', e.g. row: my-sut-sqlite",
    "sut.version": 'pin the exact version as text: version: "0.1.0"',
    "sut.commit": 'write the commit as text: commit: "1a2b3c4" (or null)',
    "timeouts.*": SECONDS,
    "limits*": f"a whole number of bytes from {MIN_BYTES} to {MAX_BYTES} each, answer_bytes at most line_bytes, "
              "e.g. limits: {line_bytes: 16777216, answer_bytes: 1048576}",
    "volumes.*.adversary": "write adversary: true (the adversary edits it) or adversary: false",
    "volumes.*": "write volumes.<name>: {adversary: true}",
    "services.*.extensions*": "e.g. services.db: {kind: postgres, volume: pgdata, extensions: [vector]} (vector)",
    "services.*.kind": "use postgres or redis: services.<name>: {kind: postgres, volume: pgdata}",
    "services.*": "write services.<name>: {kind: postgres, volume: pgdata}",
    "signals.*.level": f"use one of {list(LEVELS)}",
    "signals.*.channel": f"use one of {list(CHANNELS)}",
    "signals.*": "each signal is {channel, level, pattern, logger}, e.g. {channel: log, pattern: integrity}",
    "signals": "e.g. signals: [{channel: log, level: WARNING, pattern: integrity}]",
    "detection_points*": "e.g. detection_points: [read, audit]",
    "measurements*": "e.g. measurements: [at_rest, lifecycle]",
    "frontdoor*": "e.g. frontdoor: {isolation: sut, label: \"meta.source\", signature: null}",
    "lifecycle.capabilities*": "e.g. capabilities: [ttl, tenants, erase] (erase: per-record erasure)",
    "fork_server.preload*": "e.g. preload: [sqlite3, json]",
    "fork_server.per_start*": "distribution names, each once, e.g. per_start: [mem0ai]",
    "fork_server.unused_paths*": "module globals, each once, e.g. unused_paths: [fsspec.config.conf_dir]",
    "capabilities.erasure": "use one of record, context, none",
}
_PARENT = re.compile(r"(\.[^.\[\]]*|\[\d+\])$")
_KIND_FIXES = {
    "missing": "add {leaf}:",
    "bool_type": "write true or false",
    "dict_type": "write {leaf}: {{name: value}}",
    "model_type": "write {leaf}: {{name: value}}",
    "list_type": "write {leaf}: [first, second]",
    "string_type": 'write text (quote it: "...")',
    "float_type": "write a number",
}


def to_profile_error(exc: ValidationError, path: Path | str, lines: dict[str, int],
                     texts: dict[str, str]) -> ProfileError:
    """The first error of a schema validation, as a ProfileError (and how many more there are)."""
    errors = exc.errors()
    first = errors[0]
    if "[key]" in first["loc"]:  # a mapping's key (a volume's name): the mapping is the field
        at = first["loc"].index("[key]")
        dotted = _dotted(first["loc"][:at - 1])
        line = line_of(lines, f"{dotted}.{first['loc'][at - 1]}")
        key, message = first["loc"][at - 1], _message(first, None)
        message = message if message.startswith(repr(key)) else f"the name {key!r}: {message}"
        fix = _fix(first, f"{dotted}.*", None)
        return ProfileError(path, line, dotted, message + _more(errors), fix)
    dotted = _dotted(first["loc"])
    message = _message(first, texts.get(dotted))
    fix = _fix(first, dotted, texts.get(dotted))
    line = line_of(lines, dotted)
    volume = re.match(r"(volumes\.[^.]+)\.(.+)$", dotted)
    if volume:  # a volume's spec is one thing: {adversary: true|false}
        dotted, message = volume[1], f"{volume[2]}: {message}"
    if first["type"] == "literal_error" and first["loc"] and isinstance(first["loc"][-1], int):
        allowed = re.findall(r"'([^']*)'", first["ctx"]["expected"])  # a list of names: the list is the field
        dotted, message = _dotted(first["loc"][:-1]), (f"must be a list of {allowed}: {first['input']!r} "
                                                         f"(item {first['loc'][-1]}) is not one of them")
    return ProfileError(path, line, dotted or "(top)", message + _more(errors), fix)


def _more(errors: list) -> str:
    return f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""


def _dotted(loc: tuple) -> str:
    """``('signals', 0, 'level')`` -> ``signals[0].level``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}" if out else str(part)
    return out


def line_of(lines: dict[str, int], dotted: str) -> int:
    """The field's line, or its nearest parent's, or 1."""
    probe = dotted
    while probe and probe not in lines:
        parent = _PARENT.sub("", probe)
        probe = "" if parent == probe else parent
    return lines.get(probe, 1)


def _message(error: dict, raw: str | None) -> str:
    kind, value = error["type"], error.get("input")
    if kind == "profile":
        return error["ctx"]["message"]
    if kind == "extra_forbidden":
        return "unknown field"
    if kind == "missing":
        return "missing"
    if kind in ("string_type", "float_type", "int_type", "bool_type") and raw is not None and not isinstance(value, str):
        wanted = {"string_type": "text", "bool_type": "true or false"}.get(kind, "a number")
        return f"YAML reads {raw} as {_yaml_repr(value)}, not {wanted}"
    if kind == "literal_error":
        return f"{value!r} is not one of {error['ctx']['expected']}"
    shown = repr(value) if not isinstance(value, (dict, list)) else type(value).__name__
    return f"{error['msg'][0].lower()}{error['msg'][1:]} (got {shown})"


def _yaml_repr(value: Any) -> str:
    if isinstance(value, bool):
        return f"the boolean {'true' if value else 'false'}"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    return f"a {type(value).__name__}"


def _fix(error: dict, dotted: str, raw: str | None) -> str:
    kind, leaf = error["type"], (dotted.rsplit(".", 1)[-1] or dotted)
    if kind == "profile":
        return error["ctx"]["fix"]
    if kind == "extra_forbidden":
        known = _known_fields(error["loc"][:-1])
        return f"remove it, or use one of {known}" if known else "remove it"
    if kind == "string_type" and raw is not None and not dotted.endswith("*"):
        return f'quote it: {leaf}: "{raw}"'
    pattern = re.sub(r"\[(\d+)\]", r".\1", dotted)
    for glob, fix in FIXES.items():
        if fnmatch.fnmatchcase(pattern, glob):
            return fix
    if kind == "literal_error":
        return f"use one of {error['ctx']['expected']}"
    return _KIND_FIXES.get(kind, "see docs/own-sut.md, the profile's fields").format(leaf=leaf)


def _known_fields(loc: tuple) -> list[str]:
    """The field names of the model at ``loc`` (a path through the schema)."""
    current: Any = Document
    for part in loc:
        current = _unwrap(current)
        if isinstance(current, type) and issubclass(current, BaseModel) and isinstance(part, str) \
                and part in current.model_fields:
            current = current.model_fields[part].annotation
        elif typing.get_origin(current) in (dict, list):
            current = typing.get_args(current)[-1]
        else:
            return []
    current = _unwrap(current)
    return sorted(current.model_fields) if isinstance(current, type) and issubclass(current, BaseModel) else []


def _unwrap(annotation: Any) -> Any:
    """``X | None`` and ``Annotated[X, ...]`` -> ``X``."""
    while True:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if typing.get_origin(annotation) in (typing.Union, typing.Annotated, types.UnionType):
            annotation = args[0]
        else:
            return annotation
