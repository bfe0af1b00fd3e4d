"""Generic editor for SQLite stores: one table, one row per record.

Reads never write to the volume (``immutable=1``, or a temporary copy when a
WAL or journal sidecar is present, so its content is seen). Each edit is one
``BEGIN IMMEDIATE`` ... ``COMMIT`` transaction, and the exact statements SQLite ran (parameters
expanded, from ``set_trace_callback``) are returned in ``AppliedEdit.statements``.
Rows are addressed by ``rowid`` (by primary key for WITHOUT ROWID tables).
Primary-key columns count as identity even when the layout does not list them:
``swap`` and ``transplant`` never copy them and ``forge`` gives them fresh values. ``replace`` replaces the token
in every text/BLOB column of the row that holds it (bytes for BLOBs, raw JSON
text for JSON columns), the payload column included; where it sits in several places, each
is a variant (``place=<column>``, ``place=<column>.<path>``), and so is each declared place of
a ``set_meta`` metadata field (:mod:`edits.places`, the hooks in :mod:`edits.sql`).

Example::

    >>> import sqlite3, tempfile, pathlib
    >>> from edits import layout, model, sqlite
    >>> vol = pathlib.Path(tempfile.mkdtemp())
    >>> db = sqlite3.connect(vol / "memory.db")
    >>> _ = db.execute("CREATE TABLE records (id INTEGER PRIMARY KEY, ctx TEXT, body TEXT)")
    >>> _ = db.executemany("INSERT INTO records (ctx, body) VALUES (?, ?)",
    ...                    [("A", "mA1-q first FACT-A1"), ("A", "mA2-q second")])
    >>> db.commit(); db.close()
    >>> lay = layout.parse_layout({"backend": "sqlite", "volume": "store", "file": "memory.db",
    ...                            "table": "records", "context": "ctx", "identity": ["id"],
    ...                            "order": "id", "payload": "body"})
    >>> editor = sqlite.SqliteEditor(lay, vol)
    >>> done = editor.apply(model.EditSpec("demo", "A", "mA1-q", find="FACT-A1", replace="FACT-Z9", op="replace"))
    >>> done.statements
    ['BEGIN IMMEDIATE', 'UPDATE "records" SET "body" = \\'mA1-q first FACT-Z9\\' WHERE rowid = 1', 'COMMIT']
    >>> [r.payload for r in editor.records()]
    ['mA1-q first FACT-Z9', 'mA2-q second']

A layout with ``records:`` gets a :class:`~edits.lists.ListEditor` over its rows (:func:`list_editor`), one with ``map:`` a
:class:`~edits.maps.MapEditor` over a :class:`SqliteEditor` (see :mod:`edits.maps`).
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from edits import derived
from edits.derived_layout import parse_derived
from edits.layout import StoreLayout
from edits.layout_fields import LayoutError
from edits.lists import ListEditor
from edits.maps import MapEditor
from edits.model import EditError, Record
from edits.records import decode_payload, read_metadata, sort_records
from edits.registry import FILE, Backend, Field, register
from edits.sql import SqlEditor
from edits.sqlnames import quote as _q
from edits.version_rows import SqlVersions


class SqliteEditor(SqlEditor):
    """Edits ``layout.table`` in the SQLite file ``layout.file`` of one volume."""

    backend = "sqlite"

    def __init__(self, layout: StoreLayout, volume_path: Path):
        self.layout = layout
        self.path = Path(volume_path) / layout.file
        self.position = layout.ordered_by_position

    def files(self) -> list[Path]:
        """The database file and its WAL sidecar."""
        return [self.path, self.path.with_name(self.path.name + "-wal")]

    def _connect(self) -> sqlite3.Connection:
        if not self.path.is_file():
            raise EditError(f"{self.layout.file}: no such database in the volume")
        return sqlite3.connect(self.path, isolation_level=None)

    @contextmanager
    def _reader(self) -> Iterator[sqlite3.Connection]:
        """A connection that never writes to the volume.

        With no WAL/journal sidecar the file is the whole database: ``immutable=1``
        reads it without locks and without creating -wal/-shm files. With one, a
        copy (file + sidecar) is read, so the sidecar's content is seen.
        """
        if not self.path.is_file():
            raise EditError(f"{self.layout.file}: no such database in the volume")
        with tempfile.TemporaryDirectory(prefix="memlab-sqlite-") as tmp:
            sidecars = [s for s in ("-wal", "-journal") if Path(f"{self.path}{s}").exists()]
            if sidecars:
                for suffix in ("", *sidecars):
                    shutil.copy2(f"{self.path}{suffix}", Path(tmp) / f"db{suffix}")
                conn = sqlite3.connect(Path(tmp) / "db")
            else:
                conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?immutable=1", uri=True)
            try:
                yield conn
            finally:
                conn.close()

    def records(self) -> list[Record]:
        """Every row of the table as a Record, sorted by (context, order)."""
        lay, table = self.layout, self.layout.table
        with self._reader() as conn:
            info = conn.execute(f"PRAGMA table_xinfo({_q(table)})").fetchall()
            if not info:
                raise EditError(f"{lay.file}: no table {table!r}")
            self.pk = [r[1] for r in sorted(info, key=lambda r: r[5]) if r[5] > 0]
            self.readonly = {r[1] for r in info if r[6] not in (0, 1)}
            try:
                cur = conn.execute(f"SELECT rowid, * FROM {_q(table)}")
                self.rowid = True
            except sqlite3.OperationalError:
                cur = conn.execute(f"SELECT NULL, * FROM {_q(table)}")
                self.rowid = False
            self.columns = [d[0] for d in cur.description[1:]]
            rows = cur.fetchall()
        wanted = [lay.context_ref.field if lay.context_ref else lay.context,
                  *(lay.identity_refs[i].field if i in lay.identity_refs else i for i in lay.identity),
                  lay.payload.field, *(r.field for r in lay.scope),
                  *(r.field for refs in lay.meta_refs.values() for r in refs)]
        missing = [c for c in wanted + ([] if self.position else [lay.order]) if c not in self.columns]
        if missing:
            raise EditError(f"{lay.file}: table {table!r} has no column(s) {missing} named by the layout")
        out = sort_records(self._record(row[0], dict(zip(self.columns, row[1:]))) for row in rows)
        return derived.attach(self, out)  # each record's context's derived values checked (store.derived)

    def _record(self, rowid: Any, fields: dict[str, Any]) -> Record:
        lay = self.layout
        where = {"rowid": rowid} if self.rowid else {"pk": {c: fields[c] for c in self.pk}}
        identity = self._identity_of(fields) or ((rowid,) if self.rowid else tuple(where["pk"].values()))
        return Record(context=str(self._context_of(fields)), identity=identity,
                      order=rowid if self.position else fields[lay.order],
                      payload=decode_payload(fields[lay.payload.field], lay.payload),
                      metadata=read_metadata(lay, fields), fields=fields,
                      locator={"file": lay.file, "table": lay.table, **where}, scope=self._scope_of(fields))

    def _fetch_table(self, table: str) -> tuple[list[str], list[tuple[dict[str, Any], dict[str, Any]]]]:
        """Every row of ``table``: (columns, [({"rowid": n}, fields)])."""
        with self._reader() as conn:
            if not conn.execute(f"PRAGMA table_xinfo({_q(table)})").fetchall():
                raise EditError(f"{self.layout.file}: no table {table!r}")
            cur = conn.execute(f"SELECT rowid, * FROM {_q(table)}")
            columns = [d[0] for d in cur.description[1:]]
            return columns, [({"rowid": row[0]}, dict(zip(columns, row[1:]))) for row in cur.fetchall()]

    def _run(self, steps: list[tuple]) -> tuple[list[str], int | None]:
        """Run ``(sql, args[, exactly_one=True])`` steps in one transaction; return the trace."""
        statements: list[str] = []
        conn = self._connect()
        conn.set_trace_callback(statements.append)
        try:
            conn.execute("BEGIN IMMEDIATE")
            suspended = self._suspend_triggers(conn) if self.layout.triggers == "suspend" else []
            last = None
            for sql, args, *one in steps:
                cur = conn.execute(sql, args)
                if (not one or one[0]) and cur.rowcount != 1:
                    raise EditError(f"statement changed {cur.rowcount} rows, expected 1: {sql}")
                last = cur.lastrowid
            for trigger_sql in suspended:
                conn.execute(trigger_sql)
            conn.execute("COMMIT")
            return statements, last
        except sqlite3.Error as exc:
            raise EditError(f"sqlite refused the edit: {exc}") from exc
        finally:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            conn.set_trace_callback(None)
            conn.close()

    def _suspend_triggers(self, conn: sqlite3.Connection) -> list[str]:
        """``triggers: suspend``: drop the table's triggers (SUT code stored in the database, which a
        generic editor need not run) and return their SQL, re-created unchanged before the commit."""
        rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? "
                            "ORDER BY rowid", (self.layout.table,)).fetchall()
        for name, _ in rows:
            conn.execute(f"DROP TRIGGER {_q(name)}")
        return [sql for _, sql in rows]


def list_editor(layout: StoreLayout, volume_path: Path, versions: dict[str, str] | None = None) -> ListEditor:
    """List-element records (``records:``) in one SQLite file of a volume: see :mod:`edits.lists`."""
    return ListEditor(SqlVersions(SqliteEditor(layout, volume_path)), versions)


def map_editor(layout: StoreLayout, volume_path: Path) -> MapEditor:
    """The entries of a keyed map (``map:``) in a column of one SQLite table: see :mod:`edits.maps`."""
    return MapEditor(SqliteEditor(layout, volume_path))


def _trigger_mode(value: object, store: dict) -> str:
    if value not in ("fire", "suspend"):
        raise LayoutError("triggers", f"{value!r} is not a trigger mode of the sqlite backend",
                          "use fire (the default) or suspend")
    return str(value)


BACKEND = register(Backend(
    "sqlite", FILE, editor=SqliteEditor, list_editor=list_editor, map_editor=map_editor, field_paths=True,
    fields=(Field("table", required=True, fix="name the table that holds the records"),
            Field("triggers", default="fire", parse=_trigger_mode),
            Field("derived", parse=parse_derived))))
