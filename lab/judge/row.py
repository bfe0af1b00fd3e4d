"""The at-rest row (``rows/<row>@<point>.json``) as one typed, versioned model, read and written.

:func:`read_row` dispatches on the row's ``schema`` (:data:`READERS`: ``memlab.row/1`` so far) and,
through the model, on its ``method_revision`` (:mod:`lab.cases.revisions`: the cases it must hold),
and refuses a row of another shape naming the field (a tampered or foreign one: ``metric`` a string,
``controls.C1`` without ``ok``, a cell's ``evidence`` a list). The derivation writes its rows through
:class:`AtRestRow` too, so what is written and what is read are one definition.

Open and strict like the observations (:mod:`lab.judge.observation`): a key the lab does not know is
kept, a JSON ``1`` is not ``true``, and ``to_json`` gives back exactly the keys that were set, so a row
read and written again is the same JSON. A field absent is fine where readers do without it.

    >>> problem_of({"row": "r", "detection_point": "read", "metric": "0.9", "cells": {}, "controls": {}})
    "field 'metric' is a str, not a number or null"
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator
from pydantic_core import PydanticCustomError

from lab.judge.observation import ShapeError
from lab.open_record import Bool, Boolean, Lst, Num, Obj, OpenRecord, Str, String, read_by_schema

ROW_SCHEMA = "memlab.row/1"


class RowC3(OpenRecord):
    """C3 as a cell's evidence states it."""

    ok: Bool = None
    reasons: Lst = None
    files: dict[str, Lst] | None = None
    evidence: Obj = None


class RowEvidence(OpenRecord):
    """What a reader of a cell needs: the edit, C3, what was served or refused, signals, timings."""

    c3: RowC3 | None = None
    intended: Obj = None
    observation: Str = None
    refusal: Obj = None
    served: Lst = None
    signals: Lst = None
    statements: Lst = None
    timings: Obj = None


class RowCell(OpenRecord):
    """One case at one detection point (a variant's entry has the same fields)."""

    verdict: String
    reason: Str = None
    detection_point: Str = None
    observation_class: Str = None
    decided_by: Str = None
    evidence: RowEvidence | None = None
    effect: Obj = None
    audit: Obj = None
    signals: Lst = None
    variants: list[RowCell] | None = None
    case: Str = None
    variant: Str = None
    trial: Str = None


class RowControl(OpenRecord):
    """C1 or C2 (C3 too, with its lists): whether it holds, and why."""

    ok: Boolean
    reason: Str = None


class RowRuntime(OpenRecord):
    """Where the row ran: the runtime, Python, the SUT's packages."""

    runtime: Str = None
    python: Str = None
    packages: Obj = None
    detail: Obj = None


class AtRestRow(OpenRecord):
    """One at-rest row: a SUT configuration at one detection point, its cells, controls and score."""

    schema_: Str = Field(None, alias="schema")
    row: String
    detection_point: String
    method_revision: Str = None
    metric: Num = None
    level: Str = None
    title: Str = None
    sut: Obj = None
    configuration: Obj = None
    runtime: RowRuntime | None = None
    lab: Obj = None
    groups: dict[str, Num] | None = None
    counts: Obj = None
    evaluable: Bool = None
    not_evaluable_reason: Str = None
    observations: Str = None
    dut_boundary: Str = None
    position: Str = None
    store: Obj = None
    volumes: dict[str, Obj] | None = None
    capabilities: Obj = None
    signals_documented: Lst = None
    run_id: Str = None
    date: Str = None
    notes: Str = None
    sut_stopped_during_edits: Bool = None
    cells: dict[str, RowCell]
    controls: dict[str, RowControl]

    @model_validator(mode="after")
    def _complete(self) -> AtRestRow:
        from lab.cases.revisions import CURRENT, REVISIONS, revision_of

        stated = self.method_revision or CURRENT.name
        revision = revision_of(stated)
        if revision is None:
            raise PydanticCustomError("revision", "method revision {stated} is not one this lab reads ({known}); "
                                      "a newer memlab reads it",
                                      {"stated": repr(stated), "known": ", ".join(REVISIONS)})
        lacking = [c for c in revision.cases if c not in self.cells]
        if lacking:
            raise PydanticCustomError("cells", "cells lacks {lacking}: revision {stated} has a cell for each of "
                                               "{cases}",
                                      {"lacking": ", ".join(lacking), "stated": repr(stated),
                                       "cases": ", ".join(revision.cases)})
        if not {"C1", "C2"} <= set(self.controls):
            raise PydanticCustomError("controls", "'controls' needs C1 and C2", {})
        return self

    def cell(self, case: str) -> RowCell:
        """The cell of ``case`` as a reader shows it: the row's own, or "not measured" where its method
        revision has no such case (lab.cases.revisions.cell_of, for a row read as JSON)."""
        from lab.cases.revisions import not_measured

        return self.cells.get(case) or RowCell.model_validate(not_measured(self.method_revision, case))


#: Row schema -> the model that reads it.
READERS: dict[str, type[AtRestRow]] = {ROW_SCHEMA: AtRestRow}


class RowShapeError(ShapeError):
    """A row lacks the shape of a memlab row; the message names the field."""


def read_row(data: Any) -> AtRestRow:
    """The row ``data`` (parsed JSON), read by the model of its schema; ``RowShapeError`` names what is wrong."""
    return read_by_schema(data, READERS, RowShapeError, ROW_SCHEMA)


def problem_of(data: Any) -> str | None:
    """What keeps ``data`` from being a memlab row, or None."""
    try:
        read_row(data)
    except RowShapeError as exc:
        return str(exc)
    return None
