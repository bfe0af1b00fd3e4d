"""Generic editor for SQLite stores: one table, one row per record.

Reads never write to the volume (``immutable=1``, or a temporary copy when a
WAL or journal sidecar is present, so its content is seen). Each edit is one
``BEGIN IMMEDIATE`` ... ``COMMIT`` transaction, and the exact statements SQLite ran (parameters
expanded, from ``set_trace_callback``) are returned in ``AppliedEdit.statements``.
Rows are addressed by ``rowid`` (by primary key for WITHOUT ROWID tables).
Primary-key columns count as identity even when the layout does not list them:
T4/T6/T7 never copy them and T5 gives them fresh values. T1 replaces the token
in every text/BLOB column of the row that holds it (bytes for BLOBs, raw JSON
text for JSON columns), the payload column included.

Example::

    import sqlite3, tempfile
    from pathlib import Path
    from edits.layout import parse_layout
    from edits.model import EditSpec
    from edits.sqlite import SqliteEditor

    vol = Path(tempfile.mkdtemp())
    db = sqlite3.connect(vol / "memory.db")
    db.execute("CREATE TABLE records (id INTEGER PRIMARY KEY, ctx TEXT, body TEXT)")
    db.executemany("INSERT INTO records (ctx, body) VALUES (?, ?)",
                   [("A", "mA1-q first FACT-A1"), ("A", "mA2-q second")])
    db.commit(); db.close()
    layout = parse_layout({"backend": "sqlite", "volume": "store", "file": "memory.db",
                           "table": "records", "context": "ctx", "identity": ["id"],
                           "order": "id", "payload": "body"})
    editor = SqliteEditor(layout, vol)
    done = editor.apply(EditSpec("T1", "A", "mA1-q", find="FACT-A1", replace="FACT-Z9"))
    print(done.statements)
    # ['BEGIN IMMEDIATE', 'UPDATE "records" SET "body" = \'mA1-q first FACT-Z9\' WHERE rowid = 1', 'COMMIT']
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from edits.layout import StoreLayout
from edits.model import EditError, Record
from edits.plan import EditorBase, Outcome, Plan
from edits.records import contains, decode_payload, replace_same_length, sort_records
from edits.values import fresh_identity, next_order


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class SqliteEditor(EditorBase):
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
        wanted = [lay.context, *lay.identity, lay.payload.field, *lay.metadata.values()]
        missing = [c for c in wanted + ([] if self.position else [lay.order]) if c not in self.columns]
        if missing:
            raise EditError(f"{lay.file}: table {table!r} has no column(s) {missing} named by the layout")
        return sort_records(self._record(row[0], dict(zip(self.columns, row[1:]))) for row in rows)

    def _record(self, rowid: Any, fields: dict[str, Any]) -> Record:
        lay = self.layout
        where = {"rowid": rowid} if self.rowid else {"pk": {c: fields[c] for c in self.pk}}
        identity = tuple(fields[c] for c in lay.identity) or ((rowid,) if self.rowid else tuple(where["pk"].values()))
        return Record(context=str(fields[lay.context]), identity=identity,
                      order=rowid if self.position else fields[lay.order],
                      payload=decode_payload(fields[lay.payload.field], lay.payload),
                      metadata={n: fields[c] for n, c in lay.metadata.items()}, fields=fields,
                      locator={"file": lay.file, "table": lay.table, **where})

    # -- statements -------------------------------------------------------

    def _where(self, rec: Record) -> tuple[str, list[Any]]:
        if "rowid" in rec.locator:
            return "rowid = ?", [rec.locator["rowid"]]
        pk = rec.locator["pk"]
        return " AND ".join(f"{_q(c)} = ?" for c in pk), list(pk.values())

    def _update(self, rec: Record, values: dict[str, Any]) -> tuple[str, list[Any]]:
        where, args = self._where(rec)
        sets = ", ".join(f"{_q(c)} = ?" for c in values)
        return f"UPDATE {_q(self.layout.table)} SET {sets} WHERE {where}", [*values.values(), *args]

    def _run(self, steps: list[tuple[str, list[Any]]]) -> tuple[list[str], int | None]:
        """Run ``steps`` in one transaction, each touching exactly one row; return the trace."""
        statements: list[str] = []
        conn = self._connect()
        conn.set_trace_callback(statements.append)
        try:
            conn.execute("BEGIN IMMEDIATE")
            last = None
            for sql, args in steps:
                cur = conn.execute(sql, args)
                if cur.rowcount != 1:
                    raise EditError(f"statement changed {cur.rowcount} rows, expected 1: {sql}")
                last = cur.lastrowid
            conn.execute("COMMIT")
            return statements, last
        except sqlite3.Error as exc:
            raise EditError(f"sqlite refused the edit: {exc}") from exc
        finally:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            conn.set_trace_callback(None)
            conn.close()

    def _kept(self) -> set[str]:
        """Columns that stay with a row's slot: identity, primary key, context, order."""
        lay = self.layout
        return {*lay.identity, *self.pk, lay.context, *([] if self.position else [lay.order])} | self.readonly

    def _rewritten(self, fields: dict[str, Any], find: str, replace: str) -> dict[str, Any]:
        skip = {*self.layout.identity, self.layout.context}
        out = {c: replace_same_length(v, find, replace) for c, v in fields.items()
               if c not in skip and c not in self.readonly and contains(v, find)}
        if self.layout.payload.field not in out:
            raise EditError(f"{find!r} is in the decoded payload but not in the stored column "
                            f"{self.layout.payload.field!r} (escaped or encoded?)")
        return out

    # -- hooks ------------------------------------------------------------

    def _replace(self, p: Plan) -> Outcome:
        values = self._rewritten(p.target.fields, p.spec.find, p.spec.replace)
        stmts, _ = self._run([self._update(p.target, values)])
        return Outcome(stmts, [p.target.key()], {"columns": sorted(values)})

    def _delete(self, p: Plan) -> Outcome:
        where, args = self._where(p.target)
        stmts, _ = self._run([(f"DELETE FROM {_q(self.layout.table)} WHERE {where}", args)])
        return Outcome(stmts, [p.target.key()])

    def _swap(self, p: Plan) -> Outcome:
        a, b, order = p.target, p.other, self.layout.order
        if self.position or order in {*self.layout.identity, *self.pk}:
            cols = [c for c in self.columns if c not in self._kept()]
            steps = [self._update(a, {c: b.fields[c] for c in cols}),
                     self._update(b, {c: a.fields[c] for c in cols})]
            detail = {"swapped": cols}
        else:
            temp = next_order(r.fields[order] for r in p.records)
            steps = [self._update(a, {order: temp}), self._update(b, {order: a.fields[order]}),
                     self._update(a, {order: b.fields[order]})]
            detail = {"swapped": [order], "temporary": temp}
        stmts, _ = self._run(steps)
        return Outcome(stmts, [a.key(), b.key()], detail)

    def _forge(self, p: Plan) -> Outcome:
        lay, new = self.layout, dict(p.target.fields)
        for col in {*lay.identity, *self.pk} - {lay.context} - self.readonly:
            new[col] = fresh_identity(r.fields[col] for r in p.records)
        if not self.position and lay.order not in {*lay.identity, *self.pk}:
            new[lay.order] = next_order(r.order for r in p.in_context(p.target.context))
        new.update(self._rewritten(new, p.spec.find, p.spec.replace))
        cols = [c for c in self.columns if c not in self.readonly]
        sql = (f"INSERT INTO {_q(lay.table)} ({', '.join(map(_q, cols))}) "
               f"VALUES ({', '.join('?' for _ in cols)})")
        stmts, rowid = self._run([(sql, [new[c] for c in cols])])
        key = "|".join(str(new[c]) for c in lay.identity) if lay.identity else str(rowid)
        return Outcome(stmts, [key], {"template": p.target.key(), "new": key})

    def _transplant(self, p: Plan) -> Outcome:
        cols = [c for c in self.columns if c not in self._kept()]
        stmts, _ = self._run([self._update(p.target, {c: p.other.fields[c] for c in cols})])
        return Outcome(stmts, [p.target.key()], {"donor": p.other.key(), "copied": cols})

    def _set_meta(self, p: Plan) -> Outcome:
        col = self.layout.metadata[p.spec.meta_field]
        stmts, _ = self._run([self._update(p.target, {col: p.meta_value})])
        return Outcome(stmts, [p.target.key()], {"column": col, "old": p.target.metadata.get(p.spec.meta_field),
                                                  "new": p.meta_value})
