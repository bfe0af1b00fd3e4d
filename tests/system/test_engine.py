"""The whole method end to end on the local runtime: the reference rows calibrate the lab."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from edits.model import AppliedEdit
from lab.cases import CASE_IDS
from lab.method.engine import run_matrix
from lab.runtime.housekeeping import MOUNT_LINKS, RunRegistry, new_run_id, scratch_base
from lab.profile import load_profiles, scan_profiles, select
from lab.runtime.local import LocalRuntime
from processes import run_processes
from sharding import baseline

ROOT = Path(__file__).resolve().parents[2]
FAULTY = ROOT / "tests" / "fixtures" / "faulty"

EXPECTED = {  # the calibration the reference SUTs exist for (issue: the lab engine)
    "reference-naive": ["ACCEPTED"] * 10,
    "reference-naive-jsonl": ["ACCEPTED"] * 10,
    "reference-naive-md": ["ACCEPTED"] * 10,
    "reference-sealed": ["REJECTED"] * 10,
    "reference-sealed-beside": ["REJECTED"] * 8 + ["ACCEPTED"] * 2,
    "reference-audit": ["REPORTED"] * 8 + ["ACCEPTED"] * 2,
    "reference-naive-postgres": ["ACCEPTED"] * 10,
    "reference-naive-pgvector": ["ACCEPTED"] * 10,
    "reference-sealed-postgres": ["REJECTED"] * 10,
    "reference-naive-redis": ["ACCEPTED"] * 10,
}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The reference rows as `memlab run` measured them (the session's --jobs 1 set, which the
    sharding, side-by-side and parity tests read too)."""
    out = baseline(tmp_path_factory)
    return out, {r["row"]: r for r in (json.loads(p.read_text()) for p in sorted((out / "rows").glob("*.json")))}


def test_reference_rows_give_exactly_the_calibrated_verdicts(reference):
    _, rows = reference
    assert set(rows) == set(EXPECTED)
    for name, verdicts in EXPECTED.items():
        row = rows[name]
        assert [row["cells"][c]["verdict"] for c in CASE_IDS] == verdicts, name
        assert row["controls"]["C1"]["ok"] and row["controls"]["C2"]["ok"], name
        assert row["controls"]["C3"]["ok"] and row["controls"]["C3"]["landed"] == list(CASE_IDS), name


def test_scores_and_levels_of_the_reference_rows(reference):
    _, rows = reference
    assert (rows["reference-sealed"]["metric"], rows["reference-sealed"]["level"]) == (1.0, "L4")
    assert (rows["reference-sealed-beside"]["metric"], rows["reference-sealed-beside"]["level"]) == (0.8, "L3")
    assert (rows["reference-audit"]["metric"], rows["reference-audit"]["detection_point"]) == (0.4, "audit")
    assert rows["reference-naive"]["metric"] == 0.0
    assert all(c["observation_class"] == "b" for c in rows["reference-audit"]["cells"].values())


def test_every_cell_carries_c3_evidence_and_edit_statements(reference):
    out, rows = reference
    for row in rows.values():
        for cid in CASE_IDS:
            ev = row["cells"][cid]["evidence"]
            assert ev["c3"]["ok"] is True, (row["row"], cid)
            assert ev["statements"], (row["row"], cid)
            obs = json.loads((out / "observations" / row["row"] / f"{cid}.json").read_text())
            assert obs["sut_stopped_during_edit"] and obs["c3"]["records_before"], (row["row"], cid)
            if cid not in ("T9", "T10"):
                changed = obs["c3"]["files"]["added"] + obs["c3"]["files"]["changed"] + obs["c3"]["files"]["removed"]
                assert changed, (row["row"], cid)  # the raw volume changed
            else:
                assert obs["c3"]["evidence"]["restored_equal"], (row["row"], cid)


def test_result_set_files_and_stable_fields(reference):
    out, rows = reference
    run = json.loads((out / "run.json").read_text())
    assert run["status"] == "completed" and run["method_revision"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert len(manifest["rows"]) == len(rows) and all(e["digest"].startswith("sha256:") for e in manifest["rows"])
    row = json.loads((out / "rows" / "reference-naive@read.json").read_text())
    for key in ("row", "detection_point", "cells", "controls", "metric", "level", "sut", "runtime",
                "configuration", "method_revision", "lab", "date", "dut_boundary"):
        assert key in row
    assert row["sut"]["reported"]["version"] == "0.1.0"
    assert row["runtime"]["runtime"] == "local" and row["runtime"]["python"]
    assert list((out / "logs" / "reference-naive").glob("*.log"))


def test_an_edit_that_does_not_land_is_an_error_not_a_verdict(tmp_path, cache, monkeypatch):
    import lab.method.sessions as sessions

    real = sessions.editor_for

    class NoOpT1:
        def __init__(self, inner):
            self.inner, self.layout = inner, inner.layout

        def records(self):
            return self.inner.records()

        def apply(self, spec):
            if spec.case == "T1":  # deliberately broken: claims an edit, changes nothing
                return AppliedEdit("T1", "sqlite", ["-- nothing"], [spec.target])
            return self.inner.apply(spec)

    monkeypatch.setattr(sessions, "editor_for", lambda layout, vols, *a, **kw: NoOpT1(real(layout, vols, *a, **kw)))
    rows = run_matrix(select(load_profiles(), ["reference-naive"]), LocalRuntime(), tmp_path, nonce="noop").rows
    cell = rows[0]["cells"]["T1"]
    assert cell["verdict"] == "error" and "did not land" in cell["reason"]
    assert "raw volume unchanged" in cell["reason"]
    assert rows[0]["cells"]["T2"]["verdict"] == "ACCEPTED"
    assert rows[0]["counts"]["N"] == 9  # the error is excluded from N


def test_faulty_drivers_are_error_rows_and_the_matrix_goes_on(tmp_path, cache):
    profiles, errors = scan_profiles(FAULTY)
    assert not errors
    chosen = select(profiles, ["faulty-crash", "faulty-hang", "faulty-garbage", "reference-naive"])
    rows = {r["row"]: r for r in run_matrix(chosen, LocalRuntime(), tmp_path, jobs=2, nonce="faults").rows}
    reasons = {name: rows[name]["not_evaluable_reason"] for name in ("faulty-crash", "faulty-hang", "faulty-garbage")}
    assert "exited with code 3" in reasons["faulty-crash"]
    assert "no answer within 1.5 s" in reasons["faulty-hang"]
    assert "garbage, not JSON" in reasons["faulty-garbage"]
    for name in reasons:
        assert {c["verdict"] for c in rows[name]["cells"].values()} == {"error"}
        assert rows[name]["metric"] is None
    assert [rows["reference-naive"]["cells"][c]["verdict"] for c in CASE_IDS] == ["ACCEPTED"] * 10
    seed = json.loads((tmp_path / "observations" / "faulty-crash" / "seed.json").read_text())
    assert seed["error"]["stage"] == "driver" and len(seed["writes"]) == 10  # what was measured is kept


def _faulty_row(tmp_path, name: str, fault: str) -> dict:
    """The row of faulty-crash's profile renamed ``name``, its one fault ``fault`` (``{op: ..., kind: ...}``),
    run into ``tmp_path / "out"``."""
    text = (FAULTY / "faulty-crash.yaml").read_text().replace("faulty-crash", name).replace(
        "{op: read, kind: crash}", fault)
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / f"{name}.yaml").write_text(text.replace("driver: ./", f"driver: {FAULTY}"))
    profiles, errors = scan_profiles(tmp_path / "p")
    assert not errors, errors
    return run_matrix(profiles, LocalRuntime(), tmp_path / "out", nonce=name).rows[0]


def test_a_fault_inside_one_case_spoils_only_that_cell(tmp_path, cache):
    row = _faulty_row(tmp_path, "faulty-erase", "{op: erase, kind: crash}")
    assert row["cells"]["T10"]["verdict"] == "error" and "exited with code 3" in row["cells"]["T10"]["reason"]
    assert [row["cells"][c]["verdict"] for c in CASE_IDS[:9]] == ["ACCEPTED"] * 9
    assert row["evaluable"] and row["metric"] == 0.0


def test_a_refused_seeding_write_is_a_harness_error_naming_the_sut_log(tmp_path, cache):
    row = _faulty_row(tmp_path, "faulty-refuse", "{op: write, kind: refuse}")
    seed = json.loads((tmp_path / "out" / "observations" / "faulty-refuse" / "seed.json").read_text())
    assert seed["error"]["stage"] == "seed" and "refused a seeding write" in seed["error"]["message"]
    assert "SUT log:" in seed["error"]["message"] and "seed-0.log" in seed["error"]["message"]
    assert "  | PermissionError: write refused on purpose" in seed["error"]["message"]  # the log's last line
    assert not row["evaluable"]


#: Runs ``python ARGS`` in the same process with SIGINT at its default disposition, whatever the
#: parent's: under ``nohup`` or a CI runner that ignores SIGINT the child inherits SIG_IGN, and
#: Python then installs no KeyboardInterrupt handler; an exec (not a child) keeps the PID signalled.
DEFAULT_SIGINT = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                  "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])")


def _start_slow_run(out: Path, cache: Path, parent_ignores_sigint: bool = False) -> subprocess.Popen:
    """``memlab run`` of the slow faulty row, once it is past C1; ``parent_ignores_sigint`` starts it
    from a parent (this test process, for the moment of the start) that ignores SIGINT, as ``nohup`` does."""
    env = {**os.environ, "MEMLAB_CACHE": str(cache)}
    argv = [sys.executable, "-c", DEFAULT_SIGINT, "-m", "lab.cli", "run", "--profiles", str(FAULTY), "--sut",
            "faulty-slow", "--out", str(out), "--runtime", "local"]
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if parent_ignores_sigint else None
    try:
        proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    deadline = time.monotonic() + 60
    while not (out / "observations" / "faulty-slow" / "C1.json").exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the slow run did not get past C1"
        time.sleep(0.1)
    time.sleep(0.5)  # inside C2 or a case now: a SUT process is running
    return proc


def test_ctrl_c_leaves_no_process_and_keeps_what_was_measured(tmp_path, cache):
    out = tmp_path / "out"
    proc = _start_slow_run(out, cache, parent_ignores_sigint=True)  # it tests memlab, not the test's parent
    run_id = json.loads((out / "run.json").read_text())["run_id"]
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err.decode()
    time.sleep(0.2)
    assert run_processes(run_id) == []
    run = json.loads((out / "run.json").read_text())
    assert run["status"] == "interrupted" and run["finished"]
    assert (out / "observations" / "faulty-slow" / "C1.json").exists()
    row = json.loads((out / "rows" / "faulty-slow@read.json").read_text())
    assert row["controls"]["C1"]["ok"]  # measured before the interrupt, kept
    assert not list((cache / "runs").glob("*")) and not list(scratch_base().glob("*"))


def test_gc_removes_what_a_killed_run_left(tmp_path, cache):
    out = tmp_path / "out"
    proc = _start_slow_run(out, cache)
    run_id = json.loads((out / "run.json").read_text())["run_id"]
    proc.kill()  # a crash: no cleanup runs
    proc.wait()
    assert (cache / "runs" / run_id).exists()
    env = {**os.environ, "MEMLAB_CACHE": str(cache)}
    gc = subprocess.run([sys.executable, "-m", "lab.cli", "gc"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert gc.returncode == 0, gc.stderr
    assert f"run {run_id}" in gc.stderr
    time.sleep(0.2)
    assert run_processes(run_id) == []
    assert not (cache / "runs" / run_id).exists() and not list(scratch_base().glob(f"{run_id}-*"))
    shutil.rmtree(out, ignore_errors=True)


def test_closing_a_run_removes_the_volume_links_the_driver_kit_made(cache):
    registry = RunRegistry(new_run_id())
    links = MOUNT_LINKS / registry.run_id / "some-row"
    links.mkdir(parents=True)
    (links / "store").symlink_to(registry.scratch_root)  # as kit.fixed_paths leaves it
    registry.close()
    assert not (MOUNT_LINKS / registry.run_id).exists()
