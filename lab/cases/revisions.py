"""The method revisions this lab reads: for each, the cases a set of it measured, their groups and
the level ladder, so that a set is read, scored and verified with the cases of its own revision.

A case added later is not in an older set: readers show it as "not measured" (:data:`NOT_MEASURED`),
never as an error, and ``memlab verify`` re-derives the older set from its own cases. The current
revision follows from the registry (:mod:`lab.cases.registry`); each revision a published set was
written under is kept here as data. Adding a case: add its module to ``registry.MODULES``, name the
new revision in ``lab.METHOD_REVISION`` and add the old one's entry to :data:`KEPT` (a test
checks that the current revision's entry, when kept, matches the registry).
"""

from __future__ import annotations

from dataclasses import dataclass

from lab import METHOD_REVISION
from lab.cases.registry import CASES

#: The verdict readers give a case a set does not carry (its revision had no such case).
NOT_MEASURED = "not measured"


@dataclass(frozen=True)
class Revision:
    """A method revision: its name, its case ids in order, its groups and its level ladder."""

    name: str
    cases: tuple[str, ...]
    groups: dict[str, tuple[str, ...]]
    ladder: tuple[tuple[str, tuple[str, ...]], ...]


def _from_registry() -> Revision:
    levels = sorted({c.level for c in CASES if c.level}, key=lambda name: int(name[1:]))
    return Revision(METHOD_REVISION, tuple(c.id for c in CASES),
                    {g: tuple(c.id for c in CASES if c.group == g) for g in dict.fromkeys(c.group for c in CASES)},
                    tuple((name, tuple(c.id for c in CASES if c.level == name)) for name in levels))


_TEN = tuple(f"T{i}" for i in range(1, 11))
#: The revisions published sets were written under, as they were.
KEPT = (Revision("bpm-agent-memory-integrity-00+variants-1", _TEN,
                 {"T1-T5": _TEN[0:5], "T6-T8": _TEN[5:8], "T9": ("T9",), "T10": ("T10",)},
                 (("L1", ("T1", "T3", "T5")), ("L2", ("T2", "T4", "T7")), ("L3", ("T6", "T8")), ("L4", ("T9",)))),)
#: This lab's revision, from the registry.
CURRENT = _from_registry()
#: Revision name -> revision: every kept one, and the current one.
REVISIONS = {**{r.name: r for r in KEPT}, CURRENT.name: CURRENT}


def revision_of(name: object) -> Revision | None:
    """The revision named ``name``, or None when this lab does not know it."""
    return REVISIONS.get(name) if isinstance(name, str) else None


def revision_stated(name: object) -> Revision:
    """The revision a set or row stating ``name`` is read with: its own, or this lab's where it names
    none this lab knows (which verify and the loader report on their own)."""
    return revision_of(name) or CURRENT


def cell_of(row: dict, case: str) -> dict:
    """The cell of ``case`` in a row as a reader shows it: the row's own, or a "not measured" cell when
    the row's set (an older method revision) has no such case."""
    cell = (row.get("cells") or {}).get(case)
    if isinstance(cell, dict):
        return cell
    return not_measured(row.get("method_revision"), case)


def not_measured(stated: object, case: str) -> dict:
    """The "not measured" cell of ``case`` in a row of method revision ``stated``, which has no such case."""
    return {"verdict": NOT_MEASURED, "reason": f"not measured: method revision {stated!r} has no case {case}",
            "detection_point": None}
