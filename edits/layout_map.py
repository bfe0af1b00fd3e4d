"""``map:`` of a store layout: records that are the entries of a keyed map (see :mod:`edits.layout`).

A store may keep a context's memory as one map -- a JSON object in a column of the context's row,
``{key: value, ...}`` -- not as a list of records: Google ADK keeps session, user and app state
that way (``sessions.state``, ``user_states.state``, ``app_states.state``). Every entry is then
one record, keyed by (context, key): its identity is the entry's key (``@key``), its order the
entry's place in the object's text (``@position``: the order the SUT wrote the keys in), its served
text the entry's value (or a path inside it, ``map.text``), its metadata paths inside the value
(``map.metadata``, when the values are objects that hold any). ``payload`` names the column holding
the map, and ``payload.path`` where the object sits in it (``[]``: the column is the object).
Read by the SQL editors (:mod:`edits.maps`)::

    store:
      backend: sqlite
      volume: store
      file: sessions.db
      table: user_states
      context: [user_id, app_name]       # a row's scope: the row holds that context's map
      identity: ["@key"]                 # the entry's key: kept on a transplant, fresh on a forge
      order: "@position"                 # the entry's place in the object
      payload: {field: state, format: json}
      map: {text: []}                    # the value itself is the served text

Which cases a map expresses is the profile's capabilities, as for any store: a map is unordered
to a reader that looks its keys up (declare ``capabilities.order: false``), and with no metadata
inside its values (``metadata: false``) ``rollback``, ``swap`` and ``set_meta`` do not apply
(docs/method.md: unordered key-value memory with no metadata layer); ``replace`` (a value changed),
``delete`` (an entry deleted), ``forge`` (an entry added under a fresh key), ``transplant`` (a value
replayed under the victim's key) and the whole-volume operations do. Declared ordered, ``rollback``
deletes the last entry and ``swap`` exchanges two entries' places in the object.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from edits.layout_fields import METADATA_NAMES, POSITION, LayoutError, PayloadSpec, path_of

KEY = "@key"  # the identity of an entry: its key in the map


@dataclass(frozen=True)
class MapEntries:
    """``map:`` -- records are the entries of the object at ``payload.path`` in each row: the served
    text at ``text`` inside an entry's value (``()``: the value), metadata at paths inside it."""

    text: tuple[str, ...] = ()
    metadata: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Plain data for result rows."""
        return {"text": list(self.text), "metadata": {k: list(v) for k, v in self.metadata.items()}}


def parse_map(data: dict, identity: Any, metadata: dict, payload: PayloadSpec) -> MapEntries:
    """``map:``: the entries of a JSON object in each row (the backend's editor reads them:
    :func:`edits.layout.parse_layout` checks that)."""
    raw = data["map"]
    fix = "e.g. map: {text: []} (the value is the text), or map: {text: [text], metadata: {role: [role]}}"
    if not isinstance(raw, dict) or set(raw) - {"text", "metadata"}:
        raise LayoutError("map", "must be a mapping of text (a path inside an entry's value) and metadata", fix)
    if identity not in ([], [KEY]):
        raise LayoutError("identity", "an entry of a map is identified by its key", f'write identity: ["{KEY}"]')
    if metadata:
        raise LayoutError("metadata", "the metadata of a map's entries sits inside their values",
                          "move it to map.metadata as paths inside an entry's value")
    if data.get("order") != POSITION:
        raise LayoutError("order", "a map's entries are ordered by their place in the object",
                          f'write order: "{POSITION}"')
    if payload.format != "json":
        raise LayoutError("payload.format", "a map is a JSON object", "write payload: {field: <column>, format: json}")
    text = raw.get("text", [])
    if not isinstance(text, list) or not all(isinstance(p, (str, int)) and not isinstance(p, bool) for p in text):
        raise LayoutError("map.text", "must be a path inside an entry's value ([]: the value itself)", fix)
    meta = raw.get("metadata") or {}
    if not isinstance(meta, dict) or any(k not in METADATA_NAMES for k in meta):
        raise LayoutError("map.metadata", f"must map {list(METADATA_NAMES)} to paths inside an entry's value", fix)
    return MapEntries(text=tuple(str(p) for p in text),
                      metadata={str(k): path_of(f"map.metadata.{k}", v) for k, v in meta.items()})
