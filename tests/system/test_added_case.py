"""A case added to the lab keeps every published at-rest set readable and verifiable: each set is read,
scored, gated and verified with the cases of its own method revision, and the new case shows as
"not measured" (never a pass) in every report. A check added to the lifecycle judge keeps every
published lifecycle set verifiable: each row is re-derived with its own judge revision's checks. The lab
with the added case and check runs as its own process (tests/added_case.py) and is compared with this
lab on the same sets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lab.cases import CASE_IDS
from lab.cases.revisions import CURRENT, KEPT, NOT_MEASURED, REVISIONS, cell_of, revision_of
from lab.judge.scoring import decision_rules
from lab.lifecycle.judgement import CHECKS, KEPT_CHECKS, checks_of
from lab.lifecycle.matching import JUDGE_REVISION
from lab.report import junit
from lab.resultset import recount
from lab.resultset.gate import evaluate
from lab.resultset.loading import load_row_records, load_run
from lab.judge.row import problem_of

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = ROOT / "results" / "published"
SETS = sorted(p for p in [*PUBLISHED.iterdir(), *PUBLISHED.glob("*/compose")] if (p / "manifest.json").is_file())
LIFECYCLE_SETS = sorted(p for p in PUBLISHED.glob("*/lifecycle") if (p / "manifest.json").is_file())


@pytest.fixture(scope="module")
def seen() -> list[dict]:
    """What the lab with the added case and check makes of every published set."""
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "added_case.py"), *map(str, SETS + LIFECYCLE_SETS)],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return [json.loads(line) for line in proc.stdout.splitlines()]


def test_every_published_set_survives_an_added_case(seen):
    assert len(SETS) >= 100 and [s["set"] for s in seen[:len(SETS)]] == [p.name for p in SETS]
    for path, got in zip(SETS, seen):
        rows, run = load_row_records(path), load_run(path)
        now = evaluate(rows, "accepted", "L1")
        assert got["verified"], (path.name, got["findings"])
        assert got["added"] == [NOT_MEASURED] and got["columns"], got
        assert got["junit"] == junit.render(rows, run).count("<skipped") + len(rows), got  # skipped, never passed
        assert got["gate"] == [now.exit_code, now.failures, now.undecided], path.name


def test_every_published_lifecycle_set_survives_an_added_check(seen):
    lifecycle = seen[len(SETS):]
    assert len(LIFECYCLE_SETS) >= 30 and [s["set"] for s in lifecycle] == [f"{p.parent.name}/lifecycle"
                                                                            for p in LIFECYCLE_SETS]
    for path, got in zip(LIFECYCLE_SETS, lifecycle):
        rows = [json.loads(p.read_text()) for p in sorted((path / "rows").glob("*.json"))]
        assert got["verified"], (got["set"], got["findings"])
        assert got["checks"] == sorted(CHECKS) and got["statuses"] == [r["status"] for r in rows], got


def test_the_judge_revision_keeps_its_checks():
    assert checks_of(JUDGE_REVISION) == CHECKS
    assert JUDGE_REVISION not in KEPT_CHECKS or KEPT_CHECKS[JUDGE_REVISION] == CHECKS, \
        "the judge's checks changed: bump lab.lifecycle.matching.JUDGE_REVISION and keep the old checks"


def test_the_current_revision_is_the_registry_and_kept_as_published():
    assert CURRENT.cases == CASE_IDS
    kept = revision_of(CURRENT.name)
    assert kept is not None and kept == next(r for r in KEPT if r.name == CURRENT.name), \
        "the registry changed its cases: name a new revision in lab.METHOD_REVISION and keep the old one"
    assert decision_rules(kept) == recount.RULES


def test_a_row_of_an_unknown_revision_is_refused_by_name():
    row = json.loads(next((PUBLISHED / "langgraph-sqlite" / "rows").glob("*.json")).read_text())
    assert problem_of(row) is None
    row["method_revision"] = "from-a-newer-lab"
    assert "method revision 'from-a-newer-lab' is not one this lab reads" in problem_of(row)
    assert "from-a-newer-lab" not in REVISIONS


def test_a_missing_cell_reads_as_not_measured_and_a_present_one_as_itself():
    row = {"method_revision": "old", "cells": {"T1": {"verdict": "REJECTED"}}}
    assert cell_of(row, "T1") == {"verdict": "REJECTED"}
    missing = cell_of(row, "T2")
    assert missing["verdict"] == NOT_MEASURED and "'old' has no case T2" in missing["reason"]
