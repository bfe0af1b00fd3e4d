"""The typed result records: the at-rest row (lab/judge/row.py) and the manifest
(lab/resultset/manifest.py). Every published row and manifest reads and writes back byte for byte, a key
the lab does not know is kept, and a field of another JSON kind is refused naming that field, for any
value (Hypothesis)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st
from record_fields import JSON, fits as of_kind, with_field

from lab.judge.row import READERS, ROW_SCHEMA, AtRestRow, RowShapeError, problem_of, read_row
from lab.resultset.loading import load_manifest
from lab.resultset.manifest import Manifest, ManifestShapeError, read_manifest

PUBLISHED = Path(__file__).resolve().parents[2] / "results" / "published"
ROWS = sorted(PUBLISHED.glob("*/rows/*.json"))
MANIFESTS = sorted([*PUBLISHED.glob("*/manifest.json"), *PUBLISHED.glob("*/compose/manifest.json")])
SAMPLE = json.loads(ROWS[0].read_text())
#: A field -> the JSON kinds it takes.
FIELDS = {("metric",): (int, float, type(None)), ("level",): (str, type(None)), ("evaluable",): (bool, type(None)),
          ("controls", "C1", "ok"): (bool,), ("cells", "T1", "verdict"): (str,),
          ("cells", "T2", "evidence"): (dict, type(None)), ("groups", "T1-T5"): (int, float, type(None))}


def test_there_are_published_rows():
    assert len(ROWS) >= 50 and READERS == {ROW_SCHEMA: AtRestRow}


@pytest.mark.parametrize("path", ROWS, ids=[p.name for p in ROWS])
def test_a_published_row_reads_and_writes_back_byte_for_byte(path):
    text = path.read_text()
    again = json.dumps(read_row(json.loads(text)).to_json(), indent=2, sort_keys=True) + "\n"
    assert again == text


def test_a_key_the_lab_does_not_know_is_kept():
    row = {**SAMPLE, "from_a_newer_lab": {"x": [1]}}
    assert read_row(row).to_json() == row


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(FIELDS)), JSON)
def test_a_field_of_another_kind_is_refused_naming_it(field, value):
    row = with_field(SAMPLE, field, value)
    kinds = FIELDS[field]
    fits = of_kind(value, kinds)
    problem = problem_of(row)
    if fits and not (field == ("cells", "T2", "evidence") and isinstance(value, dict)):
        assert problem is None, problem
    elif not fits:
        assert problem is not None and f"field '{'.'.join(field)}'" in problem, problem


def test_an_unknown_schema_is_refused_by_name():
    with pytest.raises(RowShapeError, match="schema 'memlab.row/9' is not one this lab reads"):
        read_row({**SAMPLE, "schema": "memlab.row/9"})


@pytest.mark.parametrize("path", MANIFESTS, ids=[str(p.parent.relative_to(PUBLISHED)) for p in MANIFESTS])
def test_a_published_manifest_reads_and_writes_back_byte_for_byte(path):
    text = path.read_text()
    assert json.dumps(read_manifest(json.loads(text)).to_json(), indent=2, sort_keys=True) + "\n" == text


@pytest.mark.parametrize("path", MANIFESTS, ids=[str(p.parent.relative_to(PUBLISHED)) for p in MANIFESTS])
def test_a_set_s_manifest_loads_as_its_record_and_digests_as_its_file(path):
    manifest, data = load_manifest(path.parent), json.loads(path.read_text())
    assert isinstance(manifest, Manifest) and manifest.method_revision == data["method_revision"]
    assert manifest.sha256() == "sha256:" + hashlib.sha256(rfc8785.dumps(data)).hexdigest()


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["rows", "evidence", "decision_rules", "method_revision"]), JSON)
def test_a_manifest_field_of_another_kind_is_refused_naming_it(field, value):
    manifest = {**json.loads(MANIFESTS[0].read_text()), field: value}
    kinds = {"rows": list, "evidence": list, "decision_rules": dict, "method_revision": str}[field]
    if isinstance(value, kinds):
        assert read_manifest(manifest).to_json() == manifest
    else:
        with pytest.raises(ManifestShapeError, match=f"field '{field}' is a {type(value).__name__}, not "):
            read_manifest(manifest)
