"""Generic editor for Qdrant local-mode stores, through Qdrant's own client.

Qdrant's local mode (``QdrantClient(path=...)``) keeps a folder: ``meta.json`` and
``collection/<name>/storage.sqlite`` with pickled points. The editor opens that
folder (``layout.file`` inside the volume) with ``qdrant_client.QdrantClient`` --
the store's generic client, never the SUT's code -- and never unpickles by hand.
Local mode takes a ``.lock`` on the folder: the SUT must be stopped (the lab
edits with the SUT stopped). A record is a point of ``layout.collection``; its
identity is the point id (always kept on T6/T7, fresh on T5); ``context``,
``order``, ``payload`` and ``metadata`` name payload fields. Every edit is one
client session; ``statements`` are the client calls made, with their arguments.

- T1 replaces the token in every string payload field that holds it; T2/T3
  delete the point; T4 exchanges the order field of two points; T5 upserts a
  copy of the template (payload and vectors) with a fresh id, the marker
  replaced and the next order value; T6/T7 upsert the donor's payload and vectors
  at the victim's id, keeping the victim's context, identity and order fields;
  T8 sets one metadata field.

Example::

    from pathlib import Path
    from edits.layout import parse_layout
    from edits.model import EditSpec
    from edits.qdrant import QdrantEditor

    layout = parse_layout({"backend": "qdrant", "volume": "store", "file": "qdrant", "collection": "mem",
                           "context": "user_id", "order": "created_at", "payload": "data",
                           "metadata": {"role": "role"}})
    editor = QdrantEditor(layout, Path("/path/to/volume"))
    print(editor.apply(EditSpec("T3", "A", "mA2-q1w2e3")).statements)
    # ["delete(collection_name='mem', points_selector=PointIdsList(points=['...']))"]
"""

from __future__ import annotations

import copy
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from qdrant_client import QdrantClient, models

from edits.layout import StoreLayout
from edits.model import EditError, Record
from edits.plan import EditorBase, Outcome, Plan
from edits.records import contains, decode_payload, replace_same_length, sort_records
from edits.values import fresh_identity, next_order


class QdrantEditor(EditorBase):
    """Edits the points of ``layout.collection`` in a local-mode folder of one volume."""

    backend = "qdrant"

    def __init__(self, layout: StoreLayout, volume_path: Path):
        self.layout = layout
        self.path = Path(volume_path) / layout.file
        self.vectors: dict[str, Any] = {}

    def files(self) -> list[Path]:
        """Every file of the local-mode folder but its lock."""
        return sorted(p for p in self.path.rglob("*") if p.is_file() and p.name != ".lock")

    @contextmanager
    def _client(self) -> Iterator[QdrantClient]:
        if not (self.path / "meta.json").is_file():
            raise EditError(f"{self.layout.file}: no Qdrant local-mode store (meta.json) in the volume")
        try:
            client = QdrantClient(path=str(self.path))
        except RuntimeError as exc:  # the folder is locked: a process still holds the store
            raise EditError(f"qdrant refused to open {self.layout.file} (is the SUT stopped?): {exc}") from exc
        try:
            if not client.collection_exists(self.layout.collection):
                raise EditError(f"{self.layout.file}: no collection {self.layout.collection!r}")
            yield client
        finally:
            client.close()

    def records(self) -> list[Record]:
        """Every point of the collection as a Record, sorted by (context, order)."""
        lay, points, offset = self.layout, [], None
        with self._client() as client:
            while True:
                batch, offset = client.scroll(lay.collection, limit=256, offset=offset,
                                              with_payload=True, with_vectors=True)
                points += batch
                if offset is None:
                    break
        self.vectors = {str(p.id): p.vector for p in points}
        return sort_records(self._record(p.id, p.payload or {}) for p in points)

    def _record(self, point_id: Any, payload: dict[str, Any]) -> Record:
        lay = self.layout
        return Record(context=str(payload.get(lay.context)), identity=(str(point_id),), order=payload.get(lay.order),
                      payload=decode_payload(payload.get(lay.payload.field, ""), lay.payload),
                      metadata={n: payload.get(f) for n, f in lay.metadata.items()}, fields=dict(payload),
                      locator={"collection": lay.collection, "id": str(point_id)})

    def _run(self, calls: list[tuple[str, dict[str, Any]]]) -> list[str]:
        """Make ``(method, kwargs)`` client calls on the collection in one session; return them as text."""
        statements = []
        with self._client() as client:
            for method, kwargs in calls:
                kwargs = {"collection_name": self.layout.collection, **kwargs}
                statements.append(f"{method}(" + ", ".join(f"{k}={v!r}" for k, v in kwargs.items()) + ")")
                try:
                    getattr(client, method)(**kwargs)
                except (ValueError, KeyError) as exc:
                    raise EditError(f"qdrant refused {statements[-1][:200]}: {exc}") from exc
        return statements

    def _kept(self) -> set[str]:
        """Payload fields that stay with a point's slot: context, identity, order."""
        return {self.layout.context, self.layout.order, *self.layout.identity}

    def _set(self, rec: Record, payload: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return "set_payload", {"payload": payload, "points": [rec.locator["id"]]}

    def _upsert(self, point_id: str, vector: Any, payload: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return "upsert", {"points": [models.PointStruct(id=point_id, vector=vector, payload=payload)]}

    def _replace(self, p: Plan) -> Outcome:
        skip = {self.layout.context, *self.layout.identity}
        new = {k: replace_same_length(v, p.spec.find, p.spec.replace) for k, v in p.target.fields.items()
               if k not in skip and contains(v, p.spec.find)}
        if self.layout.payload.field not in new:
            raise EditError(f"{p.spec.find!r} is not in the payload field {self.layout.payload.field!r}")
        return Outcome(self._run([self._set(p.target, new)]), [p.target.key()], {"fields": sorted(new)})

    def _delete(self, p: Plan) -> Outcome:
        selector = models.PointIdsList(points=[p.target.locator["id"]])
        return Outcome(self._run([("delete", {"points_selector": selector})]), [p.target.key()])

    def _swap(self, p: Plan) -> Outcome:
        a, b, order = p.target, p.other, self.layout.order
        stmts = self._run([self._set(a, {order: b.fields.get(order)}), self._set(b, {order: a.fields.get(order)})])
        return Outcome(stmts, [a.key(), b.key()], {"swapped": [order]})

    def _forge(self, p: Plan) -> Outcome:
        new_id = fresh_identity([r.locator["id"] for r in p.records])
        payload = {k: replace_same_length(v, p.spec.find, p.spec.replace) if contains(v, p.spec.find) else v
                   for k, v in copy.deepcopy(p.target.fields).items()}
        payload[self.layout.order] = next_order(r.order for r in p.in_context(p.target.context))
        stmts = self._run([self._upsert(new_id, self.vectors[p.target.locator["id"]], payload)])
        return Outcome(stmts, [new_id], {"template": p.target.key(), "new": new_id})

    def _transplant(self, p: Plan) -> Outcome:
        payload = copy.deepcopy(p.other.fields)
        for name in self._kept():
            if name in p.target.fields:
                payload[name] = p.target.fields[name]
        stmts = self._run([self._upsert(p.target.locator["id"], self.vectors[p.other.locator["id"]], payload)])
        return Outcome(stmts, [p.target.key()], {"donor": p.other.key(), "kept": sorted(self._kept())})

    def _set_meta(self, p: Plan) -> Outcome:
        name = self.layout.metadata[p.spec.meta_field]
        return Outcome(self._run([self._set(p.target, {name: p.meta_value})]), [p.target.key()],
                       {"field": name, "old": p.target.metadata.get(p.spec.meta_field), "new": p.meta_value})
