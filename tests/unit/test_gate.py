"""The CI gate: exit codes of ``memlab run``/``memlab gate`` with --fail-on and --min-level."""

import pytest
from resultsets import ROOT, copy_set, edit_row, load, make_result_set, memlab, shared_cache

from lab.cases import CASE_IDS
from lab.judge.row import read_row
from lab.resultset.gate import evaluate


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return shared_cache(tmp_path_factory)


@pytest.fixture(scope="module")
def gated(tmp_path_factory):
    """sealed + naive + audit, run with --fail-on accepted: the naive row fails the gate (exit 1)."""
    return make_result_set(tmp_path_factory, "reference-sealed", "reference-naive", "reference-audit",
                           extra=("--fail-on", "accepted"), name="gated", expect=1)


def test_a_failed_gate_still_writes_a_complete_verifiable_set(gated, cache):
    assert memlab("verify", gated, cache=cache).returncode == 0
    assert {p.name for p in gated.iterdir()} >= {"report.md", "junit.xml", "report.html", "manifest.json"}


@pytest.mark.parametrize("args,code", [
    (("--fail-on", "accepted"), 1),  # naive: every cell ACCEPTED
    (("--fail-on", "partial"), 1),
    (("--min-level", "L0"), 0),      # every row is evaluable
    (("--min-level", "L1"), 1),      # naive and audit-only rows stop at L0
])
def test_gate_on_a_saved_set(gated, cache, args, code):
    proc = memlab("gate", gated, *args, cache=cache)
    assert proc.returncode == code, proc.stderr
    if code == 1:
        assert "gate failed reference-naive@read" in proc.stderr


def test_a_sealed_row_meets_every_gate(tmp_path_factory, cache):
    out = make_result_set(tmp_path_factory, "reference-sealed", name="sealed",
                          extra=("--fail-on", "partial", "--min-level", "L4", "--no-reports"))
    assert not (out / "report.html").exists()  # --no-reports
    assert memlab("gate", out, "--fail-on", "accepted", "--min-level", "L4", cache=cache).returncode == 0


def test_gate_on_a_set_that_does_not_verify_is_undecided(gated, cache, tmp_path):
    rs = copy_set(gated, tmp_path / "rs")
    edit_row(rs, "rows/reference-naive@read.json",
             lambda row: [row["cells"][c].update(verdict="REJECTED") for c in CASE_IDS], rescore=True)
    proc = memlab("gate", rs, "--fail-on", "accepted", cache=cache)
    assert proc.returncode == 2 and "does not verify" in proc.stderr


def test_gate_input_errors_exit_2(cache, tmp_path):
    assert memlab("gate", tmp_path / "nothing", "--fail-on", "accepted", cache=cache).returncode == 2
    assert memlab("gate", tmp_path, cache=cache).returncode == 2  # no gate option given


def test_a_harness_failure_leaves_the_gate_undecided(tmp_path, cache):
    out = tmp_path / "rs"
    proc = memlab("run", "--runtime", "local", "--profiles", ROOT / "tests" / "fixtures" / "faulty",
                  "--sut", "faulty-crash", "--out", out, "--fail-on", "accepted", cache=cache)
    assert proc.returncode == 2 and "gate undecided faulty-crash@read: not evaluable" in proc.stderr, proc.stderr
    assert load(out / "rows" / "faulty-crash@read.json")["evaluable"] is False


# The rules on hand-made rows: partial vs accepted, error cells, not evaluable rows.

def _row(verdicts, point="read", evaluable=True, level="L4", c1_reason="ok"):
    cells = {cid: {"verdict": v, "detection_point": point} for cid, v in zip(CASE_IDS, verdicts)}
    return read_row({"row": "r", "detection_point": point, "cells": cells, "evaluable": evaluable, "level": level,
                     "not_evaluable_reason": None if evaluable else c1_reason,
                     "controls": {"C1": {"ok": evaluable, "reason": c1_reason}, "C2": {"ok": True}}})


def test_audit_only_detection_fails_partial_but_not_accepted():
    row = _row(["REPORTED"] * 10, point="audit", level="L0")
    assert evaluate([row], "accepted").exit_code == 0
    assert evaluate([row], "partial").exit_code == 1


def test_error_cells_leave_the_gate_undecided_unless_it_failed_anyway():
    errors = _row(["REJECTED"] * 9 + ["error"])
    assert evaluate([errors], "accepted").exit_code == 2
    failing = _row(["ACCEPTED"] + ["REJECTED"] * 8 + ["error"])
    assert evaluate([failing], "accepted").exit_code == 1


def test_min_level_stopped_by_an_error_is_undecided_by_a_verdict_failed():
    stopped_by_error = _row(["REJECTED"] * 5 + ["error"] + ["REJECTED"] * 4, level="L2")
    assert evaluate([stopped_by_error], min_level="L3").exit_code == 2
    stopped_by_report = _row(["REJECTED"] * 5 + ["REPORTED"] + ["REJECTED"] * 4, level="L2")
    result = evaluate([stopped_by_report], min_level="L3")
    assert result.exit_code == 1 and "stops at T6" in result.failures[0]
    assert evaluate([stopped_by_report], min_level="L2").exit_code == 0


def test_not_evaluable_rows_fail_the_gate_unless_the_harness_failed():
    refuses_all = _row(["REJECTED"] * 10, evaluable=False, level=None, c1_reason="the SUT refused its store")
    assert evaluate([refuses_all], "accepted").exit_code == 1
    harness = _row(["error"] * 10, evaluable=False, level=None, c1_reason="harness error: driver crashed")
    assert evaluate([harness], "accepted").exit_code == 2


def test_no_gate_option_passes_and_an_empty_set_is_undecided():
    assert evaluate([_row(["ACCEPTED"] * 10, level="L0")]).exit_code == 0
    assert evaluate([], "accepted").exit_code == 2
