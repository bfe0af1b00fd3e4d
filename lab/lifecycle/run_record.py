"""The run record of a lifecycle set (``run.json``, ``kind: lifecycle``) as one typed, versioned record.

``memlab lifecycle run`` writes its run.json through :class:`LifecycleRun` (:func:`lifecycle_run_json`),
and :func:`read_lifecycle_run` reads it by its ``schema`` (:data:`READERS`). A lifecycle run.json names
no schema: one that names none is read as version 1 of its kind's (``memlab.lifecycle-run/1``,
lab.resultset.run_record.implied_schema), so one without ``kind: lifecycle`` is refused naming the
schema it would be. Open like every result record (:mod:`lab.open_record`): a key the lab does not know
is kept, ``to_json`` gives back exactly what was read, a field of another JSON kind is refused naming it.

    >>> read_lifecycle_run({"kind": "lifecycle", "rows": [{"row": "r", "seconds": "1.5"}]})
    Traceback (most recent call last):
    ...
    lab.lifecycle.run_record.LifecycleRunShapeError: field 'rows[0].seconds' is a str, not a number or null
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from lab.open_record import Lst, Num, Obj, OpenRecord, Str, String, read_by_schema
from lab.resultset.run_record import implied_schema

LIFECYCLE_RUN_SCHEMA = "memlab.lifecycle-run/1"


class Target(OpenRecord):
    """One (row, position) of the run and what it states of its SUT (the derivation's input)."""

    row: String
    position: Str = None
    adapter: Str = None
    runtime: Str = None
    sut: Obj = None
    capabilities: Lst = None
    scope: Str = None
    erasure: Str = None
    isolation: Str = None
    describe: Obj = None
    open_seconds: Num = None
    seconds: Num = None


class LifecycleRun(OpenRecord):
    """What was run (targets, scenarios, seeds, fail_on, options), by which lab, when, how it ended and
    its verdict; a resumed or stopped run says so."""

    schema_: Str = Field(None, alias="schema")
    kind: String
    run_id: Str = None
    started: Str = None
    finished: Str = None
    status: Str = None
    runtime: Str = None
    lab: Obj = None
    fail_on: Str = None
    seeds: Num = None
    scenarios: Num = None
    options: Obj = None
    rows: list[Target] | None = None
    verdict: Str = None
    resumed: Lst = None
    stopped: Obj = None


#: Lifecycle run-record schema -> the record that reads it.
READERS: dict[str, type[LifecycleRun]] = {LIFECYCLE_RUN_SCHEMA: LifecycleRun}


class LifecycleRunShapeError(ValueError):
    """A lifecycle run record lacks the shape of its schema; the message names the field."""


def read_lifecycle_run(data: Any) -> LifecycleRun:
    """The lifecycle run record ``data`` (parsed JSON), read by the record of its schema."""
    return read_by_schema(data, READERS, LifecycleRunShapeError, implied_schema(data))


def lifecycle_run_json(run: dict[str, Any]) -> dict[str, Any]:
    """``run`` as run.json holds it, written through :class:`LifecycleRun`."""
    return read_lifecycle_run(run).to_json()
