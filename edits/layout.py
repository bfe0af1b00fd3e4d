"""The store layout: where a SUT's records live, declared as data in its profile.

A layout names the backend, the volume and file, and which fields hold the
context, the identity, the order, the payload and the metadata. The per-backend
editors read and edit records from this description alone.

Example (the ``store:`` block of a profile)::

    store:
      backend: sqlite            # sqlite | jsonl | markdown | json (files) | postgres | redis (services)
      volume: store              # the volume that holds the store (a service's data volume)
      file: memory.db            # path inside the volume; markdown: pattern with {context}
      service: db                # postgres/redis: the profile's service the editor connects to
      table: records             # sqlite and postgres
      key: "mem:{context}:{id}"  # redis: key pattern of a record (a hash), {context} and {id}
      context: ctx               # field that holds the context (markdown: from the file name)
      identity: [id]             # fields kept on T6/T7; [] = the position is the identity
      order: seq                 # order field, or "@position" (line / list position)
      payload: body              # served text; or {field: data, format: json, path: [content]}
      metadata: {role: role, source: source, timestamp: created_at}
      record_pattern: '^- \\[(?P<role>\\w+)\\] (?P<text>.*)$'   # markdown only
      triggers: fire             # sqlite: fire (default) | suspend: the edit drops the table's
                                 # triggers and re-creates them, unchanged, in its transaction
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

FILE_BACKENDS = ("sqlite", "jsonl", "markdown", "json")
SERVICE_BACKENDS = ("postgres", "redis")
BACKENDS = FILE_BACKENDS + SERVICE_BACKENDS
PAYLOAD_FORMATS = ("text", "json")
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
class StoreLayout:
    """A validated store layout (see module docstring)."""

    backend: str
    volume: str
    file: str
    context: str
    identity: tuple[str, ...]
    order: str
    payload: PayloadSpec
    table: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    record_pattern: str | None = None
    service: str | None = None
    key: str | None = None
    triggers: str = "fire"

    @property
    def ordered_by_position(self) -> bool:
        """True when the order is the record's position, not a stored field."""
        return self.order == POSITION

    def to_json(self) -> dict[str, Any]:
        """The layout as plain data, for result rows."""
        return {
            "backend": self.backend,
            "volume": self.volume,
            "file": self.file,
            "table": self.table,
            "context": self.context,
            "identity": list(self.identity),
            "order": self.order,
            "payload": {"field": self.payload.field, "format": self.payload.format,
                        "path": list(self.payload.path)},
            "metadata": dict(self.metadata),
            "record_pattern": self.record_pattern,
            "service": self.service,
            "key": self.key,
            "triggers": self.triggers,
        }


def parse_layout(data: Any) -> StoreLayout:
    """Validate a profile's ``store:`` mapping into a :class:`StoreLayout`."""
    if not isinstance(data, dict):
        raise LayoutError("", "must be a mapping", "give store: backend, volume, file, ...")
    known = {"backend", "volume", "file", "table", "context", "identity", "order",
             "payload", "metadata", "record_pattern", "service", "key", "triggers"}
    for key in data:
        if key not in known:
            raise LayoutError(str(key), "unknown field", f"use one of {sorted(known)}")
    backend = _text(data, "backend")
    if backend not in BACKENDS:
        raise LayoutError("backend", f"unknown backend {backend!r}", f"use one of {list(BACKENDS)}")
    table = data.get("table")
    if backend in ("sqlite", "postgres") and not table:
        raise LayoutError("table", f"required for the {backend} backend", "name the table that holds the records")
    if backend in SERVICE_BACKENDS and not data.get("service"):
        raise LayoutError("service", f"required for the {backend} backend",
                          "name the profile's service (services: {db: {kind: ..., volume: ...}})")
    if backend == "redis" and not ("{context}" in str(data.get("key", "")) and "{id}" in str(data.get("key", ""))):
        raise LayoutError("key", "redis records need a key pattern with {context} and {id}",
                          'e.g. key: "mem:{context}:rec:{id}"')
    pattern = data.get("record_pattern")
    if backend == "markdown":
        pattern = _markdown_pattern(pattern)
        if "{context}" not in str(data.get("file", "")):
            raise LayoutError("file", "markdown stores keep one file per context",
                              "write the file as a pattern with {context}, e.g. memory/{context}.md")
    triggers = data.get("triggers", "fire")
    if triggers not in ("fire", "suspend") or (triggers == "suspend" and backend != "sqlite"):
        raise LayoutError("triggers", f"{triggers!r} is not a trigger mode of the {backend} backend",
                          "use fire (the default), or suspend on sqlite")
    identity = data.get("identity", [])
    if not isinstance(identity, list) or not all(isinstance(i, str) for i in identity):
        raise LayoutError("identity", "must be a list of field names", "e.g. identity: [id]")
    metadata = data.get("metadata", {}) or {}
    if not isinstance(metadata, dict):
        raise LayoutError("metadata", "must be a mapping of name: field", "e.g. metadata: {role: role}")
    for name in metadata:
        if name not in METADATA_NAMES:
            raise LayoutError(f"metadata.{name}", "unknown metadata name", f"use {list(METADATA_NAMES)}")
    return StoreLayout(
        backend=backend,
        volume=_text(data, "volume"),
        file=_text(data, "file") if backend in FILE_BACKENDS else str(data.get("file", "")),
        table=table,
        context=_text(data, "context") if backend not in ("markdown", "redis") else data.get("context", "{context}"),
        identity=tuple(identity),
        order=_text(data, "order"),
        payload=_payload(data.get("payload")),
        metadata={str(k): str(v) for k, v in metadata.items()},
        record_pattern=pattern,
        service=data.get("service"),
        key=data.get("key"),
        triggers=triggers,
    )


def _text(data: dict, key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise LayoutError(key, "missing or not a string", f"set store.{key}")
    return value


def _payload(value: Any) -> PayloadSpec:
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


def _markdown_pattern(pattern: Any) -> str:
    if not isinstance(pattern, str):
        raise LayoutError("record_pattern", "required for markdown",
                          "give a line regex with a (?P<text>...) group")
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        raise LayoutError("record_pattern", f"not a regular expression: {exc}", "fix the regex") from exc
    if "text" not in compiled.groupindex:
        raise LayoutError("record_pattern", "has no (?P<text>...) group", "name the text group 'text'")
    return pattern
