"""The version rows under list-element records (``records:``), and the edits of whole rows.

Each row of the layout's table is one *version* of a context's state, ordered by
``records.version``; the newest version row of a context is current. Its payload is a
column of the row, or of the row of another table that ``records.payload_row`` names
(see :mod:`edits.layout_records`). :class:`SqlVersions` reads and writes them through a SQL
dialect editor (:mod:`edits.sql`); the list editor that holds it (:class:`edits.lists.ListEditor`)
makes the edits that act on whole rows (:mod:`edits.row_edits`) and those of the records inside a
payload.

- ``rollback`` deletes version rows: every row of the context newer than the row that was
  current after the write *before* the target's, so that earlier state is current
  again (with the rows ``cascade`` names). Which row that is comes from the
  versions the SUT reported for the lab's seeding writes (``versions``: version
  value -> marker of the record whose write made it current).

**Opaque payloads** (``payload.format: opaque``, e.g. ciphertext): the adversary
cannot read or address an element, so the records generic tooling sees are the
version rows themselves, each labelled (``Record.label``) with the marker whose
seeding write made it current (from ``versions``; rows in between carry no
label). Only whole-payload edits of version rows exist (``EditSpec.unit ==
"state"``):

- ``replace`` flips one bit in the middle of the payload of the current version row of
  the target's context (the row holding every live record, the fact included);
- ``rollback`` deletes rows as above;
- ``transplant`` copies a donor row's payload over the current row of the victim's context --
  identifiers stay: a donor of another context gives its context's current row, a donor of the
  victim's own context the row labelled with the donor marker (an older version).

``delete``, ``swap``, ``forge`` and ``set_meta`` need a record inside the payload and raise
EditError there (profiles declare ``capabilities.sealed: true``, which makes the cases asking for
them n/a) -- unless the layout declares another form the reader accepts (``payload.forms``): then
each has a variant ``form=<name>`` that writes the context's plaintext in that form
(:mod:`edits.forms`).

Example (two threads of ciphertext checkpoints; the SUT reported which seeding write made
which checkpoint current)::

    >>> import pathlib, sqlite3, tempfile
    >>> from edits import base, layout, model
    >>> vol = pathlib.Path(tempfile.mkdtemp())
    >>> db = sqlite3.connect(vol / "cp.db")
    >>> _ = db.execute("CREATE TABLE cp (thread TEXT, v TEXT, blob BLOB)")
    >>> _ = db.executemany("INSERT INTO cp VALUES (?, ?, ?)", [("A", "1", b"\\x10sealed-one"),
    ...                    ("A", "2", b"\\x10sealed-two"), ("B", "1", b"\\x10sealed-bee")])
    >>> db.commit(); db.close()
    >>> lay = layout.parse_layout({"backend": "sqlite", "volume": "store", "file": "cp.db", "table": "cp",
    ...                            "context": "thread", "order": "@position",
    ...                            "payload": {"field": "blob", "format": "opaque"},
    ...                            "records": {"text": ["text"], "version": "v"}})
    >>> editor = base.editor_for(lay, {"store": vol}, versions={"1": "mA1-q", "2": "mA2-q"})
    >>> [(r.context, r.order, r.label) for r in editor.records()]
    [('A', '1', 'mA1-q'), ('A', '2', 'mA2-q'), ('B', '1', 'mA1-q')]
    >>> editor.apply(model.EditSpec("demo", "A", "mA2-q", unit="state", op="replace")).detail["operation"]
    'flip bit 0 of byte 5 of 11'
    >>> editor.apply(model.EditSpec("demo", "A", "mA2-q", unit="state", op="rollback")).detail["deleted_versions"]
    ['2']
"""

from __future__ import annotations

from typing import Any

from edits import derived, paths
from edits.derived_layout import RECOMPUTED
from edits.layout_records import PayloadRow
from edits.model import EditError, EditSpec, Record
from edits.row_edits import _rank, _sql_name
from edits.sqlnames import quote as _q


class SqlVersions:
    """The version rows of a SQL table, read and written through ``sql``: the SQL dialect editor
    (:mod:`edits.sql`) of the same layout, whose ``_fetch_table``, ``_where_addr``, ``_run``, ``PARAM``,
    ``files``, ``variants`` and ``backend`` it uses."""

    def __init__(self, sql: Any):
        self.sql, self.layout, self.backend = sql, sql.layout, sql.backend
        self.spec = sql.layout.records

    def files(self) -> list:
        """The files an edit may write: the dialect's."""
        return self.sql.files()

    def variants(self, spec: EditSpec, records: list[Record]) -> list[str]:
        """The dialect's variants of a sealed payload's edit (``derived=recomputed``, :mod:`edits.derived`)."""
        return self.sql.variants(spec, records)

    def apply_variant(self, editor: Any, spec: EditSpec):
        """``derived=recomputed``: ``editor``'s default edit, then the derived values it made wrong."""
        return derived.apply(editor, spec, self.sql) if spec.variant == RECOMPUTED else None

    def rows(self) -> list[dict[str, Any]]:
        """Every version row: {"addr", "context", "version", "fields", "payload"}, by (context, version);
        ``payload`` is the row holding its payload ({"table", "addr", "fields"}; None: no payload row)."""
        lay, spec = self.layout, self.spec
        self.columns, raw = self.sql._fetch_table(lay.table)
        own = [] if spec.payload_row else [lay.payload.field]
        missing = [c for c in (lay.context, *own, spec.version, *([spec.parent] if spec.parent else []))
                   if c not in self.columns]
        if missing:
            raise EditError(f"table {lay.table!r} has no column(s) {missing} named by the layout")
        payloads = self.sql._fetch_table(spec.payload_row.table)[1] if spec.payload_row else None
        out = []
        for addr, fields in raw:
            payload = ({"table": lay.table, "addr": addr, "fields": fields} if payloads is None
                       else _payload_row(spec.payload_row, fields, payloads))
            out.append({"addr": addr, "context": str(fields[lay.context]), "version": fields[spec.version],
                        "fields": fields, "payload": payload})
        return sorted(out, key=lambda r: (r["context"], _rank(r["version"])))

    def current_rows(self) -> dict[str, dict[str, Any]]:
        """The current (newest) version row of each context."""
        return {r["context"]: r for r in self.rows()}

    def run_steps(self, steps: list[tuple[str, list[Any], bool]]) -> list[str]:
        """Run (sql, args, exactly_one_row) steps in one transaction; return the statements run."""
        return self.sql._run(steps)[0]

    def payload_step(self, row: dict[str, Any], value: Any) -> tuple[str, list[Any], bool]:
        """The UPDATE that stores ``value`` as the payload of a version row (in its payload row)."""
        where, args = self.sql._where_addr(row["payload"]["addr"])
        return (f"UPDATE {_sql_name(row['payload']['table'])} SET {_q(self.layout.payload.field)} = "
                f"{self.sql.PARAM} WHERE {where}", [value, *args], True)

    def insert_version(self, row: dict[str, Any], fields: dict[str, Any]) -> list[tuple[str, list[Any], bool]]:
        """The INSERT of a new version row holding ``fields``."""
        cols = list(fields)
        return [(f"INSERT INTO {_sql_name(self.layout.table)} ({', '.join(map(_q, cols))}) "
                 f"VALUES ({', '.join(self.sql.PARAM for _ in cols)})", [fields[c] for c in cols], True)]

    def drop_versions(self, doomed: list[dict[str, Any]], keep: dict[str, Any]) -> tuple[list[str], list[str]]:
        """Delete the ``doomed`` version rows (``keep`` is current afterwards) with their cascade rows, in
        one transaction; (statements run, the cascaded tables)."""
        steps: list[tuple[str, list[Any], bool]] = []
        for row in doomed:
            where, args = self.sql._where_addr(row["addr"])
            steps.append((f"DELETE FROM {_sql_name(self.layout.table)} WHERE {where}", args, True))
            for c in self.spec.cascade:
                where = " AND ".join(f"{_q(k)} = {self.sql.PARAM}" for k in c.key)
                steps.append((f"DELETE FROM {_sql_name(c.table)} WHERE {where}",
                              [row["fields"][k] for k in c.key], False))
        return self.run_steps(steps), [c.table for c in self.spec.cascade]



def _payload_row(pr: PayloadRow, fields: dict[str, Any], payloads: list) -> dict[str, Any] | None:
    """The row of ``pr.table`` (among ``payloads``) that holds the payload of the version row ``fields``."""
    want = {c: paths.read(fields.get(ref.field), ref.path, ref.format) for c, ref in pr.key.items()}
    if any(v is paths.MISSING or v is None for v in want.values()):
        return None
    want.update(pr.where)
    hits = [(a, f) for a, f in payloads if all(f.get(c) == v for c, v in want.items())]
    if len(hits) > 1:
        raise EditError(f"{len(hits)} rows of {pr.table!r} match {want}; the payload row must be unique")
    return {"table": pr.table, "addr": hits[0][0], "fields": hits[0][1]} if hits else None
