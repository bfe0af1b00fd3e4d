"""The run record of an at-rest set (``run.json``) as one typed, versioned record, written and read.

``memlab run``, ``memlab analyze`` and ``memlab merge`` write run.json through :class:`RunRecord`
(:func:`run_json`), and :func:`read_run` reads it by its ``schema`` (:data:`READERS`). An at-rest
run.json names no schema: one that names none is read as version 1 (``memlab.run/1``), the only one
there is; a lifecycle run.json (``kind: lifecycle``, lab.lifecycle.run_record) is read as
``memlab.lifecycle-run/1`` and refused here, naming it. Open like every result record
(:mod:`lab.open_record`): a key the lab does not know is kept, ``to_json`` gives back exactly what was
read, and a field of another JSON kind is refused naming the field. Every field may be absent (a run
killed early, a set from before the field): the readers do without.

    >>> read_run({"run_id": "r", "rows": ["a", 1]}).rows
    Traceback (most recent call last):
    ...
    lab.resultset.run_record.RunShapeError: field 'rows[1]' is a int, not a string
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from lab.open_record import Lst, Num, Obj, OpenRecord, Str, String, read_by_schema

RUN_SCHEMA = "memlab.run/1"


class RunRecord(OpenRecord):
    """What was run (rows, options, the digests of drivers and profiles), by which lab, when, how it
    ended; a sharded, resumed, merged or analyzed run says so."""

    schema_: Str = Field(None, alias="schema")
    kind: Str = None  # absent at rest; another kind's run.json is dispatched to its record (implied_schema)
    run_id: Str = None
    started: Str = None
    finished: Str = None
    status: Str = None
    runtime: Str = None
    method_revision: Str = None
    lab: Obj = None
    rows: list[String] | None = None
    options: Obj = None
    drivers: Obj = None
    profiles: Obj = None
    records_per_context: Num = None
    shard: Obj = None
    compose: Obj = None
    resumed: Lst = None
    signal: Str = None
    stopped: Obj = None
    merged: Obj = None
    analyzed: Str = None
    analyzed_from: Obj = None


#: Run-record schema -> the record that reads it.
READERS: dict[str, type[RunRecord]] = {RUN_SCHEMA: RunRecord}


class RunShapeError(ValueError):
    """A run record lacks the shape of its schema; the message names the field."""


def implied_schema(data: Any) -> str:
    """The schema of a run.json that names none: version 1 of its kind's (``memlab.run/1`` at rest)."""
    kind = data.get("kind") if isinstance(data, dict) else None
    return f"memlab.{kind}-run/1" if isinstance(kind, str) else RUN_SCHEMA


def read_run(data: Any) -> RunRecord:
    """The run record ``data`` (parsed JSON), read by the record of its schema."""
    return read_by_schema(data, READERS, RunShapeError, implied_schema(data))


def run_json(run: dict[str, Any]) -> dict[str, Any]:
    """``run`` as run.json holds it, written through :class:`RunRecord` (``RunShapeError`` if it is none)."""
    return read_run(run).to_json()
