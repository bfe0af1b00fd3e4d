"""Resolve an :class:`~edits.model.EditSpec` against the records of a store, and
the dispatch every backend editor shares.

:func:`plan` checks everything that does not depend on the backend (markers
found and unique, the target in ``spec.context``, a swap's two records distinct and
in one context, a transplant's donor another record than its victim, same-length
find/replace, a declared metadata field to set and a value that really differs) and
raises :class:`~edits.model.EditError` otherwise; where a donor must come from (the
other context, the same one) is the case's to check, not the editor's. An editor
subclasses :class:`EditorBase` and implements one hook per operation (:mod:`edits.ops`).

Example::

    >>> from edits.model import EditSpec, Record
    >>> from edits.plan import plan
    >>> recs = [Record("A", (1,), 1, "mA1-x one"), Record("A", (2,), 2, "mA2-y two")]
    >>> p = plan(EditSpec("demo", "A", "mA1-x", second="mA2-y", op="swap"), recs, metadata={})
    >>> (p.target.identity, p.other.identity)
    ((1,), (2,))
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from edits.layout import StoreLayout
from edits.model import AppliedEdit, EditError, EditSpec, Record
from edits.ops import DELETE, FORGE, OPS, REPLACE, ROLLBACK, SET_META, SWAP, TRANSPLANT
from edits.records import changed_bytes_in, find_one, read_files
from edits.values import tamper_value


@dataclass(frozen=True)
class Plan:
    """A spec resolved to records: ``target``, ``other`` (a swap's second, a transplant's donor),
    the value a metadata field is set to."""

    spec: EditSpec
    target: Record
    records: list[Record]
    other: Record | None = None
    meta_value: Any = None

    def in_context(self, context: str) -> list[Record]:
        """The records of one context, in order."""
        return [r for r in self.records if r.context == context]

    def beside(self, record: Record) -> list[Record]:
        """The records of ``record``'s whole context (its scope too), in order."""
        return [r for r in self.records if r.whole_context() == record.whole_context()]


@dataclass
class Outcome:
    """What a backend hook reports back: operations run, keys touched, extra detail."""

    statements: list[str]
    touched: list[str]
    detail: dict[str, Any] = field(default_factory=dict)


def plan(spec: EditSpec, records: list[Record], metadata: dict[str, str]) -> Plan:
    """Resolve ``spec`` against ``records``; raise EditError for anything impossible."""
    op = spec.op
    if op not in OPS:
        raise EditError(f"{op}: names no record operation (of {', '.join(OPS)}); a whole-volume "
                        "operation is edits.volumes'")
    target = find_one(records, spec.target, "target")
    if spec.context and target.context != spec.context:
        raise EditError(f"{op}: target marker {spec.target!r} is in context {target.context!r}, "
                        f"the spec names {spec.context!r}")
    other, meta_value = None, None
    if op in (REPLACE, FORGE):
        _check_find(spec, target)
    elif op == SWAP:
        other = _other(spec, records, target, spec.second, "second")
        if other.whole_context() != target.whole_context():
            raise EditError(f"{op}: the two records are in different contexts ({_named(target)!r}, "
                            f"{_named(other)!r})")
    elif op == TRANSPLANT:
        other = _other(spec, records, target, spec.donor, "donor")
    elif op == SET_META:
        meta_value = _meta_value(spec, target, metadata)
    return Plan(spec=spec, target=target, records=records, other=other, meta_value=meta_value)


def _meta_value(spec: EditSpec, target: Record, metadata: dict[str, str]) -> Any:
    """The value ``set_meta`` gives the field: the spec's, or one derived from the old (and differing)."""
    name = spec.meta_field
    if not name:
        raise EditError(f"{spec.op}: spec names no meta_field")
    if name not in metadata:
        raise EditError(f"{spec.op}: layout declares no metadata field {name!r}")
    old = target.metadata.get(name)
    meta_value = spec.meta_value if spec.meta_value is not None else tamper_value(name, old)
    if meta_value == old:
        raise EditError(f"{spec.op}: new {name} {meta_value!r} equals the old value")
    return meta_value


def _named(record: Record) -> Any:
    """A record's context for a message: its name, or with its scope where it has one."""
    return record.whole_context() if record.scope else record.context


def _check_find(spec: EditSpec, target: Record) -> None:
    if spec.find is None or spec.replace is None:
        raise EditError(f"{spec.op}: spec needs find and replace")
    if spec.find == spec.replace or len(spec.find.encode()) != len(spec.replace.encode()):
        raise EditError(f"{spec.op}: find {spec.find!r} and replace {spec.replace!r} must differ "
                        "and have the same encoded length")
    if spec.find not in target.payload:
        raise EditError(f"{spec.op}: {spec.find!r} is not in the payload of record {target.key()}")


def _other(spec: EditSpec, records: list[Record], target: Record, marker: str | None, role: str) -> Record:
    if not marker:
        raise EditError(f"{spec.op}: spec names no {role} marker")
    other = find_one(records, marker, role)
    if other is target or other == target:
        raise EditError(f"{spec.op}: target and {role} are the same record")
    return other


SWAP_CONTENTS = "swap=contents"  # swap: the contents of two records exchanged, each keeping its identity and order


class EditorBase:
    """Shared ``apply``: plan the edit, run the backend hook, measure changed bytes.

    Subclasses set ``backend`` and implement ``records``, ``files`` and one hook per
    operation (:mod:`edits.ops`): ``_replace``, ``_delete``, ``_swap``, ``_forge``,
    ``_transplant`` and ``_set_meta``, each returning an :class:`Outcome`; ``_rollback`` is
    ``_delete`` unless the store keeps versions to roll back (:mod:`edits.lists`).
    """

    backend = "?"
    layout: StoreLayout

    def records(self) -> list[Record]:  # pragma: no cover - implemented per backend
        """Every record of every context, sorted by (context, order)."""
        raise NotImplementedError

    def files(self) -> list[Path]:  # pragma: no cover - implemented per backend
        """The files an edit may write, for the changed-bytes count."""
        raise NotImplementedError

    def variants(self, spec: EditSpec, records: list[Record]) -> list[str]:
        """The names of the other expressions of ``spec`` this store allows (``EditSpec.variant``),
        besides the default one; none unless a backend offers them."""
        return []

    def apply(self, spec: EditSpec) -> AppliedEdit:
        """Apply exactly one edit (one operation) and return what was actually done."""
        records = self.records()
        offered = self.variants(replace(spec, variant=None), records) if spec.variant is not None else []
        if spec.variant is not None and spec.variant not in offered:
            raise EditError(f"{spec.op}: the {self.backend} editor offers no variant {spec.variant!r} for this "
                            f"store (it offers {offered or 'none'})")
        whole = self._apply_variant(spec)
        if whole is not None:
            return whole
        p = plan(spec, records, self.layout.metadata)
        hook = {REPLACE: self._replace, DELETE: self._delete, ROLLBACK: self._rollback, SWAP: self._swap,
                FORGE: self._forge, TRANSPLANT: self._transplant, SET_META: self._set_meta}[p.spec.op]
        before = read_files(self.files())
        out = hook(p)
        before.update({f: None for f in self.files() if f not in before})
        return AppliedEdit(case=spec.case, backend=self.backend, statements=out.statements,
                           touched=out.touched, bytes_changed=changed_bytes_in(before), detail=out.detail)

    def _apply_variant(self, spec: EditSpec) -> AppliedEdit | None:
        """A variant applied as a whole edit of its own (the SQL editors' ``derived=recomputed``,
        :mod:`edits.derived`), or None: the default edit, by the operation's hook."""
        return None

    def _replace(self, p: Plan) -> Outcome:
        raise NotImplementedError

    def _delete(self, p: Plan) -> Outcome:
        raise NotImplementedError

    def _rollback(self, p: Plan) -> Outcome:
        """Back to before the target's write: where no versions are kept, the target (the newest) deleted."""
        return self._delete(p)

    def _swap(self, p: Plan) -> Outcome:
        raise NotImplementedError

    def _forge(self, p: Plan) -> Outcome:
        raise NotImplementedError

    def _transplant(self, p: Plan) -> Outcome:
        raise NotImplementedError

    def _set_meta(self, p: Plan) -> Outcome:
        raise NotImplementedError
