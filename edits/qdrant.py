"""Generic editor for Qdrant local-mode stores, through Qdrant's own client.

Qdrant's local mode (``QdrantClient(path=...)``) keeps a folder: ``meta.json`` and
``collection/<name>/storage.sqlite`` with pickled points. The editor opens that
folder (``layout.file`` inside the volume) with ``qdrant_client.QdrantClient`` --
the store's generic client, never the SUT's code -- and never unpickles by hand.
Local mode takes a ``.lock`` on the folder: the SUT must be stopped (the lab
edits with the SUT stopped). A record is a point of ``layout.collection``; its
identity is the point id (always kept on a transplant, fresh on a forge); ``context``,
``order``, ``payload`` and ``metadata`` name payload fields. Every edit is one
client session; ``statements`` are the client calls made, with their arguments.

The record operations (:mod:`edits.ops`) are :mod:`edits.fieldstore`'s, over the three
client calls ``set_payload``, ``delete`` and ``upsert`` (a point's vectors go
with its payload on a forge or a transplant).

Example (a store written with Qdrant's client, as a SUT would)::

    >>> import pathlib, tempfile
    >>> from edits import layout, model, qdrant
    >>> from qdrant_client import QdrantClient, models
    >>> vol = pathlib.Path(tempfile.mkdtemp())
    >>> client = QdrantClient(path=str(vol / "qdrant"))
    >>> _ = client.create_collection("mem", vectors_config=models.VectorParams(size=2, distance=models.Distance.DOT))
    >>> _ = client.upsert("mem", points=[
    ...     models.PointStruct(id=n, vector=[1.0, float(n)], payload={"data": text, "user_id": "A", "created_at": n})
    ...     for n, text in ((1, "mA1-q FACT-A1"), (2, "mA2-q hi"))])
    >>> client.close()
    >>> lay = layout.parse_layout({"backend": "qdrant", "volume": "store", "file": "qdrant", "collection": "mem",
    ...                            "context": "user_id", "order": "created_at", "payload": "data"})
    >>> editor = qdrant.QdrantEditor(lay, vol)
    >>> editor.apply(model.EditSpec("demo", "A", "mA2-q", op="delete")).statements  # doctest: +ELLIPSIS
    ["delete(collection_name='mem', points_selector=PointIdsList(points=[2]...))"]
    >>> [r.payload for r in editor.records()]
    ['mA1-q FACT-A1']
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from edits.fieldstore import CONTEXT_PATTERN, Call, FieldStoreEditor
from edits.layout import StoreLayout
from edits.model import EditError, Record
from edits.records import decode_payload, sort_records
from edits.registry import FILE, Backend, Field, register

if TYPE_CHECKING:
    from qdrant_client import QdrantClient


class QdrantEditor(FieldStoreEditor):
    """Edits the points of ``layout.collection`` in a local-mode folder of one volume."""

    backend = "qdrant"

    def __init__(self, layout: StoreLayout, volume_path: Path):
        self.layout = layout
        self.path = Path(volume_path) / layout.file
        self.vectors: dict[Any, Any] = {}

    def files(self) -> list[Path]:
        """Every file of the local-mode folder but its lock."""
        return sorted(p for p in self.path.rglob("*") if p.is_file() and p.name != ".lock")

    @contextmanager
    def _client(self) -> Iterator[QdrantClient]:
        if not (self.path / "meta.json").is_file():
            raise EditError(f"{self.layout.file}: no Qdrant local-mode store (meta.json) in the volume")
        try:
            # the client imported here: finding the backends imports this module, not the client
            client = _import_client().QdrantClient(path=str(self.path))
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
        self.vectors = {p.id: p.vector for p in points}
        return sort_records(self._record(p.id, p.payload or {}) for p in points)

    def _record(self, point_id: Any, payload: dict[str, Any]) -> Record:
        lay = self.layout
        return Record(context=self._context_of(payload.get(lay.context)), identity=(str(point_id),), order=payload.get(lay.order),
                      payload=decode_payload(payload.get(lay.payload.field, ""), lay.payload),
                      metadata={n: payload.get(f) for n, f in lay.metadata.items()}, fields=dict(payload),
                      locator={"collection": lay.collection, "id": point_id})  # as stored: an int or a UUID text

    def _run(self, calls: list[Call]) -> list[str]:
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

    def _set(self, rec: Record, values: dict[str, Any]) -> Call:
        return "set_payload", {"payload": values, "points": [rec.locator["id"]]}

    def _remove(self, rec: Record) -> Call:
        models = _import_client().models

        return "delete", {"points_selector": models.PointIdsList(points=[rec.locator["id"]])}

    def _upsert(self, record_id: Any, fields: dict[str, Any], vector_of: Record) -> Call:
        models = _import_client().models

        vector = self.vectors[vector_of.locator["id"]]
        return "upsert", {"points": [models.PointStruct(id=record_id, vector=vector, payload=fields)]}


def _import_client():
    """The storage client: the one place the editor imports it (and what registry.warm calls ahead)."""
    import qdrant_client

    return qdrant_client


BACKEND = register(Backend(
    "qdrant", FILE, editor=QdrantEditor, client=_import_client,
    fields=(Field("collection", required=True, fix="name the collection that holds the records"), CONTEXT_PATTERN)))
