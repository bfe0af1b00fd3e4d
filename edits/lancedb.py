"""Generic editor for LanceDB tables, through LanceDB's own library.

A LanceDB database is a folder (``layout.file`` inside the volume) with one
``<table>.lance`` dataset per table: data fragments, deletion files, indices
and one manifest per version. The editor opens it with ``lancedb.connect`` --
the store's generic library, never the SUT's code -- edits ``layout.table``
with the SUT stopped, and reads the newest version, as a reader of the table
does. A record is a row; its identity is the single column ``layout.identity``
(kept on a transplant, fresh on a forge); ``context``, ``order``, ``payload`` and
``metadata`` name columns, and ``context_pattern`` says how the context column
holds the lab's context (CrewAI keeps a scope path, ``"/{context}"``).

Every call commits a new table version; Lance keeps the older versions (and so
the genuine rows) in the folder until someone cleans them up, and the editor
leaves them there. The record operations (:mod:`edits.ops`) are :mod:`edits.fieldstore`'s, over
``update`` (set columns of a row), ``delete`` and ``merge_insert`` on the
identity column (upsert a whole row, its vector column included);
``statements`` are those calls, with their arguments.

Example (a table written with LanceDB, as CrewAI writes its memory)::

    >>> import lancedb, pathlib, tempfile
    >>> from edits import lancedb as lance_editor, layout, model
    >>> vol = pathlib.Path(tempfile.mkdtemp())
    >>> _ = lancedb.connect(str(vol / "memory")).create_table("memories", data=[
    ...     {"id": "r1", "content": "mA1-q FACT-A1", "scope": "/A", "created_at": "2024-05-02T10:00:01",
    ...      "source": "chat", "vector": [1.0, 0.0]},
    ...     {"id": "r2", "content": "mA2-q hello", "scope": "/A", "created_at": "2024-05-02T10:00:02",
    ...      "source": "chat", "vector": [0.0, 1.0]}])
    >>> lay = layout.parse_layout({"backend": "lancedb", "volume": "store", "file": "memory", "table": "memories",
    ...                            "context": "scope", "context_pattern": "/{context}", "identity": ["id"],
    ...                            "order": "created_at", "payload": "content", "metadata": {"source": "source"}})
    >>> editor = lance_editor.LanceDBEditor(lay, vol)
    >>> editor.apply(model.EditSpec("demo", "A", "mA2-q", op="delete")).statements
    ['delete(where="id = \\'r2\\'")']
    >>> [(r.context, r.payload) for r in editor.records()]
    [('A', 'mA1-q FACT-A1')]
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from edits.fieldstore import CONTEXT_PATTERN, Call, FieldStoreEditor
from edits.layout import StoreLayout
from edits.model import EditError, Record
from edits.records import decode_payload, sort_records
from edits.registry import FILE, Backend, Field, register


class LanceDBEditor(FieldStoreEditor):
    """Edits the rows of ``layout.table`` in a LanceDB database folder of one volume."""

    backend = "lancedb"

    def __init__(self, layout: StoreLayout, volume_path: Path):
        if len(layout.identity) != 1:
            raise EditError(f"lancedb: identity must name exactly one column (the row id), not {list(layout.identity)}")
        self.layout = layout
        self.key = layout.identity[0]
        self.path = Path(volume_path) / layout.file

    def files(self) -> list[Path]:
        """Every file of the database folder."""
        return sorted(p for p in self.path.rglob("*") if p.is_file())

    def _table(self) -> Any:
        if not (self.path / f"{self.layout.table}.lance").is_dir():
            raise EditError(f"{self.layout.file}: no LanceDB table {self.layout.table!r} "
                            f"({self.layout.table}.lance) in the volume")
        lancedb = _import_client()  # here, not above: finding the backends imports this module, not the library

        return lancedb.connect(str(self.path)).open_table(self.layout.table)

    def records(self) -> list[Record]:
        """Every row of the table's newest version as a Record, sorted by (context, order)."""
        rows = self._table().to_arrow().to_pylist()
        return sort_records(self._record(row) for row in rows)

    def _record(self, row: dict[str, Any]) -> Record:
        lay = self.layout
        return Record(context=self._context_of(row.get(lay.context)), identity=(row.get(self.key),),
                      order=row.get(lay.order), payload=decode_payload(row.get(lay.payload.field, ""), lay.payload),
                      metadata={n: row.get(f) for n, f in lay.metadata.items()}, fields=dict(row),
                      locator={"table": lay.table, "id": row.get(self.key)})

    def _where(self, record_id: Any) -> str:
        if isinstance(record_id, (int, float)) and not isinstance(record_id, bool):
            return f"{self.key} = {record_id}"
        return f"{self.key} = '" + str(record_id).replace("'", "''") + "'"

    def _run(self, calls: list[Call]) -> list[str]:
        """Make ``(method, kwargs)`` calls on the table, one commit each; return them as text."""
        table, statements = self._table(), []
        for method, kwargs in calls:
            statements.append(f"{method}(" + ", ".join(f"{k}={_short(v)}" for k, v in kwargs.items()) + ")")
            try:
                if method == "merge_insert":
                    (table.merge_insert(self.key).when_matched_update_all().when_not_matched_insert_all()
                     .execute(kwargs["data"]))
                else:
                    getattr(table, method)(**kwargs)
            except (ValueError, OSError, RuntimeError) as exc:
                raise EditError(f"lancedb refused {statements[-1][:200]}: {exc}") from exc
        return statements

    def _set(self, rec: Record, values: dict[str, Any]) -> Call:
        return "update", {"where": self._where(rec.locator["id"]), "values": values}

    def _remove(self, rec: Record) -> Call:
        return "delete", {"where": self._where(rec.locator["id"])}

    def _upsert(self, record_id: Any, fields: dict[str, Any], vector_of: Record) -> Call:
        """The whole row (its vector column comes with ``fields``) merged on the identity column."""
        return "merge_insert", {"on": self.key, "data": [fields]}


def _short(value: Any) -> str:
    """A call argument as text, long float vectors elided (a copied vector is the template's or the
    donor's, which the edit's detail names)."""
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return "[" + ", ".join(_short(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_short(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list) and len(value) > 8 and all(isinstance(v, float) for v in value):
        return f"[<{len(value)} floats>]"
    return repr(value)


def _import_client():
    """The storage client: the one place the editor imports it (and what registry.warm calls ahead)."""
    import lancedb

    return lancedb


BACKEND = register(Backend(
    "lancedb", FILE, editor=LanceDBEditor, client=_import_client,
    fields=(Field("table", required=True, fix="name the table that holds the records"), CONTEXT_PATTERN)))
