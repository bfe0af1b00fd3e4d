"""The lifecycle row as typed records, one per schema version (lab/lifecycle/row_record.py), and the
lifecycle manifest (lab/lifecycle/manifest_record.py). Every lifecycle row and manifest the repository
holds (published sets and sweeps; rows /1, /2 and /3) reads and writes back byte for byte through the
record of its schema, a row whose checks are not its revision's or lacking /3's isolation is refused, a
key the lab does not know is kept, and a field of another JSON kind is refused naming that field, for
any value (Hypothesis)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from record_fields import JSON, fits as of_kind, with_field

from lab.lifecycle.judgement import checks_of
from lab.lifecycle.manifest_record import READERS as MANIFEST_READERS
from lab.lifecycle.manifest_record import LifecycleManifest, LifecycleManifestShapeError, read_lifecycle_manifest
from lab.lifecycle.results import ROW_SCHEMA, ROW_SCHEMAS
from lab.lifecycle.row_record import READERS, LifecycleRowShapeError, read_lifecycle_row

RESULTS = Path(__file__).resolve().parents[2] / "results"
ROWS = sorted(RESULTS.glob("**/lifecycle/rows/*.json"))
MANIFESTS = sorted(p for p in RESULTS.glob("**/manifest.json") if "lifecycle-manifest" in p.read_text())
SAMPLE = json.loads(next(p for p in ROWS if ROW_SCHEMA in p.read_text()).read_text())
#: A field (a path into the row) -> the JSON kinds it takes.
FIELDS = {("status",): (str,), ("memory_utility_delta",): (int, float, type(None)), ("seeds",): (list, type(None)),
          ("describe",): (dict, type(None)), ("gate", "status"): (str,), ("restarts", "median_seconds"):
          (int, float, type(None)), ("baseline", "rate"): (int, float, type(None)), ("isolation",): (str, type(None)),
          ("checks", next(iter(SAMPLE["checks"]))): (dict,)}


def test_every_schema_the_lab_reads_has_its_record_and_rows():
    assert ROW_SCHEMAS == {schema: record.revision for schema, record in READERS.items()} and len(READERS) == 3
    assert {json.loads(p.read_text())["schema"] for p in ROWS} == set(READERS) and len(ROWS) >= 50


@pytest.mark.parametrize("path", ROWS, ids=[str(p.relative_to(RESULTS)) for p in ROWS])
def test_a_lifecycle_row_reads_and_writes_back_byte_for_byte(path):
    text = path.read_text()
    row = read_lifecycle_row(json.loads(text))
    assert json.dumps(row.to_json(), indent=2, sort_keys=True) + "\n" == text
    assert type(row) is READERS[row.schema_] and set(row.checks) == set(checks_of(row.revision))


def test_a_row_lacking_a_check_of_its_revision_or_lacking_isolation_is_refused():
    first, *rest = SAMPLE["checks"]
    for checks in ({k: SAMPLE["checks"][k] for k in rest}, {**SAMPLE["checks"], "made_up": {}}):
        with pytest.raises(LifecycleRowShapeError, match=f"checks names .*: a row of revision 3 holds {first}, "):
            read_lifecycle_row({**SAMPLE, "checks": checks})
    without = {k: v for k, v in SAMPLE.items() if k != "isolation"}
    with pytest.raises(LifecycleRowShapeError, match="field 'isolation' is missing"):
        read_lifecycle_row(without)
    with pytest.raises(LifecycleRowShapeError, match="schema 'memlab.lifecycle-row/99' is not one this lab reads"):
        read_lifecycle_row({**SAMPLE, "schema": "memlab.lifecycle-row/99"})


def test_a_key_the_lab_does_not_know_is_kept():
    row = {**SAMPLE, "from_a_newer_lab": {"x": [1]}}
    assert read_lifecycle_row(row).to_json() == row


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(FIELDS)), JSON)
def test_a_lifecycle_row_field_of_another_kind_is_refused_naming_it(field, value):
    row = with_field(SAMPLE, field, value)
    kinds = FIELDS[field]
    fits = of_kind(value, kinds)
    if fits:
        assert read_lifecycle_row(row).to_json() == row
    else:
        with pytest.raises(LifecycleRowShapeError,
                           match=f"field '{re.escape('.'.join(field))}' is a {type(value).__name__}, not "):
            read_lifecycle_row(row)


def test_every_lifecycle_manifest_reads_and_writes_back_byte_for_byte():
    assert len(MANIFESTS) >= 40 and MANIFEST_READERS == {"memlab.lifecycle-manifest/1": LifecycleManifest}
    for path in MANIFESTS:
        text = path.read_text()
        assert json.dumps(read_lifecycle_manifest(json.loads(text)).to_json(), indent=2, sort_keys=True) + "\n" == text


MANIFEST = json.loads(MANIFESTS[0].read_text())
#: A field of the lifecycle manifest -> the JSON kinds it takes.
MANIFEST_FIELDS = {"kind": (str,), "decision_rules": (dict,), "fail_on": (str, type(None)), "rows": (list,),
                   "evidence": (list,), "lab": (dict, type(None)), "run_id": (str, type(None))}


def test_a_manifest_key_the_lab_does_not_know_is_kept_and_its_schema_must_be_named():
    manifest = {**MANIFEST, "from_a_newer_lab": [1, {"x": None}]}
    assert read_lifecycle_manifest(manifest).to_json() == manifest
    with pytest.raises(LifecycleManifestShapeError, match="schema '' is not one this lab reads"):
        read_lifecycle_manifest({k: v for k, v in MANIFEST.items() if k != "schema"})


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(MANIFEST_FIELDS)), JSON)
def test_a_lifecycle_manifest_field_of_another_kind_is_refused_naming_it(field, value):
    manifest = {**MANIFEST, field: value}
    if of_kind(value, MANIFEST_FIELDS[field]):
        assert read_lifecycle_manifest(manifest).to_json() == manifest
    else:
        with pytest.raises(LifecycleManifestShapeError, match=f"field '{field}' is a {type(value).__name__}, not "):
            read_lifecycle_manifest(manifest)
