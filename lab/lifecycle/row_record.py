"""The lifecycle row (``rows/<row>@<position>.json``) as typed records, one per schema version.

:func:`read_lifecycle_row` dispatches on the row's ``schema`` (:data:`READERS`): ``memlab.lifecycle-row/1``,
``/2`` and ``/3``, one per revision of the lifecycle judge (lab.lifecycle.matching). A row holds the
checks of its revision (``checks_of``: a row whose checks are not its revision's is refused naming
them); from ``/3`` on it states the SUT's ``isolation``. The derivation validates every row it builds
with its record (lab.lifecycle.results), so what is written and what is read are one definition.
Open like every result record (:mod:`lab.open_record`): a key the lab does not know is kept,
``to_json`` gives back exactly what was read, a field of another JSON kind is refused naming it.

    >>> read_lifecycle_row({"schema": "memlab.lifecycle-row/9"})
    Traceback (most recent call last):
    ...
    lab.lifecycle.row_record.LifecycleRowShapeError: schema 'memlab.lifecycle-row/9' is not one this lab reads (memlab.lifecycle-row/1, memlab.lifecycle-row/2, memlab.lifecycle-row/3)
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field, model_validator
from pydantic_core import PydanticCustomError

from lab.lifecycle.judgement import checks_of
from lab.open_record import Lst, Num, Obj, Object, OpenRecord, Str, String, read_by_schema


class Accuracy(OpenRecord):
    """Current-fact accuracy (or the baseline's): hits of the opportunities, and their rate."""

    hits: Num = None
    opportunities: Num = None
    rate: Num = None


class LifecycleGate(OpenRecord):
    """The gate over the seeds: its status, at which priority it fails, and why."""

    status: String
    fail_on: Str = None
    blocking: Lst = None
    blocking_findings: Num = None
    reasons: Lst = None
    statuses: Obj = None
    unstable: Lst = None


class Restarts(OpenRecord):
    """The restarted position's restarts: how many, and their seconds."""

    count: Num = None
    median_seconds: Num = None
    seconds: Num = None


class LifecycleRow(OpenRecord):
    """``memlab.lifecycle-row/2``: one (row, position) of the lifecycle gate, its checks, gate and findings."""

    #: The revision of the lifecycle judge this schema names.
    revision: ClassVar[int] = 2

    schema_: String = Field(alias="schema")
    row: String
    kind: String
    position: String
    status: String
    checks: dict[str, Object]
    gate: LifecycleGate
    sut: Obj = None
    adapter: Str = None
    capabilities: Lst = None
    scope: Str = None
    describe: Obj = None
    scenarios: Num = None
    seeds: Lst = None
    per_seed: Lst = None
    current_fact_accuracy: Accuracy | None = None
    baseline: Accuracy | None = None
    memory_utility_delta: Num = None
    retrieval: Obj = None
    findings: Lst = None
    not_tested: Lst = None
    retrieval_findings: Lst = None
    errors: Lst = None
    judge_limits: Str = None
    restarts: Restarts | None = None
    erasure_at_rest: Obj = None

    @model_validator(mode="after")
    def _checks_of_its_revision(self) -> LifecycleRow:
        want = checks_of(self.revision)
        if set(self.checks) != set(want):
            raise PydanticCustomError("checks", "checks names {got}: a row of revision {revision} holds {want}",
                                      {"got": ", ".join(sorted(self.checks)) or "none", "revision": self.revision,
                                       "want": ", ".join(sorted(want))})
        return self


class LifecycleRow1(LifecycleRow):
    """``memlab.lifecycle-row/1``: the fields of /2, the checks of the first judge."""

    revision: ClassVar[int] = 1


class LifecycleRow3(LifecycleRow):
    """``memlab.lifecycle-row/3``: /2 and the isolation the SUT states (``sut`` or ``none``; null unstated)."""

    revision: ClassVar[int] = 3
    isolation: Str


#: Lifecycle row schema -> the record that reads it.
READERS: dict[str, type[LifecycleRow]] = {f"memlab.lifecycle-row/{m.revision}": m
                                          for m in (LifecycleRow1, LifecycleRow, LifecycleRow3)}


class LifecycleRowShapeError(ValueError):
    """A lifecycle row lacks the shape of its schema; the message names the field."""


def read_lifecycle_row(data: Any) -> LifecycleRow:
    """The lifecycle row ``data`` (parsed JSON), read by the record of its schema (one it must name)."""
    return read_by_schema(data, READERS, LifecycleRowShapeError, "")
