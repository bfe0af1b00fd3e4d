"""Generic editor for records that are elements of a list inside one stored value (sqlite, postgres).

The layout's ``records:`` block (see :mod:`edits.layout`) says: each row of the
table is one *version* of a context's state, ordered by ``records.version``;
the newest version row of a context is current; every element of the list at
``payload.path`` inside its payload (JSON or MessagePack) is one record, with
its text, identity and metadata at paths inside the element. The payload is a
column of the version row, or of the row of another table that
``records.payload_row`` names (see :mod:`edits.layout`). The element logic
(:class:`ListRecords`) is shared by both SQL dialects: :class:`ListEditor`
(SQLite) here, :class:`edits.postgres.PostgresListEditor` (PostgreSQL). LangGraph's
checkpointers keep memory this way (a message = an element of
``channel_values.messages`` in the newest checkpoint).

Every edit rewrites the payload of one current version row (re-encoded; a
MessagePack blob only when it re-encodes byte for byte, and the fact token of T1
has the length of what it replaces, so T1 changes only those bytes):

- T1 replaces the token in the target element; T3 removes the element; T4
  exchanges two elements; T5 appends a copy of the template element with fresh
  identity values and the marker replaced; T6/T7 put a copy of the donor element
  in the victim's place with the victim's identity values; T8 sets a metadata
  path inside the element.
- T2 deletes version rows: every row of the context newer than the row that was
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

- T1 flips one bit in the middle of the payload of the current version row of
  the target's context (the row holding every live record, the fact included);
- T2 deletes rows as above;
- T6 copies the payload of the donor context's current row over the victim
  context's current row; T7 copies the payload of the row labelled with the
  donor marker over the current row of the context -- identifiers stay.

T3, T4, T5 and T8 need a record inside the payload and raise EditError there
(profiles declare ``capabilities.sealed: true``, which makes them n/a).

Example::

    import sqlite3, tempfile
    from pathlib import Path
    from edits.layout import parse_layout
    from edits.lists import ListEditor
    from edits.model import EditSpec
    from edits.msgpack import pack

    vol = Path(tempfile.mkdtemp())
    db = sqlite3.connect(vol / "cp.db")
    db.execute("CREATE TABLE cp (thread TEXT, v TEXT, blob BLOB)")
    msgs = [{"id": f"id{i}", "role": "user", "text": f"[mA{i}-abcdef] note {i}"} for i in range(3)]
    db.execute("INSERT INTO cp VALUES ('A', '001', ?)", (pack({"messages": msgs}),))
    db.commit(); db.close()
    layout = parse_layout({"backend": "sqlite", "volume": "store", "file": "cp.db", "table": "cp",
                           "context": "thread", "order": "@position",
                           "payload": {"field": "blob", "format": "msgpack", "path": ["messages"]},
                           "records": {"text": ["text"], "identity": [["id"]], "metadata": {"role": ["role"]},
                                       "version": "v"}})
    done = ListEditor(layout, vol).apply(EditSpec("T3", "A", "mA1-abcdef"))
    print(done.detail)   # {'row': {'rowid': 1, 'version': '001'}, 'operation': 'remove element 1 of messages'}
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from edits import msgpack, paths
from edits.layout import StoreLayout
from edits.model import AppliedEdit, EditError, EditSpec, Record
from edits.plan import Outcome, Plan
from edits.records import changed_bytes_in, find_one, read_files, sort_records
from edits.sql import _q
from edits.sqlite import SqliteEditor
from edits.values import fresh_identity


def _rank(value: Any) -> tuple:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, value, "")
    return (1, 0, str(value))


class ListRecords:
    """Records = elements of a list inside the current version row of each context.

    A mixin over a SQL dialect editor, which supplies ``_fetch_table``, ``_where_addr``,
    ``_run`` and ``PARAM`` (:class:`edits.sql.SqlEditor`).
    """

    def _init_list(self, layout: StoreLayout, versions: dict[str, str] | None) -> None:
        if layout.records is None:
            raise ValueError(f"{type(self).__name__} needs a layout with records:")
        self.spec = layout.records
        self.versions: dict[str, str] = {str(k): v for k, v in (versions or {}).items()}
        self.opaque = layout.payload.format == "opaque"

    # -- reading ----------------------------------------------------------

    def rows(self) -> list[dict[str, Any]]:
        """Every version row: {"addr", "context", "version", "fields", "payload"}, by (context, version);
        ``payload`` is the row holding its payload ({"table", "addr", "fields"}; None: no payload row)."""
        lay, spec = self.layout, self.spec
        self.columns, raw = self._fetch_table(lay.table)
        own = [] if spec.payload_row else [lay.payload.field]
        missing = [c for c in (lay.context, *own, spec.version) if c not in self.columns]
        if missing:
            raise EditError(f"table {lay.table!r} has no column(s) {missing} named by the layout")
        payloads = self._fetch_table(spec.payload_row.table)[1] if spec.payload_row else None
        out = []
        for addr, fields in raw:
            payload = ({"table": lay.table, "addr": addr, "fields": fields} if payloads is None
                       else self._payload_of(fields, payloads))
            out.append({"addr": addr, "context": str(fields[lay.context]), "version": fields[spec.version],
                        "fields": fields, "payload": payload})
        return sorted(out, key=lambda r: (r["context"], _rank(r["version"])))

    def _payload_of(self, fields: dict[str, Any], payloads: list) -> dict[str, Any] | None:
        """The row of ``payload_row.table`` that holds the payload of the version row ``fields``."""
        pr = self.spec.payload_row
        want = {c: paths.read(fields.get(ref.field), ref.path, ref.format) for c, ref in pr.key.items()}
        if any(v is paths.MISSING or v is None for v in want.values()):
            return None
        want.update(pr.where)
        hits = [(a, f) for a, f in payloads if all(f.get(c) == v for c, v in want.items())]
        if len(hits) > 1:
            raise EditError(f"{len(hits)} rows of {pr.table!r} match {want}; the payload row must be unique")
        return {"table": pr.table, "addr": hits[0][0], "fields": hits[0][1]} if hits else None

    def current_rows(self) -> dict[str, dict[str, Any]]:
        """The current (newest) version row of each context."""
        return {r["context"]: r for r in self.rows()}

    def records(self) -> list[Record]:
        """Elements of every context's current row; for an opaque payload, every version row."""
        if self.opaque:
            return [self._row_record(r) for r in self.rows()]
        out = []
        for row in self.current_rows().values():
            for i, element in enumerate(self._elements(row)):
                out.append(self._element_record(row, i, element))
        return sort_records(out)

    def _row_record(self, row: dict[str, Any]) -> Record:
        lay = self.layout
        return Record(context=row["context"], identity=(row["version"],), order=row["version"], payload="",
                      fields=row["fields"], label=self.versions.get(str(row["version"])),
                      locator={"file": lay.file, "table": lay.table, **row["addr"], "version": row["version"]})

    def _raw(self, row: dict[str, Any]) -> Any:
        """The stored payload value of a version row."""
        if row["payload"] is None:
            raise EditError(f"{self.layout.table} {_at(row)}: no payload row")
        return row["payload"]["fields"][self.layout.payload.field]

    def _tree(self, row: dict[str, Any]) -> Any:
        try:
            return paths.parse(self._raw(row), self.layout.payload.format)
        except EditError as exc:
            raise EditError(f"{self.layout.table} {_at(row)}: {exc}") from None

    def _elements(self, row: dict[str, Any], tree: Any = None) -> list[Any]:
        if row["payload"] is None and tree is None:
            return []  # no payload row yet (a context's first, empty state)
        found = paths.get_path(self._tree(row) if tree is None else tree, self.layout.payload.path)
        if found is paths.MISSING:
            return []  # a version row with no list yet (a context's first, empty state)
        if not isinstance(found, list):
            raise EditError(f"{self.layout.table} {_at(row)}: the value at "
                            f"{list(self.layout.payload.path)} is not a list")
        return found

    def _element_record(self, row: dict[str, Any], index: int, element: Any) -> Record:
        spec, lay = self.spec, self.layout
        text = paths.get_path(element, spec.text)
        identity = tuple(_plain(paths.get_path(element, p)) for p in spec.identity)
        return Record(context=row["context"], identity=identity or (row["context"], index), order=index,
                      payload="" if text in (None, paths.MISSING) else str(text),
                      metadata={n: _plain(paths.get_path(element, p)) for n, p in spec.metadata.items()},
                      fields={k: _plain(v) for k, v in paths.flatten(element).items()},
                      locator={"file": lay.file, "table": lay.table, **row["addr"],
                               "version": row["version"], "index": index})

    # -- applying ---------------------------------------------------------

    def apply(self, spec: EditSpec) -> AppliedEdit:
        """Apply one edit: element edits on a readable payload, version-row edits on an opaque one."""
        if self.opaque or spec.unit == "state":
            if not self.opaque or spec.unit != "state":
                raise EditError(f"{spec.case}: unit {spec.unit!r} does not fit a "
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

    def _rewrite(self, row: dict[str, Any], change) -> tuple[list[str], dict[str, Any]]:
        """Decode the row's payload, let ``change(list)`` edit its list, re-encode and store it."""
        raw = self._raw(row)
        fmt = self.layout.payload.format
        if fmt == "msgpack" and not msgpack.roundtrips(raw):
            raise EditError(f"{self.layout.table} {_at(row)}: the MessagePack payload does not "
                            "re-encode byte for byte; refusing to rewrite it")
        tree = self._tree(row)
        items = list(self._elements(row, tree))
        operation = change(items)
        path = self.layout.payload.path
        new = paths.write(raw, path, items, fmt) if path else paths.encode_like(raw, items, fmt)
        statements = self._run_steps([self._set_payload(row, new)])
        held = {"payload_row": {"table": row["payload"]["table"], **row["payload"]["addr"]}} if self.spec.payload_row else {}
        return statements, {"row": {**row["addr"], "version": row["version"]}, **held, "operation": operation}

    def _row_of(self, rec: Record) -> dict[str, Any]:
        rows = [r for r in self.rows() if all(rec.locator.get(k) == v for k, v in r["addr"].items())]
        if not rows:
            raise EditError(f"the version row of record {rec.key()} is gone")
        return rows[0]

    def _list_name(self) -> str:
        return ".".join(self.layout.payload.path) or f"the {self.layout.payload.field} list"

    def _replace(self, p: Plan) -> Outcome:
        i = p.target.order

        def change(items):
            before = items[i]
            items[i] = _replace_strings(items[i], p.spec.find, p.spec.replace)
            if items[i] == before:
                raise EditError(f"T1: {p.spec.find!r} is in no string of the element")
            return f"replace {p.spec.find} by {p.spec.replace} in element {i} of {self._list_name()}"
        stmts, detail = self._rewrite(self._row_of(p.target), change)
        return Outcome(stmts, [p.target.key()], detail)

    def _delete(self, p: Plan) -> Outcome:
        if p.spec.case == "T2":
            return self._roll_back(p.target)
        i = p.target.order

        def change(items):
            del items[i]
            return f"remove element {i} of {self._list_name()}"
        stmts, detail = self._rewrite(self._row_of(p.target), change)
        return Outcome(stmts, [p.target.key()], detail)

    def _swap(self, p: Plan) -> Outcome:
        i, j = p.target.order, p.other.order

        def change(items):
            items[i], items[j] = items[j], items[i]
            return f"exchange elements {i} and {j} of {self._list_name()}"
        stmts, detail = self._rewrite(self._row_of(p.target), change)
        return Outcome(stmts, [p.target.key(), p.other.key()], detail)

    def _forge(self, p: Plan) -> Outcome:
        row = self._row_of(p.target)
        fresh = {}
        for path in self.spec.identity:
            taken = [_plain(paths.get_path(e, path)) for r in self.current_rows().values() for e in self._elements(r)]
            fresh[path] = fresh_identity(taken)
        key = "|".join(str(v) for v in fresh.values()) or f"{p.target.context}|{len(p.in_context(p.target.context))}"

        def change(items):
            new = _replace_strings(items[p.target.order], p.spec.find, p.spec.replace)
            for path, value in fresh.items():
                new = paths.set_path(new, path, value)
            items.append(new)
            return f"append a copy of element {p.target.order} with fresh identity {key} to {self._list_name()}"
        stmts, detail = self._rewrite(row, change)
        return Outcome(stmts, [key], {**detail, "template": p.target.key(), "new": key})

    def _transplant(self, p: Plan) -> Outcome:
        donor_row, victim_row = self._row_of(p.other), self._row_of(p.target)
        donor = self._elements(donor_row)[p.other.order]

        def change(items):
            new = copy.deepcopy(donor)
            for path in self.spec.identity:
                new = paths.set_path(new, path, paths.get_path(items[p.target.order], path))
            items[p.target.order] = new
            return (f"copy element {p.other.order} of {_at(donor_row)} over element "
                    f"{p.target.order}, keeping its identity")
        stmts, detail = self._rewrite(victim_row, change)
        return Outcome(stmts, [p.target.key()], {**detail, "donor": p.other.key()})

    def _set_meta(self, p: Plan) -> Outcome:
        path = self.spec.metadata[p.spec.meta_field]

        def change(items):
            items[p.target.order] = paths.set_path(items[p.target.order], path, p.meta_value)
            return f"set {'.'.join(path)} of element {p.target.order} to {p.meta_value!r}"
        stmts, detail = self._rewrite(self._row_of(p.target), change)
        return Outcome(stmts, [p.target.key()], {**detail, "field": ".".join(path),
                                                  "old": p.target.metadata.get(p.spec.meta_field),
                                                  "new": p.meta_value})

    # -- version rows -----------------------------------------------------

    def _labelled(self, context: str) -> list[tuple[dict[str, Any], str]]:
        return [(r, self.versions[str(r["version"])]) for r in self.rows()
                if r["context"] == context and str(r["version"]) in self.versions]

    def _roll_back(self, target: Record) -> Outcome:
        """T2: delete every version row of the context newer than the row current after the
        seeding write before the target's (and their cascade rows)."""
        context = target.context
        labelled = self._labelled(context)
        marks = [m for _, m in labelled]
        mark = target.label or next((m for m in marks if m in target.payload), None)
        if not self.versions or mark not in marks:
            raise EditError("T2 on version rows needs the version the SUT reported for each seeding write "
                            f"(none known for the target {target.key()})")
        k = marks.index(mark)
        if k == 0:
            raise EditError("T2: the target is the first record of its context; no earlier state to keep")
        keep = labelled[k - 1][0]
        doomed = [r for r in self.rows() if r["context"] == context and _rank(r["version"]) > _rank(keep["version"])]
        steps: list[tuple[str, list[Any], bool]] = []
        for row in doomed:
            where, args = self._where_addr(row["addr"])
            steps.append((f"DELETE FROM {_sql_name(self.layout.table)} WHERE {where}", args, True))
            for c in self.spec.cascade:
                where = " AND ".join(f"{_q(k)} = {self.PARAM}" for k in c.key)
                steps.append((f"DELETE FROM {_sql_name(c.table)} WHERE {where}",
                              [row["fields"][k] for k in c.key], False))
        statements = self._run_steps(steps)
        return Outcome(statements, [str(r["version"]) for r in doomed],
                       {"kept_current": keep["version"], "deleted_versions": [r["version"] for r in doomed],
                        "cascade": [c.table for c in self.spec.cascade]})

    def _state_edit(self, spec: EditSpec) -> Outcome:
        """An edit of whole version rows (opaque payloads)."""
        recs = self.records()
        if spec.case not in ("T1", "T2", "T6", "T7"):
            raise EditError(f"{spec.case}: the records sit inside an opaque payload; a keyless edit "
                            "cannot address one of them")
        target = find_one(recs, spec.target, "target")
        current = self.current_rows()
        if spec.case == "T2":
            return self._roll_back(target)
        if spec.case == "T1":
            row = current[spec.context or target.context]
            raw = bytes(self._raw(row))
            if not raw:
                raise EditError("T1: the current version row has an empty payload")
            at = len(raw) // 2
            new = raw[:at] + bytes([raw[at] ^ 0x01]) + raw[at + 1:]
            stmts = self._run_steps([self._set_payload(row, new)])
            return Outcome(stmts, [str(row["version"])], {"row": {**row["addr"], "version": row["version"]},
                                                          "operation": f"flip bit 0 of byte {at} of {len(raw)}"})
        donor_rec = find_one(recs, spec.donor or "", "donor")
        if spec.case == "T6":
            victim, donor = current[spec.context or target.context], current[donor_rec.context]
            if victim["context"] == donor["context"]:
                raise EditError("T6: donor and victim are in the same context")
        else:
            victim = current[target.context]
            donor = self._row_of(donor_rec)
            if donor["context"] != victim["context"] or donor["addr"] == victim["addr"]:
                raise EditError("T7: the donor row is not an older version of the victim's context")
        stmts = self._run_steps([self._set_payload(victim, self._raw(donor))])
        field = self.layout.payload.field
        return Outcome(stmts, [str(victim["version"])],
                       {"row": {**victim["addr"], "version": victim["version"]},
                        "donor": {**donor["addr"], "version": donor["version"]},
                        "operation": f"copy {field} of the donor version row over the victim's"})


class ListEditor(ListRecords, SqliteEditor):
    """List-element records in one SQLite file of a volume."""

    def __init__(self, layout: StoreLayout, volume_path: Path, versions: dict[str, str] | None = None):
        self._init_list(layout, versions)
        SqliteEditor.__init__(self, layout, volume_path)


def _at(row: dict[str, Any]) -> str:
    """A version row's address for messages (rowid 3, pk {...})."""
    return ", ".join(f"{k} {v}" for k, v in row["addr"].items())


def _sql_name(table: str) -> str:
    """A table name as SQL; ``schema.table`` quoted part by part."""
    return ".".join(_q(part) for part in table.split("."))


def _plain(value: Any) -> Any:
    """A value as plain data (a raw extension as {ext, hex}; MISSING as None)."""
    if value is paths.MISSING:
        return None
    if isinstance(value, msgpack.Ext):
        return {"ext": value.code, "hex": value.data.hex()} if not value.nested else _plain(value.value)
    return value


def _replace_strings(value: Any, find: str, replace: str) -> Any:
    """A deep copy of ``value`` with ``find`` replaced in every string (keys kept)."""
    if isinstance(value, str):
        return value.replace(find, replace)
    if isinstance(value, list):
        return [_replace_strings(v, find, replace) for v in value]
    if isinstance(value, dict):
        return {k: _replace_strings(v, find, replace) for k, v in value.items()}
    if isinstance(value, msgpack.Ext) and value.nested:
        return msgpack.Ext(value.code, b"", _replace_strings(value.value, find, replace))
    return copy.deepcopy(value)
