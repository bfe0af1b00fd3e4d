"""What a case is: the record every case module (``t1`` .. ``t10``) fills in.

A case says what it edits, which context the read after the restart looks at, what the
store must be able to express, which group and level it counts towards, and carries its
own pieces of the method as plain functions:

- ``build(plan, layout) -> EditSpec`` -- the concrete storage edit (T1..T8), naming the
  editor's operation (``op``, :mod:`edits.ops`) it asks for, the case's own ``op``;
- ``check(spec, records)`` -- what the case itself asks of the records its spec names, beyond
  what the operation needs (T6's donor from the other context, T7's from the same one): raises
  :class:`edits.model.EditError` before the edit is made;
- ``rule(view, spec, before, after) -> problems`` -- C3 over the records read before and
  after the edit; for a restore case ``rule(view, named, before, mid)`` -- C3 over what the
  SUT's own operation changed;
- ``state_rule(view, spec, before, after)`` -- C3 over whole version rows of a sealed state,
  where the case can be expressed on one;
- ``effect(spec, served) -> (visible, detail)`` -- does the read show the edit
  (:class:`lab.cases.evidence.Served`);
- ``sut_op(plan, seed_ids, capabilities) -> SutOp`` -- a restore case's fault step: the
  SUT's own operation between the copy of the store and putting the copy back;
- ``alternatives(plan, layout) -> [EditSpec]`` -- the other specs of the case the store allows
  (T8: each other declared metadata field), each measured as a variant of its own
  (:mod:`lab.cases.variants`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from edits.model import EditSpec


class CaseError(Exception):
    """A case cannot build its fault step from what the row knows (the method makes it an error)."""


@dataclass(frozen=True)
class SutOp:
    """The SUT's own operation of a restore case: the driver call (``op`` with ``fields``), what is
    saved as intended, the markers it should add or remove, and the marker of a version row the
    SUT reports making (a write names its new version; an erasure none)."""

    op: str
    fields: dict[str, Any]
    intended: dict[str, Any]
    named: list[str]
    version_marker: str | None = None


@dataclass(frozen=True)
class Case:
    """One test case: id, name, kind (edit | rollback | erasure), read context, group, level,
    C3 text, needs, the editor's operation an edit case asks for, and its functions (see the
    module docstring)."""

    id: str
    name: str
    kind: str
    read_label: str
    group: str
    c3: str
    needs: tuple[str, ...] = ()
    level: str | None = None
    op: str | None = None
    build: Callable[..., EditSpec] | None = field(default=None, repr=False, compare=False)
    rule: Callable[..., list[str]] | None = field(default=None, repr=False, compare=False)
    check: Callable[..., None] | None = field(default=None, repr=False, compare=False)
    state_rule: Callable[..., list[str]] | None = field(default=None, repr=False, compare=False)
    effect: Callable[..., tuple[bool, str]] | None = field(default=None, repr=False, compare=False)
    sut_op: Callable[..., SutOp] | None = field(default=None, repr=False, compare=False)
    alternatives: Callable[..., list[EditSpec]] | None = field(default=None, repr=False, compare=False)

    @property
    def restores(self) -> bool:
        """A restore case (T9, T10): copy the store, let the SUT operate, put the copy back."""
        return self.sut_op is not None


def not_applicable(case: Case, capabilities) -> str | None:
    """The reason ``case`` cannot be expressed on a store with these capabilities, or None."""
    if "order" in case.needs and not capabilities.order and not capabilities.metadata:
        return ("unordered memory with no metadata layer: no order, order key or timestamp to truncate or "
                "reorder")
    if "metadata" in case.needs and not capabilities.metadata:
        return "no metadata layer: there is no owner, role, source or timestamp to change"
    if "snapshot" in case.needs and not capabilities.snapshot:
        return "the store cannot be copied and restored as a unit"
    if "erasure" in case.needs and capabilities.erasure == "none":
        return "the SUT offers no erasure operation"
    if "record" in case.needs and getattr(capabilities, "sealed", False) and not getattr(capabilities, "forms", ()):
        return ("the records sit inside an encrypted payload the adversary cannot read: no keyless edit "
                "deletes, reorders, forges or relabels one record inside it (forms tried: none; the layout "
                "declares no other form the reader accepts)")
    return None
