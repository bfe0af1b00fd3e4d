"""The SQL half every SQL editor shares: the record operations' hooks as UPDATE, DELETE
and INSERT statements on one table, one row per record. A dialect (SQLite,
PostgreSQL) supplies how to connect, read the table, address a row
(``ROW_ID`` or the primary key) and run statements in one transaction; its ``records()`` sets
``columns`` (in table order), ``pk`` (primary-key columns) and ``readonly`` (generated columns),
and gives each Record a ``locator`` holding ``ROW_ID`` or ``{"pk": {...}}``.
"""

from __future__ import annotations

from typing import Any

from edits import derived, paths
from edits.derived_layout import RECOMPUTED
from edits.layout import FieldRef, StoreLayout
from edits.model import EditError, Record
from edits.ops import SWAP
from edits.places import PlaceVariants, meta_refs_of, places_in, replace_at
from edits.relabel import written
from edits.sqlnames import quote as _q
from edits.plan import SWAP_CONTENTS, EditorBase, Outcome, Plan
from edits.values import fresh_identity, next_order


class SlotRefs:
    """A context or identity held at a path inside a field (the layout's ``context_ref`` and
    ``identity_refs``), and the scope of a context made of several fields (``layout.scope``): read
    them, and keep them with a record's slot when other fields are copied."""

    layout: StoreLayout

    def _plain(self, names) -> list[str]:
        """The names that are columns (not paths inside one)."""
        lay = self.layout
        return [n for n in names if n not in lay.identity_refs and not (lay.context_ref and n == lay.context)]

    def _scope_columns(self) -> list[str]:
        """The columns of the context's scope (its other fields that are whole columns)."""
        return [r.field for r in self.layout.scope if not r.path]

    def _slot_refs(self) -> list[FieldRef]:
        lay = self.layout
        return [*lay.identity_refs.values(), *([lay.context_ref] if lay.context_ref else []),
                *(r for r in lay.scope if r.path)]

    def _context_of(self, fields: dict[str, Any]) -> Any:
        ref = self.layout.context_ref
        return fields[self.layout.context] if ref is None else paths.read(fields.get(ref.field), ref.path, ref.format)

    def _scope_of(self, fields: dict[str, Any]) -> tuple:
        """The values of the context's scope in a row (a path absent: None)."""
        values = (fields.get(r.field) if not r.path else paths.read(fields.get(r.field), r.path, r.format)
                  for r in self.layout.scope)
        return tuple(None if v is paths.MISSING else v for v in values)

    def _identity_of(self, fields: dict[str, Any]) -> tuple:
        refs = self.layout.identity_refs
        return tuple(paths.read(fields.get(refs[n].field), refs[n].path, refs[n].format) if n in refs else fields[n]
                     for n in self.layout.identity)

    def _keep_slot(self, values: dict[str, Any], victim: Record) -> dict[str, Any]:
        """Copied fields with the victim's context and identity put back at their paths."""
        for ref in self._slot_refs():
            own = paths.read(victim.fields.get(ref.field), ref.path, ref.format)
            if ref.field in values and own is not paths.MISSING:
                values[ref.field] = paths.write(values[ref.field], ref.path, own, ref.format)
        return values


def fresh_slot(fields: dict[str, Any], columns: list[str], refs: tuple[FieldRef, ...],
               records: list[Record]) -> dict[str, Any]:
    """A forged row's fields: the template's ``fields`` with a fresh identity in each of ``columns``
    and at each identity place ``refs``, one fresh value for every place that held the template's one."""
    new, fresh = dict(fields), {}
    for col in columns:
        new[col] = fresh.setdefault(repr(new[col]), fresh_identity(r.fields[col] for r in records))
    for ref in refs:
        old = paths.read(new.get(ref.field), ref.path, ref.format)
        if old is not paths.MISSING:
            taken = [paths.read(r.fields.get(ref.field), ref.path, ref.format) for r in records]
            value = fresh.setdefault(repr(old), fresh_identity(v for v in taken if v is not paths.MISSING))
            new[ref.field] = paths.write(new[ref.field], ref.path, value, ref.format)
    return new


class SqlEditor(SlotRefs, PlaceVariants, EditorBase):
    """Edit hooks over one SQL table; subclasses set ``PARAM``, ``ROW_ID`` and implement ``_run``.

    ``replace`` replaces the token in every text/BLOB/JSON column that holds it; its variants
    (:mod:`edits.places`) replace it in one column, or at one path of a JSON column that holds
    it at several. ``set_meta`` writes every declared place of the field; its variants one place each.
    ``swap`` exchanges the order keys where the order is a column of its own, and offers
    ``swap=contents``: the two rows' contents (every column but the identity, primary key,
    context and order) exchanged instead, each row keeping its identity and order key; where the
    order is the identity or the position, exchanging the contents is the default.
    """

    PARAM = "?"
    ROW_ID = "rowid"
    position = False
    columns: list[str]
    pk: list[str]
    readonly: set[str]

    def _run(self, steps: list[tuple]) -> tuple[list[str], Any]:
        """Run ``(sql, args[, exactly_one=True])`` steps in one transaction (a step marked exactly_one
        must touch exactly one row); return (statements, last id)."""
        raise NotImplementedError

    def _table(self) -> str:
        """The table's name as SQL."""
        return _q(self.layout.table)

    def _where(self, rec: Record) -> tuple[str, list[Any]]:
        return self._where_addr(rec.locator)

    def _where_addr(self, addr: dict[str, Any]) -> tuple[str, list[Any]]:
        """A WHERE clause for one row's address: ``{ROW_ID: value}`` or ``{"pk": {column: value}}``."""
        if self.ROW_ID in addr:
            return f"{self.ROW_ID} = {self.PARAM}", [addr[self.ROW_ID]]
        pk = addr["pk"]
        return " AND ".join(f"{_q(c)} = {self.PARAM}" for c in pk), list(pk.values())

    def _fetch_table(self, table: str) -> tuple[list[str], list[tuple[dict[str, Any], dict[str, Any]]]]:
        """Every row of ``table`` (any table of the store): (columns, [(address, fields)])."""
        raise NotImplementedError

    def _param(self, column: str, value: Any) -> Any:
        """A value as a statement parameter for ``column`` (a dialect adapts what its driver cannot)."""
        return value

    def keeps_key_order(self, column: str) -> bool:
        """Whether ``column`` keeps an object's keys in the order written (JSON text does; a dialect
        whose column orders them itself says not, :mod:`edits.maps`)."""
        return True

    def _update(self, rec: Record, values: dict[str, Any]) -> tuple[str, list[Any]]:
        where, args = self._where(rec)
        sets = ", ".join(f"{_q(c)} = {self.PARAM}" for c in values)
        params = [self._param(c, v) for c, v in values.items()]
        return f"UPDATE {self._table()} SET {sets} WHERE {where}", [*params, *args]

    def _kept(self) -> set[str]:
        """Columns that stay with a row's slot: identity, primary key, context (its whole scope), order."""
        lay = self.layout
        return {*self._plain(lay.identity), *self.pk, *self._plain([lay.context]), *self._scope_columns(),
                *([] if self.position else [lay.order])} | self.readonly

    def _token_skip(self) -> set[str]:
        """Identity, context (its whole scope) and generated columns never count as a place of the token."""
        return {*self._plain(self.layout.identity), *self._plain([self.layout.context]),
                *self._scope_columns()} | self.readonly

    def _rewritten(self, fields: dict[str, Any], find: str, replace: str) -> dict[str, Any]:
        skip = self._token_skip()  # a json/jsonb column (read as an object) too: the token in its strings
        out = {c: replace_at(v, (), find, replace) for c, v in fields.items() if c not in skip and places_in(v, find)}
        if self.layout.payload.field not in out:
            raise EditError(f"{find!r} is in the decoded payload but not in the stored column "
                            f"{self.layout.payload.field!r} (escaped or encoded?)")
        return out

    def _replace(self, p: Plan) -> Outcome:
        if p.spec.variant is None:
            values = self._rewritten(p.target.fields, p.spec.find, p.spec.replace)
        else:
            values = self._variant_values(p.target, p.spec)
        stmts, _ = self._run([self._update(p.target, values)])
        return Outcome(stmts, [p.target.key()], {"columns": sorted(values),
                                                  **({"place": p.spec.variant} if p.spec.variant else {})})

    def _delete(self, p: Plan) -> Outcome:
        where, args = self._where(p.target)
        stmts, _ = self._run([(f"DELETE FROM {self._table()} WHERE {where}", args)])
        return Outcome(stmts, [p.target.key()])

    def _orders_by_own_column(self) -> bool:
        """True when the order is a column of its own (not the identity, primary key or position)."""
        return not (self.position or self.layout.order in {*self.layout.identity, *self.pk})

    def variants(self, spec, records: list[Record]) -> list[str]:
        """The place variants (replace, set_meta: :mod:`edits.places`), a swap's ``swap=contents`` where
        the order is a column of its own, and ``derived=recomputed`` where the layout declares derived values
        (:mod:`edits.derived`)."""
        own = [SWAP_CONTENTS] if spec.op == SWAP and spec.unit == "record" and self._orders_by_own_column() else []
        return super().variants(spec, records) + own + derived.variants(self.layout, spec)

    def _apply_variant(self, spec):
        """``derived=recomputed``: the default edit, then the derived values it made wrong (:mod:`edits.derived`)."""
        return derived.apply(self, spec) if spec.variant == RECOMPUTED else None

    def _swap(self, p: Plan) -> Outcome:
        a, b, order = p.target, p.other, self.layout.order
        if not self._orders_by_own_column() or p.spec.variant == SWAP_CONTENTS:
            cols = [c for c in self.columns if c not in self._kept()]
            steps = [self._update(a, self._keep_slot({c: b.fields[c] for c in cols}, a)),
                     self._update(b, self._keep_slot({c: a.fields[c] for c in cols}, b))]
            detail = {"swapped": cols}
        else:
            temp = next_order(r.fields[order] for r in p.records)
            steps = [self._update(a, {order: temp}), self._update(b, {order: a.fields[order]}),
                     self._update(a, {order: b.fields[order]})]
            detail = {"swapped": [order], "temporary": temp}
        stmts, _ = self._run(steps)
        return Outcome(stmts, [a.key(), b.key()], detail)

    def _forge(self, p: Plan) -> Outcome:
        lay = self.layout
        kept = {lay.context, *self._scope_columns()} | self.readonly  # the template's whole context stays
        new = fresh_slot(p.target.fields, sorted({*self._plain(lay.identity), *self.pk} - kept),
                         tuple(lay.identity_refs.values()), p.records)
        if not self.position and lay.order not in {*lay.identity, *self.pk}:
            new[lay.order] = next_order(r.order for r in p.beside(p.target))
        new.update(self._rewritten(new, p.spec.find, p.spec.replace))
        cols = [c for c in self.columns if c not in self.readonly]
        sql = (f"INSERT INTO {_q(lay.table)} ({', '.join(map(_q, cols))}) "
               f"VALUES ({', '.join(self.PARAM for _ in cols)})")
        stmts, rowid = self._run([(sql, [self._param(c, new[c]) for c in cols])])
        key = "|".join(str(v) for v in self._identity_of(new)) if lay.identity else str(rowid)
        return Outcome(stmts, [key], {"template": p.target.key(), "new": key})

    def _transplant(self, p: Plan) -> Outcome:
        cols = [c for c in self.columns if c not in self._kept()]
        values = self._keep_slot({c: p.other.fields[c] for c in cols}, p.target)
        stmts, _ = self._run([self._update(p.target, values)])
        return Outcome(stmts, [p.target.key()], {"donor": p.other.key(), "copied": cols})

    def _set_meta(self, p: Plan) -> Outcome:
        name, old = p.spec.meta_field, p.target.metadata.get(p.spec.meta_field)
        refs = meta_refs_of(self._meta_places(name), p.spec.variant)
        values = written(name, refs, p.target.fields, old, p.meta_value)  # every place that holds the value
        stmts, _ = self._run([self._update(p.target, values)])
        cols = sorted(values)
        return Outcome(stmts, [p.target.key()], {"column": cols[0] if len(cols) == 1 else cols,
                                                  "places": [r.name() for r in refs],
                                                  "old": old, "new": p.meta_value})
