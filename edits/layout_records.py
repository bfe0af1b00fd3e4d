"""``records:`` of a store layout (see :mod:`edits.layout` for the rest of it).

Records that are elements of a list inside one stored value (sqlite, postgres, redis's JSON
documents: :mod:`edits.redis_json`): each row
of the table is one *version* of a context's state, the row with the greatest
``version`` is current, and every element of the list at ``payload.path`` in
the current row is one record. ``records.text``, ``records.identity`` and
``records.metadata`` are paths inside one element; ``cascade`` names rows of
other tables that belong to a version row and go with it when it is deleted;
``parent`` (optional) the column linking a version row to the one it follows, set
on a new version row of the adversary's authorship (``version=new``, :mod:`edits.lists`)
and shown in each record's locator.

A metadata field the element keeps in several places, each with its own vocabulary, is a
list of places ``{path, values}`` (the first one is read; ``values`` maps the lab's word to
what that place stores): ``set_meta`` sets every place to its encoding of the new word, and offers
each place alone as a ``place=<path>`` variant (:mod:`edits.places`)::

    metadata:
      role:
        - {path: [kwargs, type], values: {user: human, assistant: ai, system: system}}
        - {path: [id, 3], values: {user: HumanMessage, assistant: AIMessage, system: SystemMessage}}

The whole layout of list-element records::

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
        identity: [[2, id]]              # kept on a transplant, fresh on a forge
        metadata: {role: [2, type]}
        version: checkpoint_id           # the newest version row of a context is current
        parent: parent_checkpoint_id     # optional: the column linking a version row to the one before
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
:mod:`edits.version_rows`), and -- where ``payload.forms`` declares another form the reader
accepts -- a whole row written in that form (:mod:`edits.forms`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from edits.layout_fields import (METADATA_NAMES, POSITION, FieldRef, LayoutError, PayloadSpec, path_of, refs_of,
                                 same_words, vocabulary_of)


@dataclass(frozen=True)
class Cascade:
    """Rows of ``table`` that belong to a version row: equal values in the ``key`` columns."""

    table: str
    key: tuple[str, ...]


@dataclass(frozen=True)
class PayloadRow:
    """``records.payload_row``: the row of ``table`` holding a version row's payload -- its ``key``
    columns equal the version row's values at the refs, its ``where`` columns the constants."""

    table: str
    key: dict[str, FieldRef]
    where: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Plain data for result rows."""
        return {"table": self.table, "where": dict(self.where),
                "key": {c: {"field": r.field, "path": list(r.path)} for c, r in self.key.items()}}


@dataclass(frozen=True)
class ElementRecords:
    """``records:`` -- records are the elements of the list at ``payload.path`` in the
    current version row of each context."""

    text: tuple[str, ...]
    version: str | None  # None: one list per context, no version rows (a backend's ``list_versions=False``)
    identity: tuple[tuple[str, ...], ...] = ()
    metadata: dict[str, tuple[str, ...]] = field(default_factory=dict)
    cascade: tuple[Cascade, ...] = ()
    payload_row: PayloadRow | None = None
    parent: str | None = None
    places: dict[str, tuple[FieldRef, ...]] = field(default_factory=dict)  # fields declared as lists of places

    def places_of(self, name: str) -> tuple[FieldRef, ...]:
        """Every place of metadata field ``name`` in an element (the first is ``metadata[name]``)."""
        return self.places.get(name) or (FieldRef(None, self.metadata[name]),)

    def to_json(self) -> dict[str, Any]:
        """Plain data for result rows (``places`` only where a field was declared as places)."""
        return {"text": list(self.text), **({"version": self.version} if self.version is not None else {}),
                "identity": [list(p) for p in self.identity],
                "metadata": {k: list(v) for k, v in self.metadata.items()},
                **({"places": {k: [{"path": list(r.path), **({"values": dict(r.values)} if r.values else {})}
                                   for r in refs] for k, refs in self.places.items()}} if self.places else {}),
                "cascade": [{"table": c.table, "key": list(c.key)} for c in self.cascade],
                **({"payload_row": self.payload_row.to_json()} if self.payload_row else {}),
                **({"parent": self.parent} if self.parent else {})}


def parse_records(data: dict, identity: list, metadata: dict, payload: PayloadSpec,
                  versions: bool = True) -> ElementRecords:
    """``records:``: elements of a list inside the payload of each context's current version row
    (the backend's editor reads them: :func:`edits.layout.parse_layout` checks that); ``versions``
    False: of the one list a context keeps (a document per context), so no version, parent,
    cascade or payload row."""
    raw = data["records"]
    if not isinstance(raw, dict) or set(raw) - {"text", "identity", "metadata", "version", "parent", "cascade",
                                                "payload_row"}:
        raise LayoutError("records", "must be a mapping of text, identity, metadata, version, parent, cascade, "
                          "payload_row",
                          "e.g. records: {text: [2, content], version: checkpoint_id}")
    if identity or metadata:
        raise LayoutError("records", "identity and metadata of list elements go inside records:",
                          "move them to records.identity / records.metadata as paths inside an element")
    if data.get("order") != POSITION:
        raise LayoutError("order", "list elements are ordered by their place in the list",
                          f'write order: "{POSITION}"')
    explicit = isinstance(data.get("payload"), dict) and "path" in data["payload"]  # path: [] = the whole value
    if payload.format not in ("json", "msgpack", "opaque") or (payload.format != "opaque" and not explicit):
        raise LayoutError("payload", "records: needs the path of the list inside a json or msgpack payload",
                          "e.g. payload: {field: checkpoint, format: msgpack, path: [channel_values, messages]}")
    if not versions:
        extra = [k for k in ("version", "parent", "cascade", "payload_row") if raw.get(k)]
        if extra:
            raise LayoutError(f"records.{extra[0]}", f"the {data.get('backend')} backend keeps one list per "
                              "context, with no version rows", f"drop records.{extra[0]}")
    elif not isinstance(raw.get("version"), str) or not raw["version"]:
        raise LayoutError("records.version", "missing", "name the column that orders a context's version rows")
    if raw.get("parent") is not None and (not isinstance(raw["parent"], str) or not raw["parent"]):
        raise LayoutError("records.parent", "must name the column (or member) holding the parent version",
                          "e.g. parent: parent_checkpoint_id, or leave it out")
    ident = raw.get("identity", [])
    if not isinstance(ident, list):
        raise LayoutError("records.identity", "must be a list of paths", "e.g. identity: [[2, id]]")
    meta = raw.get("metadata", {}) or {}
    if not isinstance(meta, dict) or any(k not in METADATA_NAMES for k in meta):
        raise LayoutError("records.metadata", f"must map {list(METADATA_NAMES)} to paths", "e.g. {role: [2, type]}")
    places = {str(k): element_places(f"records.metadata.{k}", v) for k, v in meta.items() if _is_places(v)}
    cascade = []
    for i, item in enumerate(raw.get("cascade", []) or []):
        if not isinstance(item, dict) or not isinstance(item.get("table"), str) or not isinstance(item.get("key"), list) \
                or not item["key"] or not all(isinstance(k, str) for k in item["key"]):
            raise LayoutError(f"records.cascade[{i}]", "each cascade is {table, key: [columns]}",
                              "e.g. {table: writes, key: [thread_id, checkpoint_id]}")
        cascade.append(Cascade(item["table"], tuple(item["key"])))
    return ElementRecords(text=path_of("records.text", raw.get("text")), version=raw.get("version") or None,
                          identity=tuple(path_of(f"records.identity[{i}]", p) for i, p in enumerate(ident)),
                          metadata={str(k): places[k][0].path if k in places else path_of(f"records.metadata.{k}", v)
                                    for k, v in meta.items()},
                          cascade=tuple(cascade), payload_row=_payload_row(raw.get("payload_row")),
                          parent=raw.get("parent"), places=places)


def _is_places(value: Any) -> bool:
    """True for a metadata entry given as places ({path, values} or a list of them), not as one path."""
    return isinstance(value, dict) or (isinstance(value, list) and any(isinstance(v, dict) for v in value))


def element_places(where: str, value: Any) -> tuple[FieldRef, ...]:
    """A metadata field given as places inside an element: {path[, values]} or a list of them
    (also the ``places`` of :meth:`ElementRecords.to_json`, read back)."""
    items = value if isinstance(value, list) else [value]
    out = []
    for i, item in enumerate(items):
        at = f"{where}[{i}]" if isinstance(value, list) else where
        if not isinstance(item, dict) or "path" not in item or set(item) - {"path", "values"}:
            raise LayoutError(at, "a place inside an element is {path[, values]}",
                              "e.g. {path: [kwargs, type], values: {user: human, assistant: ai}}")
        out.append(FieldRef(None, path_of(f"{at}.path", item["path"]), "json",
                            vocabulary_of(f"{at}.values", item.get("values"))))
    if len({r.path for r in out}) != len(out):
        raise LayoutError(where, "names one path twice", "list each place once")
    return same_words(where, tuple(out))


def _payload_row(raw: Any) -> PayloadRow | None:
    """``records.payload_row``: {table, key: {column: source column or {field, path}}, where: {column: value}}."""
    if raw is None:
        return None
    fix = "e.g. payload_row: {table: blobs, key: {version: {field: doc, path: [versions, messages]}}}"
    if not isinstance(raw, dict) or set(raw) - {"table", "key", "where"} or not isinstance(raw.get("table"), str) \
            or not isinstance(raw.get("key"), dict) or not raw["key"] or not isinstance(raw.get("where", {}), dict):
        raise LayoutError("records.payload_row", "must be {table, key: {column: source}, where: {column: value}}", fix)
    key = {str(c): refs_of(f"records.payload_row.key.{c}", v)[0] for c, v in raw["key"].items()}
    return PayloadRow(raw["table"], key, dict(raw.get("where") or {}))
