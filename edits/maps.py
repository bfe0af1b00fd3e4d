"""Generic editor for records that are the entries of a keyed map in a SQL column (sqlite, postgres).

The layout's ``map:`` block (:mod:`edits.layout_map`) says: each row of the table holds one
context's map -- a JSON object at ``payload.path`` in its ``payload.field`` column -- and every
entry of it is one record, keyed by (context, key). The row's context (all of its fields, where the
layout declares a context of several) is every entry's; the entry's key is its identity; its place
in the object its order -- where the column keeps the order written (JSON text); in a column that
orders an object's keys itself (PostgreSQL's jsonb) an entry has no order (``order`` None), so C3's
position checks do not apply there (:meth:`lab.cases.evidence.RecordView.keeps_order`). Google ADK
keeps session, user and app state this way.

Every edit rewrites the map column of one row, in one UPDATE, and nothing else:

- ``replace`` replaces the token inside the target entry's value, in the characters of that value only;
- ``rollback``, ``delete`` remove the entry; ``swap`` exchanges the places of two entries in the object;
- ``forge`` adds an entry under a fresh key, after the context's last one: a copy of the template's value
  with the marker replaced (where the store orders an object's keys itself -- PostgreSQL's jsonb:
  shorter keys first, then bytewise -- a fresh key it places after the last one, :func:`key_after`);
- ``transplant`` puts a copy of the donor's value under the victim's key, in the victim's place and row (its
  whole context kept);
- ``set_meta`` sets a metadata path inside the target's value (``map.metadata``).

JSON text is written back as the SUT wrote it (``json.dumps``'s own separators, ASCII when the
text was); a parsed column (PostgreSQL's jsonb) as a value. No variant is offered: a map entry has
one value, one place, no version rows.

Example::

    >>> import json, sqlite3, tempfile, pathlib
    >>> from edits import base, layout, model
    >>> vol = pathlib.Path(tempfile.mkdtemp())
    >>> db = sqlite3.connect(vol / "s.db")
    >>> _ = db.execute("CREATE TABLE user_states (app TEXT, user TEXT, state TEXT)")
    >>> _ = db.execute("INSERT INTO user_states VALUES ('app', 'A', ?)",
    ...                (json.dumps({"k1": "[mA1-abcdef] one", "k2": "[mA2-abcdef] two"}),))
    >>> db.commit(); db.close()
    >>> lay = layout.parse_layout({"backend": "sqlite", "volume": "store", "file": "s.db", "table": "user_states",
    ...                            "context": ["user", "app"], "identity": ["@key"], "order": "@position",
    ...                            "payload": {"field": "state", "format": "json"}, "map": {"text": []}})
    >>> editor = base.editor_for(lay, {"store": vol})
    >>> [(r.whole_context(), r.key(), r.order) for r in editor.records()]
    [(('A', 'app'), 'k1', 0), (('A', 'app'), 'k2', 1)]
    >>> editor.apply(model.EditSpec("demo", "A", "mA1-abcdef", op="delete")).detail
    {'row': {'rowid': 1}, 'operation': 'remove entry "k1"'}
    >>> [r.key() for r in editor.records()]
    ['k2']
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable

from edits import paths
from edits.model import EditError, Record
from edits.places import replace_at
from edits.plan import EditorBase, Outcome, Plan
from edits.records import sort_records
from edits.sqlnames import quote as _q
from edits.values import fresh_identity


class MapEditor(EditorBase):
    """Records = entries of the map in each row, read and written through ``sql``: the SQL dialect
    editor (:mod:`edits.sql`) of the same layout, whose ``_fetch_table``, ``_run``, ``_where_addr``,
    ``_table``, ``_context_of``, ``_scope_of``, ``PARAM`` and ``keeps_key_order`` it uses.
    ``param(column, value)``: a rewritten map as a statement parameter (default: the dialect's)."""

    def __init__(self, sql: Any, param: Callable[[str, Any], Any] | None = None):
        self.sql, self.layout, self.backend = sql, sql.layout, sql.backend
        self._param = param or sql._param

    def files(self) -> list:
        """The files an edit may write: the dialect's."""
        return self.sql.files()

    def records(self) -> list[Record]:
        """Every entry of every row's map, sorted by (context, place in the object)."""
        lay = self.layout
        columns, rows = self.sql._fetch_table(lay.table)
        wanted = [lay.context_ref.field if lay.context_ref else lay.context, *(r.field for r in lay.scope),
                  lay.payload.field]
        missing = [c for c in wanted if c not in columns]
        if missing:
            raise EditError(f"table {lay.table!r} has no column(s) {missing} named by the layout")
        self.rows = {repr(addr): (addr, fields) for addr, fields in rows}
        placed = self.sql.keeps_key_order(self.layout.payload.field)  # asked once a read (on PostgreSQL, of the server)
        out = []
        for addr, fields in rows:
            for i, (key, value) in enumerate(self._map(addr, fields).items()):
                out.append(self._entry(addr, fields, i if placed else None, key, value))
        return sort_records(out)

    def _map(self, addr: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
        """The row's map (an empty one where the column holds none yet)."""
        raw = fields[self.layout.payload.field]
        if raw is None:
            return {}
        try:
            found = paths.get_path(paths.parse(raw, "json"), self.layout.payload.path)
        except EditError as exc:
            raise EditError(f"{self.layout.table} {addr}: {exc}") from None
        if found is paths.MISSING or found is None:
            return {}
        if not isinstance(found, dict):
            raise EditError(f"{self.layout.table} {addr}: the value at {list(self.layout.payload.path)} "
                            "is not an object")
        return found

    def _entry(self, addr: dict[str, Any], fields: dict[str, Any], index: int | None, key: str,
               value: Any) -> Record:
        spec = self.layout.map
        text = paths.get_path(value, spec.text)
        meta = {n: paths.get_path(value, p) for n, p in spec.metadata.items()}
        return Record(context=str(self.sql._context_of(fields)), scope=self.sql._scope_of(fields), identity=(key,),
                      order=index, payload="" if text in (None, paths.MISSING) else
                      text if isinstance(text, str) else json.dumps(text, ensure_ascii=False),
                      metadata={n: None if v is paths.MISSING else v for n, v in meta.items()},
                      fields={"@key": key, "@value": value},
                      locator={"file": self.layout.file, "table": self.layout.table, **addr, "key": key})

    # -- writing --------------------------------------------------------------
    def _row_of(self, rec: Record) -> tuple[dict[str, Any], dict[str, Any]]:
        addr = {k: v for k, v in rec.locator.items() if k not in ("file", "table", "key")}
        return self.rows[repr(addr)]

    def _write(self, rec: Record, new_map: dict[str, Any] | None = None, raw: Any = None,
               operation: str = "") -> Outcome:
        """One UPDATE of ``rec``'s row: its map column set to ``raw`` (already encoded), or to
        ``new_map`` encoded as the column held it."""
        addr, fields = self._row_of(rec)
        column, old = self.layout.payload.field, fields[self.layout.payload.field]
        if raw is None:
            path = self.layout.payload.path
            raw = paths.write(old, path, new_map) if path else paths.encode_like(old, new_map)
        where, args = self.sql._where_addr(addr)
        sql = f"UPDATE {self.sql._table()} SET {_q(column)} = {self.sql.PARAM} WHERE {where}"
        stmts, _ = self.sql._run([(sql, [self._param(column, raw), *args])])
        return Outcome(stmts, [rec.key()], {"row": addr, "operation": operation})

    def _current(self, rec: Record) -> dict[str, Any]:
        return dict(self._map(*self._row_of(rec)))

    def _replace(self, p: Plan) -> Outcome:
        addr, fields = self._row_of(p.target)
        old = fields[self.layout.payload.field]
        at = (*self.layout.payload.path, p.target.identity[0])
        if isinstance(old, (bytes, bytearray)):
            old = old.decode("utf-8")
        raw = replace_at(old, at, p.spec.find, p.spec.replace)
        return self._write(p.target, raw=raw, operation=f"replace {p.spec.find!r} in the value of entry "
                                                         f"{json.dumps(p.target.identity[0])}")

    def _delete(self, p: Plan) -> Outcome:
        entries = self._current(p.target)
        del entries[p.target.identity[0]]
        return self._write(p.target, entries, operation=f"remove entry {json.dumps(p.target.identity[0])}")

    def _swap(self, p: Plan) -> Outcome:
        if not self.sql.keeps_key_order(self.layout.payload.field):  # the keys would be read back as before
            raise EditError(f"swap: the {self.backend} map column orders an object's keys itself; two entries' "
                            "places cannot be exchanged")
        entries, a, b = self._current(p.target), p.target.identity[0], p.other.identity[0]
        keys = list(entries)
        i, j = keys.index(a), keys.index(b)
        keys[i], keys[j] = keys[j], keys[i]
        return self._write(p.target, {k: entries[k] for k in keys},
                           operation=f"exchange the places of entries {json.dumps(a)} and {json.dumps(b)}")

    def _forge(self, p: Plan) -> Outcome:
        entries = self._current(p.target)
        key = fresh_identity(list(entries))
        if not self.sql.keeps_key_order(self.layout.payload.field):
            key = key_after(list(entries), key)
        value = json.loads(replace_at(json.dumps(p.target.fields["@value"], ensure_ascii=False), (),
                                      p.spec.find, p.spec.replace))
        out = self._write(p.target, {**entries, key: value}, operation=f"add entry {json.dumps(key)} after the last")
        out.touched = [key]
        out.detail.update({"template": p.target.key(), "new": key})
        return out

    def _transplant(self, p: Plan) -> Outcome:
        entries, key = self._current(p.target), p.target.identity[0]
        entries[key] = p.other.fields["@value"]
        out = self._write(p.target, entries, operation=f"the value of entry {json.dumps(p.other.key())} put under "
                                                       f"entry {json.dumps(key)}")
        out.detail["donor"] = p.other.key()
        return out

    def _set_meta(self, p: Plan) -> Outcome:
        path = self.layout.map.metadata.get(p.spec.meta_field)
        if path is None:
            raise EditError(f"{p.spec.op}: map.metadata declares no {p.spec.meta_field!r}")
        entries, key = self._current(p.target), p.target.identity[0]
        entries[key] = paths.set_path(entries[key], path, p.meta_value)
        out = self._write(p.target, entries, operation=f"set {'.'.join(path)} of entry {json.dumps(key)}")
        out.detail.update({"old": p.target.metadata.get(p.spec.meta_field), "new": p.meta_value})
        return out


_HEX_TAIL = re.compile(r"^(.*?)([0-9a-f]+|[0-9A-F]+)$")


def jsonb_rank(key: str) -> tuple[int, bytes]:
    """A key's place among an object's keys in PostgreSQL's jsonb: shorter keys first, then
    bytewise (lengthCompareJsonbString: length, then memcmp of the UTF-8 bytes)."""
    raw = key.encode("utf-8")
    return len(raw), raw


def key_after(keys: list[str], fresh: str) -> str:
    """A key not among ``keys`` that jsonb places after all of them, in the keys' own form where it
    can: the last key with its trailing hex (or decimal) digits counted up by one at the same
    width; else ``fresh`` (the key a forge makes on any store) when jsonb places it last; else the last
    key with ``-forged`` appended (longer: placed last).

    >>> key_after(["note-fd9933aa4c05", "note-0a1b2c3d4e5f"], "note-0a1b2c3d4e60")
    'note-fd9933aa4c06'
    >>> key_after(["k1", "k2"], "k3")
    'k3'
    >>> key_after(["a-ff", "a-00"], "a-01")
    'a-ff-forged'
    """
    if not keys:
        return fresh
    last = max(keys, key=jsonb_rank)
    taken = set(keys)
    m = _HEX_TAIL.match(last)
    if m:
        head, digits = m.groups()
        nxt = format(int(digits, 16) + 1, f"0{len(digits)}{'X' if digits.isupper() else 'x'}")
        candidate = head + nxt
        if len(nxt) == len(digits) and candidate not in taken and jsonb_rank(candidate) > jsonb_rank(last):
            return candidate
    if fresh not in taken and jsonb_rank(fresh) > jsonb_rank(last):
        return fresh
    candidate, n = f"{last}-forged", 2
    while candidate in taken:
        candidate, n = f"{last}-forged{n}", n + 1
    return candidate
