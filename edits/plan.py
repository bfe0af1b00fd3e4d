"""Resolve an :class:`~edits.model.EditSpec` against the records of a store, and
the dispatch every backend editor shares.

:func:`plan` checks everything that does not depend on the backend (markers
found and unique, the target in ``spec.context``, T4's two records distinct and
in one context, T6's donor from another context and T7's from the same one,
same-length find/replace, a declared T8 metadata field and a value that really
differs) and raises :class:`~edits.model.EditError` otherwise. An editor
subclasses :class:`EditorBase` and implements one hook per kind of edit.

Example::

    >>> from edits.model import EditSpec, Record
    >>> from edits.plan import plan
    >>> recs = [Record("A", (1,), 1, "mA1-x one"), Record("A", (2,), 2, "mA2-y two")]
    >>> p = plan(EditSpec("T4", "A", "mA1-x", second="mA2-y"), recs, metadata={})
    >>> (p.target.identity, p.other.identity)
    ((1,), (2,))
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from edits.derived_layout import RECOMPUTED
from edits.layout import StoreLayout
from edits.model import AppliedEdit, EditError, EditSpec, Record
from edits.records import changed_bytes_in, find_one, read_files
from edits.values import tamper_value

CASES = ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8")


@dataclass(frozen=True)
class Plan:
    """A spec resolved to records: ``target``, ``other`` (T4 second / T6-T7 donor), T8 value."""

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
    case = spec.case
    if case not in CASES:
        raise EditError(f"{case}: not a record edit (T9/T10 are whole-volume operations, see edits.volumes)")
    target = find_one(records, spec.target, "target")
    if spec.context and target.context != spec.context:
        raise EditError(f"{case}: target marker {spec.target!r} is in context {target.context!r}, "
                        f"the spec names {spec.context!r}")
    other, meta_value = None, None
    if case in ("T1", "T5"):
        _check_find(spec, target)
    elif case == "T4":
        other = _other(spec, records, target, spec.second, "second")
        if other.whole_context() != target.whole_context():
            raise EditError(f"T4: the two records are in different contexts ({_named(target)!r}, {_named(other)!r})")
    elif case in ("T6", "T7"):
        other = _other(spec, records, target, spec.donor, "donor")
        if case == "T6" and other.whole_context() == target.whole_context():
            raise EditError(f"T6: donor and victim are both in context {target.context!r}; a replay needs another context")
        if case == "T7" and other.whole_context() != target.whole_context():
            raise EditError(f"T7: donor is in context {_named(other)!r}, the victim in {_named(target)!r}")
    elif case == "T8":
        name = spec.meta_field
        if not name:
            raise EditError("T8: spec names no meta_field")
        if name not in metadata:
            raise EditError(f"T8: layout declares no metadata field {name!r}")
        old = target.metadata.get(name)
        meta_value = spec.meta_value if spec.meta_value is not None else tamper_value(name, old)
        if meta_value == old:
            raise EditError(f"T8: new {name} {meta_value!r} equals the old value")
    return Plan(spec=spec, target=target, records=records, other=other, meta_value=meta_value)


def _named(record: Record) -> Any:
    """A record's context for a message: its name, or with its scope where it has one."""
    return record.whole_context() if record.scope else record.context


def _check_find(spec: EditSpec, target: Record) -> None:
    if spec.find is None or spec.replace is None:
        raise EditError(f"{spec.case}: spec needs find and replace")
    if spec.find == spec.replace or len(spec.find.encode()) != len(spec.replace.encode()):
        raise EditError(f"{spec.case}: find {spec.find!r} and replace {spec.replace!r} must differ "
                        "and have the same encoded length")
    if spec.find not in target.payload:
        raise EditError(f"{spec.case}: {spec.find!r} is not in the payload of record {target.key()}")


def _other(spec: EditSpec, records: list[Record], target: Record, marker: str | None, role: str) -> Record:
    if not marker:
        raise EditError(f"{spec.case}: spec names no {role} marker")
    other = find_one(records, marker, role)
    if other is target or other == target:
        raise EditError(f"{spec.case}: target and {role} are the same record")
    return other


SWAP_CONTENTS = "swap=contents"  # T4: the contents of two records exchanged, each keeping its identity and order


class EditorBase:
    """Shared ``apply``: plan the edit, run the backend hook, measure changed bytes.

    Subclasses set ``backend`` and implement ``records``, ``files`` and the
    hooks ``_replace`` (T1), ``_delete`` (T2/T3), ``_swap`` (T4), ``_forge``
    (T5), ``_transplant`` (T6/T7) and ``_set_meta`` (T8), each returning an
    :class:`Outcome`.
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
        """Apply exactly one edit (T1..T8) and return what was actually done."""
        records = self.records()
        offered = self.variants(replace(spec, variant=None), records) if spec.variant is not None else []
        if spec.variant is not None and spec.variant not in offered:
            raise EditError(f"{spec.case}: the {self.backend} editor offers no variant {spec.variant!r} for this "
                            f"store (it offers {offered or 'none'})")
        if spec.variant == RECOMPUTED:  # derived values recomputed after the default edit: edits.derived
            from edits import derived
            return derived.apply(self, spec)
        p = plan(spec, records, self.layout.metadata)
        hook = {"T1": self._replace, "T2": self._delete, "T3": self._delete, "T4": self._swap,
                "T5": self._forge, "T6": self._transplant, "T7": self._transplant,
                "T8": self._set_meta}[spec.case]
        before = read_files(self.files())
        out = hook(p)
        before.update({f: None for f in self.files() if f not in before})
        return AppliedEdit(case=spec.case, backend=self.backend, statements=out.statements,
                           touched=out.touched, bytes_changed=changed_bytes_in(before), detail=out.detail)

    def _replace(self, p: Plan) -> Outcome:
        raise NotImplementedError

    def _delete(self, p: Plan) -> Outcome:
        raise NotImplementedError

    def _swap(self, p: Plan) -> Outcome:
        raise NotImplementedError

    def _forge(self, p: Plan) -> Outcome:
        raise NotImplementedError

    def _transplant(self, p: Plan) -> Outcome:
        raise NotImplementedError

    def _set_meta(self, p: Plan) -> Outcome:
        raise NotImplementedError
