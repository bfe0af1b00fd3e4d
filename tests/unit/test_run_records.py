"""The typed run records (run.json): the at-rest one (lab/resultset/run_record.py), the lifecycle one
(lab/lifecycle/run_record.py) and the front door's (lab/frontdoor/saved.py). Every published run.json
reads and writes back byte for byte through the record of its kind, a run.json that names no schema is
read as version 1 of its kind's, a key the lab does not know is kept, and a field of another JSON kind
is refused naming that field, for any value (Hypothesis)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from record_fields import JSON, fits as of_kind, with_field

from lab.frontdoor.saved import RunRecord as FrontdoorRun
from lab.frontdoor.saved import dumped
from lab.lifecycle.run_record import LifecycleRunShapeError, lifecycle_run_json, read_lifecycle_run
from lab.resultset.loading import Unreadable, load_run
from lab.resultset.run_record import READERS, RUN_SCHEMA, RunRecord, RunShapeError, read_run

PUBLISHED = Path(__file__).resolve().parents[2] / "results" / "published"
RUNS = sorted(PUBLISHED.glob("**/run.json"))
AT_REST = [p for p in RUNS if "kind" not in json.loads(p.read_text())]
SAMPLE = json.loads(AT_REST[0].read_text())
#: A field of the at-rest run record -> the JSON kinds it takes.
FIELDS = {"kind": (str, type(None)), "run_id": (str, type(None)), "status": (str, type(None)), "lab": (dict, type(None)),
          "rows": (list, type(None)), "records_per_context": (int, float, type(None)), "shard": (dict, type(None)),
          "resumed": (list, type(None))}


def written(record) -> str:
    return json.dumps(record.to_json(), indent=2, sort_keys=True) + "\n"


def test_there_are_published_runs_of_each_kind():
    kinds = {json.loads(p.read_text()).get("kind") for p in RUNS}
    assert len(AT_REST) >= 50 and kinds == {None, "lifecycle", "frontdoor"} and READERS == {RUN_SCHEMA: RunRecord}


@pytest.mark.parametrize("path", AT_REST, ids=[str(p.parent.relative_to(PUBLISHED)) for p in AT_REST])
def test_a_published_at_rest_run_reads_and_writes_back_byte_for_byte(path):
    text = path.read_text()
    run = read_run(json.loads(text))
    assert written(run) == text and run.schema_ is None and run.run_id == json.loads(text)["run_id"]


def test_a_run_that_names_no_schema_is_version_1_and_one_that_names_it_reads_alike():
    assert read_run({**SAMPLE, "schema": RUN_SCHEMA}).to_json() == {**SAMPLE, "schema": RUN_SCHEMA}
    with pytest.raises(RunShapeError, match="schema 'memlab.run/2' is not one this lab reads"):
        read_run({**SAMPLE, "schema": "memlab.run/2"})


def test_a_run_of_another_kind_is_refused_naming_its_schema():
    with pytest.raises(RunShapeError, match="schema 'memlab.lifecycle-run/1' is not one this lab reads"):
        read_run({**SAMPLE, "kind": "lifecycle"})


def test_a_key_the_lab_does_not_know_is_kept():
    run = {**SAMPLE, "from_a_newer_lab": {"x": [1]}}
    assert read_run(run).to_json() == run


def test_load_run_reads_the_record_and_says_what_is_wrong(tmp_path):
    assert load_run(tmp_path) == RunRecord() and load_run(tmp_path).to_json() == {}
    (tmp_path / "run.json").write_text(json.dumps({**SAMPLE, "rows": ["a", 2]}))
    with pytest.raises(Unreadable, match=r"run.json: field 'rows\[1\]' is a int, not a string"):
        load_run(tmp_path)
    (tmp_path / "run.json").write_text("[]")
    with pytest.raises(Unreadable, match="not a JSON object"):
        load_run(tmp_path)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(FIELDS)), JSON)
def test_a_run_field_of_another_kind_is_refused_naming_it(field, value):
    run = {**SAMPLE, field: value}
    kinds = FIELDS[field]
    fits = of_kind(value, kinds)
    if not fits:
        with pytest.raises(RunShapeError, match=f"field '{field}' is a {type(value).__name__}, not "):
            read_run(run)
    elif field == "kind" and value is not None:  # another kind's run record, read by its own
        with pytest.raises(RunShapeError, match=f"schema {re.escape(repr(f'memlab.{value}-run/1'))} is not one this lab reads"):
            read_run(run)
    elif field == "rows" and value and not all(isinstance(v, str) for v in value):
        with pytest.raises(RunShapeError, match=r"field 'rows\[\d+\]' is a \w+, not a string"):
            read_run(run)
    else:
        assert read_run(run).to_json() == run


LIFECYCLE = [p for p in RUNS if json.loads(p.read_text()).get("kind") == "lifecycle"]
FRONTDOOR = [p for p in RUNS if json.loads(p.read_text()).get("kind") == "frontdoor"]
LIFECYCLE_SAMPLE = json.loads(LIFECYCLE[0].read_text())
#: A field of the lifecycle run record (a path into it) -> the JSON kinds it takes.
LIFECYCLE_FIELDS = {("kind",): (str,), ("fail_on",): (str, type(None)), ("seeds",): (int, float, type(None)),
                    ("rows",): (list, type(None)), ("rows", 0, "row"): (str,), ("rows", 0, "describe"): (dict, type(None)),
                    ("rows", 0, "seconds"): (int, float, type(None))}


@pytest.mark.parametrize("path", LIFECYCLE, ids=[str(p.parent.parent.relative_to(PUBLISHED)) for p in LIFECYCLE])
def test_a_published_lifecycle_run_reads_and_writes_back_byte_for_byte(path):
    text = path.read_text()
    assert written(read_lifecycle_run(json.loads(text))) == text


@pytest.mark.parametrize("path", FRONTDOOR, ids=[str(p.parent.parent.relative_to(PUBLISHED)) for p in FRONTDOOR])
def test_a_published_front_door_run_reads_and_writes_back_byte_for_byte(path):
    text = path.read_text()
    assert json.dumps(dumped(FrontdoorRun.model_validate(json.loads(text))), indent=2, sort_keys=True) + "\n" == text


def test_a_lifecycle_run_is_version_1_and_an_at_rest_one_is_refused_naming_its_schema():
    assert lifecycle_run_json(LIFECYCLE_SAMPLE) == LIFECYCLE_SAMPLE
    with pytest.raises(LifecycleRunShapeError, match="schema 'memlab.run/1' is not one this lab reads"):
        read_lifecycle_run(SAMPLE)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(LIFECYCLE_FIELDS, key=str)), JSON)
def test_a_lifecycle_run_field_of_another_kind_is_refused_naming_it(field, value):
    run = with_field(LIFECYCLE_SAMPLE, field, value)
    kinds = LIFECYCLE_FIELDS[field]
    fits = of_kind(value, kinds)
    name = "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in field).lstrip(".")
    if field == ("kind",) and value != "lifecycle":  # the kind names the record: another kind's, or at rest
        implied = f"memlab.{value}-run/1" if isinstance(value, str) else "memlab.run/1"
        with pytest.raises(LifecycleRunShapeError, match=f"schema {re.escape(repr(implied))} is not one this lab reads"):
            read_lifecycle_run(run)
    elif not fits:
        with pytest.raises(LifecycleRunShapeError, match=f"field '{re.escape(name)}' is a {type(value).__name__}, not "):
            read_lifecycle_run(run)
    elif field == ("rows",) and value:  # a list of targets: each an object naming its row
        with pytest.raises(LifecycleRunShapeError, match=r"field 'rows\[\d+\]"):
            read_lifecycle_run(run)
    else:
        assert read_lifecycle_run(run).to_json() == run
