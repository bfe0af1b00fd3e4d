"""The store layout: where a SUT's records live, declared as data in its profile.

A layout names the backend, the volume and file, and which fields hold the
context, the identity, the order, the payload and the metadata. The per-backend
editors read and edit records from this description alone.

Example (the ``store:`` block of a profile)::

    store:
      backend: sqlite            # sqlite | jsonl | markdown | json | qdrant | lancedb (files) | postgres | redis (services)
      volume: store              # the volume that holds the store (a service's data volume)
      file: memory.db            # path inside the volume; markdown: pattern with {context}
      service: db                # postgres/redis: the profile's service the editor connects to
      table: records             # sqlite, postgres and lancedb (``file`` = the database folder)
      collection: memories       # qdrant (local mode, ``file`` = the store's folder in the volume);
                                 # context, order, payload and metadata name payload fields
      context_pattern: "/{context}"  # qdrant, lancedb: how the context field holds the lab's
                                 # context (a SUT that stores it as a path, e.g. CrewAI's scopes)
      key: "mem:{context}:{id}"  # redis: key pattern of a record (a hash), {context} and {id}
      context: ctx               # field that holds the context (markdown: from the file name)
      identity: [id]             # fields kept on T6/T7; [] = the position is the identity
      order: seq                 # order field, or "@position" (line / list position)
      payload: body              # served text; or {field: data, format: json, path: [content]}
      metadata: {role: role, source: source, timestamp: created_at}
                                 # a metadata entry may name a field plus a path inside it, and
                                 # every place that holds the value (the first one is read):
                                 #   role: {field: message_data, path: [role]}
                                 #   role: [{field: data, path: [role]}, role]
      record_pattern: '^- \\[(?P<role>\\w+)\\] (?P<text>.*)$'   # markdown only
                                 # sqlite: the context and identity entries may also name a field
                                 # plus a path inside it, kept with the record's slot on T6/T7 and
                                 # made fresh on T5 (one fresh value for places that held one):
                                 #   context: {field: doc, path: [meta, uid]}
                                 #   identity: [id, {field: doc, path: [id]}]
      triggers: fire             # sqlite: fire (default) | suspend: the edit drops the table's
                                 # triggers and re-creates them, unchanged, in its transaction

Records that are elements of a list inside one stored value (sqlite): each row
of the table is one *version* of a context's state, the row with the greatest
``version`` is current, and every element of the list at ``payload.path`` in
the current row is one record. ``records.text``, ``records.identity`` and
``records.metadata`` are paths inside one element; ``cascade`` names rows of
other tables that belong to a version row and go with it when it is deleted::

    store:
      backend: sqlite
      volume: store
      file: checkpoints.db
      table: checkpoints
      context: thread_id
      order: "@position"                 # records are ordered by their place in the list
      payload: {field: checkpoint, format: msgpack, path: [channel_values, messages]}
      records:
        text: [2, content]               # the served text inside one element
        identity: [[2, id]]              # kept on T6/T7, fresh on T5
        metadata: {role: [2, type]}
        version: checkpoint_id           # the newest version row of a context is current
        cascade: [{table: writes, key: [thread_id, checkpoint_ns, checkpoint_id]}]

The list may sit in a row of *another* table, found from the version row
(``records.payload_row``): a row of ``table`` whose ``key`` columns equal values
taken from the version row -- a column, or a path inside a JSON column -- and
whose ``where`` columns hold the given constants. ``path: []`` says the whole
payload value is the list. Works on sqlite and postgres (LangGraph's
PostgresSaver keeps the messages of a checkpoint in ``checkpoint_blobs``, in the
row whose ``version`` is the checkpoint's ``channel_versions.messages``)::

    store:
      backend: postgres
      volume: pgdata
      service: db
      table: checkpoints                 # the version rows
      context: thread_id
      order: "@position"
      payload: {field: blob, format: msgpack, path: []}   # a field of the payload row
      records:
        text: [2, content]
        identity: [[2, id]]
        version: checkpoint_id
        payload_row:
          table: checkpoint_blobs
          key: {thread_id: thread_id, checkpoint_ns: checkpoint_ns,
                version: {field: checkpoint, path: [channel_versions, messages]}}
          where: {channel: messages}

A version row whose key cannot be read (no ``messages`` version yet) or that
matches no payload row holds no records; more than one matching row is an error.

``format: opaque`` (with ``records:``) declares a payload the adversary cannot
read (ciphertext): only whole-payload edits of version rows can be expressed,
addressed through the versions the SUT reported when the lab seeded it (see
``edits.lists``).

The parsers of the pieces (payload, paths, metadata refs) are in
:mod:`edits.layout_fields`; those of ``records:`` in :mod:`edits.layout_records`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from edits.layout_fields import (METADATA_NAMES, POSITION, FieldRef, LayoutError, PayloadSpec, payload_spec,
                                 refs_of, text_field)
from edits.layout_records import ElementRecords, parse_records

__all__ = ["StoreLayout", "parse_layout", "LayoutError", "PayloadSpec", "FieldRef", "ElementRecords", "POSITION",
           "BACKENDS", "FILE_BACKENDS", "SERVICE_BACKENDS", "FIELD_STORE_BACKENDS"]

FILE_BACKENDS = ("sqlite", "jsonl", "markdown", "json", "qdrant", "lancedb")
FIELD_STORE_BACKENDS = ("qdrant", "lancedb")
SERVICE_BACKENDS = ("postgres", "redis")
BACKENDS = FILE_BACKENDS + SERVICE_BACKENDS


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
    meta_refs: dict[str, tuple[FieldRef, ...]] = field(default_factory=dict)
    records: ElementRecords | None = None
    context_ref: FieldRef | None = None
    identity_refs: dict[str, FieldRef] = field(default_factory=dict)
    collection: str | None = None
    context_pattern: str = "{context}"

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
            **({"metadata_refs": {n: [{"field": r.field, "path": list(r.path), "format": r.format}
                                      for r in refs] for n, refs in self.meta_refs.items()}}
               if not self.records and any(r.path or len(refs) > 1 for refs in self.meta_refs.values()
                                           for r in refs) else {}),
            **({"records": self.records.to_json()} if self.records else {}),
            **({"collection": self.collection} if self.collection else {}),
            **({"context_pattern": self.context_pattern} if self.context_pattern != "{context}" else {}),
            **({"context_ref": {"field": self.context_ref.field, "path": list(self.context_ref.path)}}
               if self.context_ref else {}),
            **({"identity_refs": {n: {"field": r.field, "path": list(r.path)} for n, r in self.identity_refs.items()}}
               if self.identity_refs else {}),
        }


def parse_layout(data: Any) -> StoreLayout:
    """Validate a profile's ``store:`` mapping into a :class:`StoreLayout`."""
    if not isinstance(data, dict):
        raise LayoutError("", "must be a mapping", "give store: backend, volume, file, ...")
    known = {"backend", "volume", "file", "table", "context", "identity", "order",
             "payload", "metadata", "record_pattern", "service", "key", "triggers", "records", "collection",
             "context_pattern"}
    for key in data:
        if key not in known:
            raise LayoutError(str(key), "unknown field", f"use one of {sorted(known)}")
    backend = text_field(data, "backend")
    if backend not in BACKENDS:
        raise LayoutError("backend", f"unknown backend {backend!r}", f"use one of {list(BACKENDS)}")
    table = data.get("table")
    if backend in ("sqlite", "postgres", "lancedb") and not table:
        raise LayoutError("table", f"required for the {backend} backend", "name the table that holds the records")
    if backend == "qdrant" and not (isinstance(data.get("collection"), str) and data["collection"]):
        raise LayoutError("collection", "required for the qdrant backend", "name the collection that holds the records")
    context_pattern = _context_pattern(data.get("context_pattern", "{context}"), backend)
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
    context_ref, identity_refs = None, {}
    if isinstance(data.get("context"), dict) or (isinstance(identity, list) and
                                                 any(isinstance(i, dict) for i in identity)):
        context_ref, identity, identity_refs = _slot_refs(data, backend, identity)
    if not isinstance(identity, list) or not all(isinstance(i, str) for i in identity):
        raise LayoutError("identity", "must be a list of field names", "e.g. identity: [id]")
    metadata = data.get("metadata", {}) or {}
    if not isinstance(metadata, dict):
        raise LayoutError("metadata", "must be a mapping of name: field", "e.g. metadata: {role: role}")
    for name in metadata:
        if name not in METADATA_NAMES:
            raise LayoutError(f"metadata.{name}", "unknown metadata name", f"use {list(METADATA_NAMES)}")
    meta_refs = {str(k): refs_of(f"metadata.{k}", v) for k, v in metadata.items()}
    if backend != "sqlite" and any(r.path or len(refs) > 1 for refs in meta_refs.values() for r in refs):
        raise LayoutError("metadata", f"paths inside a field are read by the sqlite editor only, not {backend}",
                          "name plain fields (metadata: {role: role})")
    payload = payload_spec(data.get("payload"))
    records = None
    if data.get("records") is not None:
        records = parse_records(data, backend, identity, metadata, payload)
        identity = [".".join(p) for p in records.identity]
        meta_refs = {k: (FieldRef(None, v),) for k, v in records.metadata.items()}
    elif payload.format == "opaque":
        raise LayoutError("payload.format", "an opaque payload needs records: (version rows of a state)",
                          "declare records: {text, version, ...}, or use text | json | msgpack")
    return StoreLayout(
        backend=backend,
        volume=text_field(data, "volume"),
        file=text_field(data, "file") if backend in FILE_BACKENDS else str(data.get("file", "")),
        table=table,
        context=(context_ref.name() if context_ref else text_field(data, "context"))
        if backend not in ("markdown", "redis") else data.get("context", "{context}"),
        identity=tuple(identity),
        order=text_field(data, "order"),
        payload=payload,
        metadata={k: refs[0].name() if refs[0].field is None else refs[0].field for k, refs in meta_refs.items()},
        record_pattern=pattern,
        service=data.get("service"),
        key=data.get("key"),
        triggers=triggers,
        meta_refs=meta_refs,
        records=records,
        context_ref=context_ref,
        identity_refs=identity_refs,
        collection=data.get("collection"),
        context_pattern=context_pattern,
    )


def _context_pattern(pattern: Any, backend: str) -> str:
    """A context field written as a pattern around the lab's context (field-store backends only)."""
    if pattern == "{context}":
        return pattern
    if backend not in FIELD_STORE_BACKENDS:
        raise LayoutError("context_pattern", f"read by the {'/'.join(FIELD_STORE_BACKENDS)} editors, not {backend}",
                          "drop it, and store the context as it is")
    if not isinstance(pattern, str) or pattern.count("{context}") != 1:
        raise LayoutError("context_pattern", f"{pattern!r} must hold {{context}} exactly once", 'e.g. "/{context}"')
    return pattern


def _slot_refs(data: dict, backend: str, identity: Any) -> tuple[FieldRef | None, list[str], dict[str, FieldRef]]:
    """A context and identity entries given as {field, path}: (context ref, identity names, refs by name)."""
    if backend != "sqlite" or data.get("records") is not None:
        raise LayoutError("context", f"a context or identity inside a field is read by the sqlite editor "
                          f"(without records:), not {backend}", "name plain columns")
    context_ref = None
    if isinstance(data.get("context"), dict):
        context_ref = refs_of("context", data["context"])[0]
        if not context_ref.path:
            raise LayoutError("context.path", "missing", "give the path inside the field, e.g. [meta, uid]")
    names, refs = [], {}
    for i, item in enumerate(identity if isinstance(identity, list) else []):
        if isinstance(item, dict):
            ref = refs_of(f"identity[{i}]", item)[0]
            names.append(ref.name())
            refs[ref.name()] = ref
        else:
            names.append(item)
    return context_ref, names, refs


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
