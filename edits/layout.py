"""The store layout: where a SUT's records live, declared as data in its profile.

A layout names the backend, the volume and file, and which fields hold the
context, the identity, the order, the payload and the metadata. The per-backend
editors read and edit records from this description alone.

Example (the ``store:`` block of a profile)::

    store:
      backend: sqlite            # a declared backend (edits.registry): sqlite | sqlite-lines | jsonl |
                                 # markdown | json | json-files | qdrant | lancedb (files in a volume) |
                                 # postgres | redis (services)
      volume: store              # the volume that holds the store (a service's data volume)
      file: memory.db            # path inside the volume; markdown, json-files: pattern with {context}
      context: ctx               # field that holds the context (markdown, json-files, redis: from the name)
      identity: [id]             # kept on a transplant; [] = the position is the identity
      order: seq                 # order field, or "@position" (line / list position)
      payload: body              # served text; or {field: data, format: json, path: [content]}
      metadata: {role: role, source: source, timestamp: created_at}
                                 # names: owner, role, source, timestamp. On a backend that reads
                                 # paths inside a field (sqlite), an entry may name a field plus a
                                 # path inside it, and every place that holds the value (the
                                 # first one is read):
                                 #   role: {field: message_data, path: [role]}
                                 #   role: [{field: data, path: [role]}, role]
                                 # and the context and identity entries too, kept with the
                                 # record's slot on a transplant, fresh on a forge (one fresh value
                                 # for places that held one):
                                 #   context: {field: doc, path: [meta, uid]}
                                 #   identity: [id, {field: doc, path: [id]}]
                                 # A context made of several fields (sqlite, postgres) is a list:
                                 # the first holds the lab's context, the others its scope; every
                                 # edit keeps the victim's whole scope and C3 checks all of it:
                                 #   context: [session_id, app_name, user_id]
      records: {...}             # records that are elements of a list in a version row
                                 # (sqlite, postgres): see edits.layout_records
      map: {...}                 # records that are the entries of a keyed map (a JSON object)
                                 # in each row (sqlite, postgres): see edits.layout_map

Every other field belongs to one backend, which declares and validates it in its own
module (:class:`edits.registry.Field`)::

      table: records             # sqlite, postgres and lancedb (``file`` = the database folder)
      service: db                # postgres, redis: the profile's service the editor connects to
      collection: memories       # qdrant (local mode, ``file`` = the store's folder in the volume);
                                 # context, order, payload and metadata name payload fields
      context_pattern: "/{context}"  # qdrant, lancedb: how the context field holds the lab's
                                 # context (a SUT that stores it as a path, e.g. CrewAI's scopes)
      key: "mem:{context}:{id}"  # redis: key pattern of a record (a hash), {context} and {id}
      record_pattern: '^- \\[(?P<role>\\w+)\\] (?P<text>.*)$'   # markdown: a record line
      triggers: fire             # sqlite: fire (default) | suspend: the edit drops the table's
                                 # triggers and re-creates them, unchanged, in its transaction

The parsers of the pieces (payload, paths, metadata refs) are in
:mod:`edits.layout_fields`; those of ``records:`` in :mod:`edits.layout_records`, of ``map:`` in
:mod:`edits.layout_map`.

Example::

    >>> from edits.layout import parse_layout
    >>> layout = parse_layout({"backend": "jsonl", "volume": "store", "file": "memory.jsonl",
    ...                        "context": "thread", "identity": ["id"], "order": "@position",
    ...                        "payload": {"field": "data", "format": "json", "path": ["content"]}})
    >>> layout.identity, layout.ordered_by_position, layout.payload.path
    (('id',), True, ('content',))
    >>> parse_layout({"backend": "jsonl", "volume": "store", "file": "memory.jsonl", "context": "thread",
    ...               "order": "seq", "payload": "text", "table": "records"})
    Traceback (most recent call last):
    edits.layout_fields.LayoutError: store.table: read by the lancedb/postgres/sqlite/sqlite-lines editors, not jsonl (fix: drop it)
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from edits import registry
from edits.layout_fields import (METADATA_NAMES, POSITION, FieldRef, LayoutError, PayloadSpec, payload_spec,
                                 refs_of, text_field)
from edits.layout_map import MapEntries, parse_map
from edits.layout_records import ElementRecords, parse_records

__all__ = ["StoreLayout", "parse_layout", "LayoutError", "PayloadSpec", "FieldRef", "ElementRecords", "MapEntries",
           "POSITION", "COMMON_FIELDS"]

COMMON_FIELDS = registry.COMMON_FIELDS  # parsed here for every backend; the rest are the backends' own


@dataclass(frozen=True)
class StoreLayout:
    """A validated store layout (see module docstring). ``options`` holds the fields a backend
    declares that have no attribute here (none, for the built-in backends)."""

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
    scope: tuple[FieldRef, ...] = ()  # the other fields of a context of several (``context: [a, b, c]``)
    map: MapEntries | None = None
    collection: str | None = None
    context_pattern: str = "{context}"
    options: dict[str, Any] = field(default_factory=dict)

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
                        "path": list(self.payload.path),
                        **({"forms": [f.to_json() for f in self.payload.forms]} if self.payload.forms else {})},
            "metadata": dict(self.metadata),
            "record_pattern": self.record_pattern,
            "service": self.service,
            "key": self.key,
            "triggers": self.triggers,
            **({"metadata_refs": {n: [r.to_json() for r in refs] for n, refs in self.meta_refs.items()}}
               if not self.records and any(r.path or r.values or len(refs) > 1 for refs in self.meta_refs.values()
                                           for r in refs) else {}),
            **({"records": self.records.to_json()} if self.records else {}),
            **({"map": self.map.to_json()} if self.map else {}),
            **({"collection": self.collection} if self.collection else {}),
            **({"context_pattern": self.context_pattern} if self.context_pattern != "{context}" else {}),
            **({"context_ref": {"field": self.context_ref.field, "path": list(self.context_ref.path)}}
               if self.context_ref else {}),
            **({"identity_refs": {n: {"field": r.field, "path": list(r.path)} for n, r in self.identity_refs.items()}}
               if self.identity_refs else {}),
            **({"scope": [{"field": r.field, "path": list(r.path)} for r in self.scope]} if self.scope else {}),
            **({"options": dict(self.options)} if self.options else {}),
        }


_ATTRIBUTES = {f.name for f in fields(StoreLayout)} - set(COMMON_FIELDS)
_DEFAULTS = {f.name: f.default for f in fields(StoreLayout) if f.name in _ATTRIBUTES and isinstance(f.default, str)}


def parse_layout(data: Any) -> StoreLayout:
    """Validate a profile's ``store:`` mapping into a :class:`StoreLayout`: the common fields here,
    the backend's own fields by its declaration (:mod:`edits.registry`)."""
    if not isinstance(data, dict):
        raise LayoutError("", "must be a mapping", "give store: backend, volume, file, ...")
    backend = registry.backend(text_field(data, "backend"))
    known = {*COMMON_FIELDS, *(f for b in registry.backends() for f in b.field_names())}
    for key in data:
        if key not in known:
            raise LayoutError(str(key), "unknown field", f"use one of {sorted(known)}")
    name = backend.name
    own = {f.name: f.read(data, name) for f in backend.fields}
    if backend.check is not None:
        backend.check(data)
    data, scope = _context_of_several(data, backend)
    identity = data.get("identity", [])
    context_ref, identity_refs = None, {}
    if isinstance(data.get("context"), dict) or (isinstance(identity, list) and
                                                 any(isinstance(i, dict) for i in identity)):
        if not backend.field_paths or data.get("records") is not None:
            raise LayoutError("context", f"a context or identity inside a field is read by "
                              f"{_names(lambda b: b.field_paths)} (without records:), not {name}", "name plain columns")
        context_ref, identity, identity_refs = _slot_refs(data, identity)
    if not isinstance(identity, list) or not all(isinstance(i, str) for i in identity):
        raise LayoutError("identity", "must be a list of field names", "e.g. identity: [id]")
    metadata = data.get("metadata", {}) or {}
    if not isinstance(metadata, dict):
        raise LayoutError("metadata", "must be a mapping of name: field", "e.g. metadata: {role: role}")
    for meta in metadata:
        if meta not in METADATA_NAMES:
            raise LayoutError(f"metadata.{meta}", "unknown metadata name", f"use {list(METADATA_NAMES)}")
    meta_refs = {str(k): refs_of(f"metadata.{k}", v) for k, v in metadata.items()}
    if not backend.field_paths and any(r.path or r.values or len(refs) > 1 for refs in meta_refs.values() for r in refs):
        raise LayoutError("metadata", f"paths inside a field, several places and values are read by "
                          f"{_names(lambda b: b.field_paths)} only, not {name}", "name plain fields (metadata: {role: role})")
    payload = payload_spec(data.get("payload"))
    records = None
    if data.get("records") is not None:
        if backend.list_editor is None:
            readers = registry.readers(lambda b: b.list_editor is not None)
            on = " and ".join([", ".join(readers[:-1]), readers[-1]] if len(readers) > 1 else readers)
            raise LayoutError("records", f"list-element records are edited on {on}, not {name}",
                              "remove records:, or store the list in a SQL table, RedisJSON documents or one JSON file per context")
        records = parse_records(data, identity, metadata, payload, versions=backend.list_versions)
        identity = [".".join(p) for p in records.identity]
        meta_refs = {k: records.places_of(k) for k in records.metadata}
    elif payload.format == "opaque":
        raise LayoutError("payload.format", "an opaque payload needs records: (version rows of a state)",
                          "declare records: {text, version, ...}, or use text | json | msgpack")
    entries = None
    if data.get("map") is not None:
        if backend.map_editor is None or records is not None:
            raise LayoutError("map", f"a keyed map's entries are edited by {_names(lambda b: b.map_editor)} "
                              f"(without records:), not {name}", "remove map:, or keep the map in a SQL column")
        entries = parse_map(data, identity, metadata, payload)
        identity = ["@key"]
        meta_refs = {k: (FieldRef(None, p),) for k, p in entries.metadata.items()}
    for key, value in data.items():  # another backend's field, unless unset (None, "", or the default to_json writes)
        unset = value in (None, "", _DEFAULTS.get(key))
        if key not in COMMON_FIELDS and key not in backend.field_names() and not unset:
            raise LayoutError(str(key), f"read by {_names(lambda b: key in b.field_names())}, not {name}", "drop it")
    return StoreLayout(
        backend=name,
        volume=text_field(data, "volume"),
        file=text_field(data, "file") if backend.kind == registry.FILE else str(data.get("file", "")),
        context=(context_ref.name() if context_ref else text_field(data, "context"))
        if backend.context_field else data.get("context", "{context}"),
        identity=tuple(identity),
        order=text_field(data, "order"),
        payload=payload,
        metadata={k: refs[0].name() if refs[0].field is None else refs[0].field for k, refs in meta_refs.items()},
        meta_refs=meta_refs,
        records=records,
        map=entries,
        context_ref=context_ref,
        identity_refs=identity_refs,
        scope=scope,
        **{k: v for k, v in own.items() if k in _ATTRIBUTES and v is not None},
        options={k: v for k, v in own.items() if k not in _ATTRIBUTES and v is not None},
    )


def _names(test) -> str:
    """The backends for which ``test`` holds, for a message: the sqlite editor, the a/b editors."""
    names = registry.readers(test)
    return f"the {'/'.join(names)} editor{'s' if len(names) > 1 else ''}"


def _context_of_several(data: dict, backend: registry.Backend) -> tuple[dict, tuple[FieldRef, ...]]:
    """``context: [first, *scope]``: the store mapping with ``context`` its first entry, and the refs of
    the others (a field name or {field, path}); a single context gives ``(data, ())``."""
    entries = data.get("context")
    if not isinstance(entries, list):
        return data, ()
    fix = "e.g. context: [session_id, app_name, user_id] (the first holds the lab's context)"
    if not backend.field_paths or data.get("records") is not None:
        raise LayoutError("context", f"a context of several fields is read by {_names(lambda b: b.field_paths)} "
                          f"(without records:), not {backend.name}", "name one field")
    if len(entries) < 2 or not all(isinstance(e, str) and e or isinstance(e, dict) for e in entries):
        raise LayoutError("context", "a context of several fields lists at least two field names or {field, path}",
                          fix)
    refs = [refs_of(f"context[{i}]", e)[0] for i, e in enumerate(entries)]
    if any(r.values or (isinstance(e, dict) and not r.path) for r, e in zip(refs, entries)):
        raise LayoutError("context", "an entry is a field name or {field, path} (a path inside the field)", fix)
    names = [r.name() for r in refs]
    identity = {i if isinstance(i, str) else refs_of("identity", i)[0].name() for i in data.get("identity") or []
                if isinstance(i, (str, dict))}
    if len(set(names)) != len(names) or identity & set(names):
        raise LayoutError("context", f"{names} names a field twice, or one the identity names too (a context "
                          "field is kept with a record, an identity field made fresh on a forge)", fix)
    return {**data, "context": entries[0]}, tuple(refs[1:])


def _slot_refs(data: dict, identity: Any) -> tuple[FieldRef | None, list[str], dict[str, FieldRef]]:
    """A context and identity entries given as {field, path}: (context ref, identity names, refs by name)."""
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
