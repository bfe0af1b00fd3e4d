"""Generic editor for PostgreSQL stores: one table, one row per record (psycopg).

The lab starts the PostgreSQL server on the SUT's data volume while the SUT is
stopped; the editor connects over loopback, reads the table, and runs each edit
as one transaction. The statements returned are exactly what the server
received, parameters inlined by psycopg's client-side binding. Rows are
addressed by primary key (``ctid`` when the table has none). The SQL of the
edits themselves is shared with SQLite (:mod:`edits.sql`), the ``place=`` variants of
``replace`` and ``set_meta`` included (a json/jsonb column, read as an object, holds the token in its
strings), and so are records that are elements of a list inside a stored value
(``records:``, :func:`list_editor`, the logic in :mod:`edits.lists`).

Example (``postgres_url``: a running server -- the lab starts one on the SUT's data volume;
``tests/edits/test_doctests.py`` gives one)::

    >>> import psycopg
    >>> from edits import layout, model, postgres
    >>> with psycopg.connect(postgres_url) as conn:
    ...     _ = conn.execute("DROP TABLE IF EXISTS doc_records")
    ...     _ = conn.execute("CREATE TABLE doc_records (id int PRIMARY KEY, ctx text, seq int, body text)")
    ...     _ = conn.execute("INSERT INTO doc_records VALUES (1, 'A', 10, 'mA1-q FACT-A1'), (2, 'A', 20, 'mA2-q hi')")
    >>> lay = layout.parse_layout({"backend": "postgres", "volume": "pgdata", "service": "db",
    ...                            "table": "doc_records", "context": "ctx", "identity": ["id"],
    ...                            "order": "seq", "payload": "body"})
    >>> editor = postgres.PostgresEditor(lay, postgres_url)
    >>> print("\\n".join(editor.apply(model.EditSpec("demo", "A", "mA1-q", second="mA2-q", op="swap")).statements))
    BEGIN
    UPDATE "public"."doc_records" SET "seq" = 21 WHERE "id" = 1
    UPDATE "public"."doc_records" SET "seq" = 10 WHERE "id" = 2
    UPDATE "public"."doc_records" SET "seq" = 20 WHERE "id" = 1
    COMMIT
    >>> [r.payload for r in editor.records()]
    ['mA2-q hi', 'mA1-q FACT-A1']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from edits.layout import StoreLayout
from edits.lists import ListEditor
from edits.maps import MapEditor
from edits.model import EditError, Record
from edits.records import decode_payload, read_metadata, sort_records
from edits.registry import SERVICE, Backend, Field, register
from edits.sql import SqlEditor
from edits.sqlnames import quote as _q
from edits.version_rows import SqlVersions

if TYPE_CHECKING:
    import psycopg


_PK_SQL = ("SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid "
           "AND a.attnum = ANY(i.indkey) WHERE i.indrelid = %s::regclass AND i.indisprimary "
           "ORDER BY array_position(i.indkey, a.attnum)")


class PostgresEditor(SqlEditor):
    """Edits ``layout.table`` (``schema.table`` allowed) on one PostgreSQL server."""

    backend = "postgres"
    PARAM = "%s"
    ROW_ID = "ctid"
    json_columns: frozenset[str] | set[str] = frozenset()  # set by records()

    def __init__(self, layout: StoreLayout, url: str):
        self.layout, self.url = layout, url
        schema, _, table = layout.table.rpartition(".")
        self.schema, self.table = schema or "public", table

    def files(self) -> list:
        """None: the server owns the files; C3 diffs the volume after the server stops."""
        return []

    def _connect(self) -> psycopg.Connection:
        psycopg = _import_client()  # here, not above: finding the backends imports this module, not the client

        try:
            return psycopg.connect(self.url, cursor_factory=psycopg.ClientCursor, connect_timeout=10)
        except psycopg.Error as exc:
            raise EditError(f"postgres at {self.url}: {exc}") from exc

    def records(self) -> list[Record]:
        """Every row of the table as a Record, sorted by (context, order)."""
        lay = self.layout
        with self._connect() as conn:
            cols = conn.execute(
                "SELECT column_name, is_generated, data_type FROM information_schema.columns "
                "WHERE table_schema = %s AND table_name = %s ORDER BY ordinal_position",
                (self.schema, self.table)).fetchall()
            if not cols:
                raise EditError(f"no table {lay.table!r} in schema {self.schema!r}")
            self.columns = [c[0] for c in cols]
            self.readonly = {c[0] for c in cols if c[1] == "ALWAYS"}
            self.json_columns = {c[0] for c in cols if c[2] in ("json", "jsonb")}
            self.pk = [r[0] for r in conn.execute(_PK_SQL, (self._table(),)).fetchall()]
            rows = conn.execute(f"SELECT ctid::text, * FROM {self._table()}").fetchall()
        fields_named = [*([lay.context_ref.field] if lay.context_ref else [lay.context]),
                        *self._plain(lay.identity), *(r.field for r in self._slot_refs()), lay.payload.field,
                        *self._scope_columns(),
                        lay.order, *(r.field for refs in lay.meta_refs.values() for r in refs),
                        *(c for n, c in lay.metadata.items() if not lay.meta_refs.get(n))]
        missing = sorted({c for c in fields_named if c not in self.columns})
        if missing:
            raise EditError(f"table {lay.table!r} has no column(s) {missing} named by the layout")
        return sort_records(self._record(row[0], dict(zip(self.columns, row[1:]))) for row in rows)

    def _param(self, column: str, value: Any) -> Any:
        """A json/jsonb column's value (psycopg reads it as dict or list) goes back as JSON."""
        if column in self.json_columns and value is not None and not isinstance(value, str):
            from psycopg.types.json import Json

            return Json(value)
        return value

    def keeps_key_order(self, column: str) -> bool:
        """False for a jsonb column (it orders an object's keys itself)."""
        schema, _, name = self.layout.table.rpartition(".")
        with self._connect() as conn:
            row = conn.execute("SELECT data_type FROM information_schema.columns WHERE table_schema = %s "
                               "AND table_name = %s AND column_name = %s",
                               (schema or "public", name, column)).fetchone()
        return not (row and row[0] == "jsonb")

    def _table(self) -> str:
        """``schema.table`` as SQL."""
        return f"{_q(self.schema)}.{_q(self.table)}"

    def _record(self, ctid: str, fields: dict[str, Any]) -> Record:
        lay = self.layout
        where = {"pk": {c: fields[c] for c in self.pk}} if self.pk else {"ctid": ctid}
        fields = {k: bytes(v) if isinstance(v, memoryview) else v for k, v in fields.items()}
        return Record(context=str(self._context_of(fields)), identity=self._identity_of(fields) or (ctid,),
                      order=fields[lay.order], payload=decode_payload(fields[lay.payload.field], lay.payload),
                      metadata=read_metadata(lay, fields), fields=fields,
                      locator={"table": f"{self.schema}.{self.table}", **where}, scope=self._scope_of(fields))

    def _fetch_table(self, table: str) -> tuple[list[str], list[tuple[dict[str, Any], dict[str, Any]]]]:
        """Every row of ``table`` (``schema.table`` allowed): (columns, [({"pk": ...} or {"ctid": ...}, fields)])."""
        schema, _, name = table.rpartition(".")
        sql_name = f"{_q(schema or 'public')}.{_q(name)}"
        with self._connect() as conn:
            pk = [r[0] for r in conn.execute(_PK_SQL, (sql_name,)).fetchall()] if conn.execute(
                "SELECT to_regclass(%s)", (sql_name,)).fetchone()[0] else None
            if pk is None:
                raise EditError(f"no table {table!r}")
            cur = conn.execute(f"SELECT ctid::text, * FROM {sql_name}")
            columns = [d.name for d in cur.description[1:]]
            rows = cur.fetchall()
        out = []
        for row in rows:
            fields = {k: bytes(v) if isinstance(v, memoryview) else v for k, v in zip(columns, row[1:])}
            out.append(({"pk": {c: fields[c] for c in pk}} if pk else {"ctid": row[0]}, fields))
        return columns, out

    def _run(self, steps: list[tuple]) -> tuple[list[str], Any]:
        """Run ``(sql, args[, exactly_one=True])`` steps in one transaction; return the statements sent."""
        psycopg = _import_client()

        statements = ["BEGIN"]
        with self._connect() as conn:
            try:
                with conn.transaction(), conn.cursor() as cur:
                    for sql, args, *one in steps:
                        statements.append(cur.mogrify(sql, args))
                        cur.execute(sql, args)
                        if (not one or one[0]) and cur.rowcount != 1:
                            raise EditError(f"statement changed {cur.rowcount} rows, expected 1: {statements[-1]}")
            except psycopg.Error as exc:
                raise EditError(f"postgres refused the edit: {exc}") from exc
        return statements + ["COMMIT"], None


def _json_param(column: str, value: Any) -> Any:
    """A map read from a json/jsonb column (psycopg gives a dict) goes back as JSON."""
    if isinstance(value, (dict, list)):
        from psycopg.types.json import Json

        return Json(value)
    return value


def map_editor(layout: StoreLayout, url: str) -> MapEditor:
    """The entries of a keyed map (``map:``) in a json/jsonb column of a PostgreSQL table: see :mod:`edits.maps`.

    A jsonb column keeps no order of an object's keys: it stores them shorter first, then
    bytewise, whatever order they were written in, and reads them back so (a json or text column
    keeps the text). An entry there is read with no order, and a forged entry's fresh key is one jsonb places
    after the last (:func:`edits.maps.key_after`)."""
    return MapEditor(PostgresEditor(layout, url), param=_json_param)


def list_editor(layout: StoreLayout, url: str, versions: dict[str, str] | None = None) -> ListEditor:
    """List-element records (``records:``) in PostgreSQL tables: see :mod:`edits.lists`."""
    return ListEditor(SqlVersions(PostgresEditor(layout, url)), versions)


def _import_client():
    """The storage client: the one place the editor imports it (and what registry.warm calls ahead)."""
    import psycopg

    return psycopg


BACKEND = register(Backend(
    "postgres", SERVICE, editor=PostgresEditor, list_editor=list_editor, map_editor=map_editor,
    field_paths=True,
    client=_import_client,
    fields=(Field("table", required=True, fix="name the table that holds the records (schema.table allowed)"),)))
