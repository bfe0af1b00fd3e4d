"""The version rows under list-element records (``records:``), and the edits of whole rows.

Each row of the layout's table is one *version* of a context's state, ordered by
``records.version``; the newest version row of a context is current. Its payload is a
column of the row, or of the row of another table that ``records.payload_row`` names
(see :mod:`edits.layout_records`). :class:`VersionRows` reads them, and makes the edits
that act on whole rows; :class:`edits.lists.ListRecords` adds the records inside a
payload on top.

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

from edits import paths
from edits.forms import FormRows  # forms: the other forms an opaque payload's reader accepts
from edits.layout import StoreLayout
from edits.layout_records import PayloadRow
from edits.model import AppliedEdit, EditError, EditSpec, Record
from edits.records import changed_bytes_in, read_files
from edits.row_edits import RowEdits, _rank, _sql_name  # noqa: F401  (edits.redis_json imports _rank from here)
from edits.sqlnames import quote as _q
from edits.values import next_version


class VersionRows(RowEdits, FormRows):  # forms: reading a row in a form, the form=<name> variants (edits.forms)
    """The version rows of a SQL table, and the edits of whole rows (see the module).

    A mixin over a SQL dialect editor, which supplies ``_fetch_table``, ``_where_addr``,
    ``_run`` and ``PARAM`` (:class:`edits.sql.SqlEditor`).
    """

    def _init_list(self, layout: StoreLayout, versions: dict[str, str] | None) -> None:
        if layout.records is None:
            raise ValueError(f"{type(self).__name__} needs a layout with records:")
        self.spec = layout.records
        self.versions: dict[str, str] = {str(k): v for k, v in (versions or {}).items()}
        self.opaque = layout.payload.format == "opaque"

    def rows(self) -> list[dict[str, Any]]:
        """Every version row: {"addr", "context", "version", "fields", "payload"}, by (context, version);
        ``payload`` is the row holding its payload ({"table", "addr", "fields"}; None: no payload row)."""
        lay, spec = self.layout, self.spec
        self.columns, raw = self._fetch_table(lay.table)
        own = [] if spec.payload_row else [lay.payload.field]
        missing = [c for c in (lay.context, *own, spec.version, *([spec.parent] if spec.parent else []))
                   if c not in self.columns]
        if missing:
            raise EditError(f"table {lay.table!r} has no column(s) {missing} named by the layout")
        payloads = self._fetch_table(spec.payload_row.table)[1] if spec.payload_row else None
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

    def row_records(self) -> list[Record]:
        """Every version row as a Record (an opaque payload's records), labelled by the reported versions."""
        lay = self.layout
        return [Record(context=r["context"], identity=(r["version"],), order=r["version"], payload="",
                       fields=r["fields"], label=self.versions.get(str(r["version"])),
                       locator={"file": lay.file, "table": lay.table, **r["addr"], "version": r["version"]})
                for r in self.rows()]

    def _raw(self, row: dict[str, Any]) -> Any:
        """The stored payload value of a version row."""
        if row["payload"] is None:
            raise EditError(f"{self.layout.table} {_at(row)}: no payload row")
        return row["payload"]["fields"][self.layout.payload.field]

    def _row_of(self, rec: Record) -> dict[str, Any]:
        rows = [r for r in self.rows() if all(rec.locator.get(k) == v for k, v in r["addr"].items())]
        if not rows:
            raise EditError(f"the version row of record {rec.key()} is gone")
        return rows[0]

    # -- applying ---------------------------------------------------------

    def apply(self, spec: EditSpec) -> AppliedEdit:
        """Apply one edit: element edits on a readable payload, version-row edits on an opaque one."""
        if self.opaque and self.is_form_variant(spec):  # forms: a form the reader accepts (edits.forms)
            return self.apply_form(spec)
        if self.opaque or spec.unit == "state":
            if not self.opaque or spec.unit != "state":
                raise EditError(f"{spec.op}: unit {spec.unit!r} does not fit a "
                                f"{self.layout.payload.format} payload (opaque payloads take unit state)")
            before = read_files(self.files())
            out = self._state_edit(spec)
            return AppliedEdit(case=spec.case, backend=self.backend, statements=out.statements,
                               touched=out.touched, bytes_changed=changed_bytes_in(before), detail=out.detail)
        return super().apply(spec)

    def _run_steps(self, steps: list[tuple[str, list[Any], bool]]) -> list[str]:
        """Run (sql, args, exactly_one_row) steps in one transaction; return the statements run."""
        return self._run(steps)[0]

    def _set_payload(self, row: dict[str, Any], value: Any) -> tuple[str, list[Any], bool]:
        """The UPDATE that stores ``value`` as the payload of a version row (in its payload row)."""
        self._raw(row)
        where, args = self._where_addr(row["payload"]["addr"])
        return (f"UPDATE {_sql_name(row['payload']['table'])} SET {_q(self.layout.payload.field)} = {self.PARAM} "
                f"WHERE {where}", [value, *args], True)

    def adds_versions(self) -> bool:
        """Whether a new version row can be written here: a readable payload in the version row itself
        (a payload in another table's row, ``payload_row``, would need a new row there and the key that
        names it rewritten; PostgreSQL's JSON columns need their adapter: neither is built)."""
        return not self.opaque and self.spec.payload_row is None and self.backend != "postgres"

    def _add_version(self, row: dict[str, Any], tree: Any, operation: str) -> tuple[list[str], dict[str, Any]]:
        """A new newest version row of ``row``'s context, of the adversary's authorship: a copy of ``row``
        with a fresh version value (greater than every version of the context, and put wherever the
        payload held the old one), the parent link (``records.parent``) to ``row``, the payload ``tree``."""
        if not self.adds_versions():
            raise EditError(f"{self.backend}: no new version row can be written for this layout")
        taken = [r["version"] for r in self.rows() if r["context"] == row["context"]]
        try:
            old, new = row["version"], next_version(max(taken, key=_rank), taken)
        except ValueError as exc:
            raise EditError(f"{self.layout.table} {_at(row)}: {exc}") from None
        if isinstance(old, str):
            tree = paths.map_strings(tree, lambda s: new if s == old else s)
        fields = {**row["fields"], self.spec.version: new,
                  self.layout.payload.field: paths.encode_like(self._raw(row), tree, self.layout.payload.format)}
        if self.spec.parent:
            fields[self.spec.parent] = old
        statements = self._run_steps(self._insert_version(row, fields))
        return statements, {"row": {**row["addr"], "version": old}, "new_version": new,
                            **({"parent": old} if self.spec.parent else {}),
                            "operation": f"{operation}, in a new version row {new} after {old}"}

    def _insert_version(self, row: dict[str, Any], fields: dict[str, Any]) -> list[tuple[str, list[Any], bool]]:
        """The INSERT of a new version row holding ``fields``."""
        cols = list(fields)
        return [(f"INSERT INTO {_sql_name(self.layout.table)} ({', '.join(map(_q, cols))}) "
                 f"VALUES ({', '.join(self.PARAM for _ in cols)})", [fields[c] for c in cols], True)]


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


def _at(row: dict[str, Any]) -> str:
    """A version row's address for messages (rowid 3, pk {...})."""
    return ", ".join(f"{k} {v}" for k, v in row["addr"].items())
