"""A spec's operation is its own: what an ``EditSpec`` does never depends on which modules were imported
first, and the specs every published set saved (without an op, their case's) read back with their case's
op and are written again byte for byte."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from edits.model import EditError, EditSpec
from lab.cases.variants import spec_from_json, spec_json

ROOT = Path(__file__).resolve().parents[2]


def python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize("first", ["", "import lab.cases; "])
def test_a_spec_s_op_is_the_same_whatever_was_imported_first(first):
    said = python(f"{first}from edits.model import EditSpec; "
                  "print(EditSpec('T3', 'A', 'm').op, EditSpec('T3', 'A', 'm', op='delete').op)")
    assert said == "None delete"


def test_a_spec_naming_no_op_is_refused_by_the_editor_not_guessed():
    from edits.plan import plan

    with pytest.raises(EditError, match="names no record operation"):
        plan(EditSpec("T3", "A", "mA1-q"), [], {})


def test_a_saved_spec_reads_back_with_its_case_s_op_in_a_fresh_interpreter():
    said = python("from lab.cases.variants import spec_from_json; "
                  "print(spec_from_json({'case': 'T6', 'context': 'B', 'target': 'm', 'donor': 'd'}).op)")
    assert said == "transplant"


def test_every_published_intended_spec_round_trips_byte_for_byte():
    seen = 0
    paths = sorted((ROOT / "results" / "published").glob("*/observations/*/T*.json"))
    for path in [p for p in paths if re.fullmatch(r"T[1-8](\.v\d+)?", p.stem)][:400]:
        intended = json.loads(path.read_text()).get("intended")  # T9/T10 save the SUT's own operation
        if not intended:
            continue
        spec = spec_from_json(intended)
        assert spec.op is not None, path
        assert spec_json(spec) == intended, path
        seen += 1
    assert seen > 100
