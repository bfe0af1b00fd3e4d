"""Derived values a keyless adversary recomputes: the ``derived=recomputed`` variant of every record operation.

A store that keeps an unkeyed digest of its rows or a hash chain over them, where the adversary
writes, proves nothing against that adversary: after any edit it recomputes them. The layout
declares them as data (``store.derived``, :mod:`edits.derived_layout`); this module

- checks them (:func:`problems`): every declared value equal to what its declaration computes
  from the store as it stands -- on the untouched store this proves the declaration describes
  the store (an edit refuses to start otherwise), after the variant's edit that it landed;
- recomputes them (:func:`apply`): the spec's own default edit, then each declaration in turn,
  in one transaction each, writing exactly the values the edit made wrong (a chain: from the
  first row whose link or digest no longer holds; ``orphans: delete``: a row whose source row
  the edit deleted is deleted too; ``renumber``: the chain's order column kept contiguous);
- attaches the check to each record it reads (:func:`attach`: ``Record.derived``, per context),
  so C3 (:mod:`lab.cases.derived`) judges the variant from the saved records alone.

SQL stores only (the editor's ``_fetch_table``, ``_where_addr`` and ``_run``). Example::

    >>> import sqlite3, tempfile, pathlib
    >>> from edits import layout, model, sqlite
    >>> vol = pathlib.Path(tempfile.mkdtemp())
    >>> db = sqlite3.connect(vol / "m.db")
    >>> _ = db.execute("CREATE TABLE r (id INTEGER PRIMARY KEY, ctx TEXT, body TEXT, sha TEXT)")
    >>> rows = [("A", "mA1-q first FACT-A1"), ("A", "mA2-q second")]
    >>> _ = db.executemany("INSERT INTO r (ctx, body, sha) VALUES (?, ?, ?)",
    ...                    [(c, b, hashlib.sha256(b.encode()).hexdigest()) for c, b in rows])
    >>> db.commit(); db.close()
    >>> lay = layout.parse_layout({"backend": "sqlite", "volume": "s", "file": "m.db", "table": "r",
    ...     "context": "ctx", "identity": ["id"], "order": "id", "payload": "body",
    ...     "derived": [{"field": "sha", "digest": "sha256", "form": "text", "of": ["body"]}]})
    >>> editor = sqlite.SqliteEditor(lay, vol)
    >>> spec = model.EditSpec("demo", "A", "mA1-q", find="FACT-A1", replace="FACT-Z9", op="replace")
    >>> editor.variants(spec, editor.records())
    ['derived=recomputed']
    >>> done = editor.apply(dataclasses.replace(spec, variant="derived=recomputed"))
    >>> problems(editor), editor.records()[0].fields["sha"] == hashlib.sha256(b"mA1-q first FACT-Z9").hexdigest()
    ([], True)
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
from typing import Any

from edits import paths
from edits.derived_layout import RECOMPUTED
from edits.model import AppliedEdit, EditError, EditSpec, Record
from edits.ops import OPS
from edits.records import changed_bytes_in, read_files
from edits.sqlnames import quote as _q


def declared(layout) -> list[dict[str, Any]]:
    """The layout's derived values (plain data, as :func:`edits.derived_layout.parse_derived` kept them)."""
    return list((layout.options or {}).get("derived") or [])


def variants(layout, spec: EditSpec) -> list[str]:
    """``derived=recomputed`` for a record edit on a layout that declares derived values."""
    return [RECOMPUTED] if declared(layout) and spec.unit == "record" and spec.op in OPS else []


def name_of(decl: dict[str, Any]) -> str:
    """How a reader sees a derived value: ``table.column`` (``.path`` inside it)."""
    return ".".join([decl["table"], decl["field"], *decl["path"]])


def digest_of(decl: dict[str, Any], row: dict[str, Any]) -> str:
    """The value ``decl`` computes from ``row`` (the source row, or the row itself)."""
    values = {}
    for name, column in decl["of"].items():
        if column not in row:
            raise EditError(f"{name_of(decl)}: the digested row has no column {column!r} (store.derived.of)")
        value = row[column]
        if column in decl["json"] and isinstance(value, (str, bytes)):
            value = json.loads(value)
        values[name] = value
    if decl["form"] == "json":
        raw = json.dumps(values, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()
    else:
        value = next(iter(values.values()))
        raw = value if isinstance(value, (bytes, bytearray)) else str(value).encode()
    out = hashlib.new(decl["digest"], raw).digest()
    return out.hex() if decl["encoding"] == "hex" else base64.b64encode(out).decode()


def stored(decl: dict[str, Any], row: dict[str, Any]) -> Any:
    """The value as the row stores it (None when it holds none)."""
    if decl["field"] not in row:
        raise EditError(f"{name_of(decl)}: table {decl['table']!r} has no column {decl['field']!r}")
    value = paths.read(row[decl["field"]], tuple(decl["path"]))
    return None if value is paths.MISSING else value


@dataclasses.dataclass
class Fix:
    """One row a declaration finds wrong: its address, context, why, and the new values (None: delete)."""

    addr: dict[str, Any]
    context: Any
    why: str
    values: dict[str, Any] | None


def plan(editor, decl: dict[str, Any]) -> tuple[int, list[Fix], dict[Any, int]]:
    """(rows checked, fixes, rows checked per context) of one declaration on the store as it stands."""
    _, rows = editor._fetch_table(decl["table"])
    rows = [(a, f) for a, f in rows if all(f.get(c) in vals for c, vals in decl["where"].items())]
    if decl["chain"]:
        return _chain(editor, decl, rows)
    sources = None
    if decl["source"]:
        _, src = editor._fetch_table(decl["source"]["table"])
        sources = {tuple(f.get(c) for c in decl["source"]["match"].values()): f for _, f in src}
    fixes, per = [], {}
    for addr, fields in rows:
        row = fields if sources is None else sources.get(tuple(fields.get(c) for c in decl["source"]["match"]))
        context = _context(editor, decl, fields if row is None else row)
        per[context] = per.get(context, 0) + 1
        if row is None:
            if decl["orphans"] == "delete":
                fixes.append(Fix(addr, context, "its source row is gone", None))
            continue
        want = digest_of(decl, row)
        if stored(decl, fields) != want:
            fixes.append(Fix(addr, context, "stored digest differs", {decl["field"]: _put(decl, fields, want)}))
    return len(rows), fixes, per


def _chain(editor, decl, rows) -> tuple[int, list[Fix], dict[Any, int]]:
    chain, fixes, per = decl["chain"], [], {}
    groups: dict[Any, list] = {}
    for addr, fields in rows:
        groups.setdefault(fields.get(chain["group"]) if chain["group"] else None, []).append((addr, fields))
    for group, members in groups.items():
        members.sort(key=lambda m: m[1][chain["order"]])
        previous, start = None, members[0][1][chain["order"]]
        for i, (addr, fields) in enumerate(members):
            row = dict(fields)
            row[chain["link"]] = previous
            if chain["renumber"] and isinstance(start, int):
                row[chain["order"]] = start + i
            row[decl["field"]] = _put(decl, row, digest_of(decl, row))
            previous = stored(decl, row)
            context = group if chain["group"] else _context(editor, decl, fields)
            per[context] = per.get(context, 0) + 1
            changed = {c: v for c, v in row.items() if v != fields.get(c)}
            if changed:
                fixes.append(Fix(addr, context, f"chain broken at {chain['order']} {fields[chain['order']]}", changed))
    return len(rows), fixes, per


def _put(decl, row, value):
    return paths.write(row[decl["field"]], tuple(decl["path"]), value) if decl["path"] else value


def _context(editor, decl, row) -> Any:
    try:
        return editor._context_of(row)
    except KeyError:
        return None


def problems(editor) -> list[str]:
    """Every declared derived value that differs from what its declaration computes (empty: consistent)."""
    out = []
    for decl in declared(editor.layout):
        _, fixes, _ = plan(editor, decl)
        out += [f"{name_of(decl)} at {f.addr}: {f.why}" for f in fixes]
    return out


def attach(editor, records: list[Record]) -> list[Record]:
    """``records`` with ``derived`` set: per declaration, the rows checked and found wrong in the
    record's context (unchanged when the layout declares none)."""
    decls = declared(editor.layout)
    if not decls:
        return records
    status: dict[Any, dict[str, Any]] = {}
    for decl in decls:
        _, fixes, per = plan(editor, decl)
        for context, n in per.items():
            status.setdefault(context, {})[name_of(decl)] = {"checked": n, "wrong": 0}
        for f in fixes:
            entry = status.setdefault(f.context, {}).setdefault(name_of(decl), {"checked": 0, "wrong": 0})
            entry["wrong"] += 1
    return [dataclasses.replace(r, derived=status.get(r.context, {})) for r in records]


def apply(editor, spec: EditSpec, sql: Any = None) -> AppliedEdit:
    """The spec's default edit, then every declared derived value it made wrong recomputed; the rows
    read and written through ``sql``, the SQL dialect editor (default: ``editor`` itself)."""
    sql = editor if sql is None else sql
    wrong = problems(sql)
    if wrong:
        raise EditError(f"the untouched store's derived values do not match their declaration "
                        f"(store.derived describes another computation): {wrong[:3]}")
    before = read_files(editor.files())
    done = editor.apply(dataclasses.replace(spec, variant=None))
    statements, recomputed = list(done.statements), []
    for decl in declared(editor.layout):
        _, fixes, _ = plan(sql, decl)
        steps = [_step(sql, decl, f) for f in fixes]
        if steps:
            statements += sql._run(steps)[0]
            recomputed.append({"value": name_of(decl), "rows": len(fixes),
                               "deleted": sum(f.values is None for f in fixes)})
    left = problems(sql)
    if left:
        raise EditError(f"recomputing the derived values left them inconsistent: {left[:3]}")
    before.update({f: None for f in editor.files() if f not in before})
    return dataclasses.replace(done, statements=statements, bytes_changed=changed_bytes_in(before),
                               detail={**done.detail, "variant": RECOMPUTED, "recomputed": recomputed})


def _step(editor, decl, fix: Fix) -> tuple[str, list[Any]]:
    table = _q(decl["table"])
    where, args = editor._where_addr(fix.addr)
    if fix.values is None:
        return f"DELETE FROM {table} WHERE {where}", args
    sets = ", ".join(f"{_q(c)} = {editor.PARAM}" for c in fix.values)
    return f"UPDATE {table} SET {sets} WHERE {where}", [*fix.values.values(), *args]
