"""LangMem's memory tools over LangGraph's SqliteStore (images/langmem): row langmem-sqlite.

The row is re-measured at rest once (``integrity_rows.check_row``: cell and variant for cell and
variant against its published set, and the installed langmem version); every edit is served as
genuine with its C3 proof, through LangMem's search tool; and the lifecycle gate, live and
restarted, is run once (``--position both --fail-on p1``, as published), each position compared
with ``results/published/langmem-sqlite/lifecycle/``: no P1 finding, and the one stale reuse a
store of create-only writes shows (a fact written again is a second memory beside the first).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from integrity_rows import ROOT, TIMINGS, check_row
from lab.resultset.results import read_json
from test_lifecycle_rows import installed, published, summary

pytestmark = pytest.mark.rows

ROW = "langmem-sqlite"
CASES = ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8", "T9", "T10")


@pytest.fixture(scope="module")
def at_rest(tmp_path_factory):
    """(the comparison's failure or None, the new rows by detection point), measured once."""
    out = tmp_path_factory.mktemp(ROW) / "set"
    try:
        check_row(ROW, out)
        failure = None
    except AssertionError as exc:  # reported by the comparison test; the others still look
        failure = exc
    return failure, {r["detection_point"]: r for r in map(read_json, sorted((out / "rows").glob("*.json")))}


@pytest.fixture(scope="module")
def lifecycle(tmp_path_factory):
    """The lifecycle row records by position, from one run of both positions."""
    out = tmp_path_factory.mktemp(f"{ROW}-lifecycle") / "set"
    cmd = [sys.executable, "-m", "lab.cli", "lifecycle", "run", "--sut", ROW, "--runtime", "local",
           "--position", "both", "--fail-on", "p1", "--out", str(out)]
    started = time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=900)
    TIMINGS.append(f"{ROW} (lifecycle, both positions, local): whole run {time.monotonic() - started:.1f} s")
    assert proc.returncode == 0, f"exit {proc.returncode}:\n{proc.stderr[-3000:]}"
    return {p: json.loads((out / "rows" / f"{ROW}@{p}.json").read_text()) for p in ("live", "restarted")}


def test_row_matches_its_published_result_set(at_rest):
    failure, rows = at_rest
    if failure is not None:
        raise failure
    assert set(rows) == {"read"}  # no audit command: the read point only


def test_every_edit_is_served_as_genuine_by_the_search_tool(at_rest):
    read = at_rest[1]["read"]
    assert read["controls"]["C1"]["ok"] and read["controls"]["C2"]["ok"]
    assert read["runtime"]["packages"]["langmem"] == "0.0.30"
    for case in CASES:
        cell = read["cells"][case]
        assert cell["verdict"] == "ACCEPTED", (case, cell["reason"])
        if case not in ("T9", "T10"):
            assert cell["evidence"]["c3"]["ok"], (case, cell["evidence"]["c3"]["reasons"])


@pytest.mark.parametrize("position", ["live", "restarted"])
def test_lifecycle_run_matches_its_published_set(lifecycle, position):
    then, now = published(ROW, position), lifecycle[position]
    assert installed(now) == installed(then) == str(then["sut"]["version"]), (installed(now), installed(then))
    assert summary(now) == summary(then), f"{ROW}@{position} differs from results/published/{ROW}/lifecycle"


@pytest.mark.parametrize("position", ["live", "restarted"])
def test_a_fact_written_again_is_a_second_memory(lifecycle, position):
    record = lifecycle[position]
    checks = {n: (c["status"], c["violations"]) for n, c in record["checks"].items()}
    assert checks == {"scope_leakage": ("PASS", 0), "deletion_residue": ("PASS", 0), "stale_reuse": ("FAIL", 1),
                      "expiry_leak": ("NOT TESTED", 0), "missing_current_fact": ("PASS", 0)}, checks
    assert record["gate"]["status"] == "PASS" and not record["errors"], (record["gate"], record["errors"])
