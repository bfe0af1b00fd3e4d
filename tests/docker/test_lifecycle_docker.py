"""The lifecycle gate on the docker runtime: the three reference rows, each SUT in a hardened
container, give the same figures as on the local runtime (tests/lifecycle/test_lifecycle_gate.py);
restarted, each mutation is followed by a new container on the same volume, and the erasure scan
reads the bind-mounted volume while no container runs."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACK = ROOT / "scenarios" / "lifecycle"
pytestmark = pytest.mark.docker


def gate(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess, dict]:
    """`memlab lifecycle run ... --runtime docker` into tmp_path/set; (the process, the summary)."""
    summary = tmp_path / "summary.json"
    done = subprocess.run([sys.executable, "-m", "lab.cli", "lifecycle", "run", *args, "--runtime", "docker",
                           "--out", tmp_path / "set", "--json", summary],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert summary.is_file(), done.stdout + done.stderr
    verified = subprocess.run([sys.executable, "-m", "lab.cli", "verify", tmp_path / "set"], cwd=ROOT)
    assert verified.returncode == 0
    return done, json.loads(summary.read_text())


def test_the_reference_rows_gate_the_same_in_containers(tmp_path, cache):
    done, summary = gate(tmp_path, "--sut", "lifecycle-*")
    assert done.returncode == 1, done.stdout + done.stderr  # naive and leaky fail the gate
    rows = summary["rows"]
    rates = {row: {n: (c["violations"], c["opportunities"]) for n, c in r["checks"].items()} for row, r in rows.items()}
    assert rows["lifecycle-strict@live"]["status"] == "PASS" and rows["lifecycle-strict@live"]["memory_utility_delta"] == 1.0
    assert all(v == 0 for v, _ in rates["lifecycle-strict@live"].values())
    for row in ("lifecycle-naive@live", "lifecycle-leaky@live"):
        assert rows[row]["status"] == "FAIL"
        assert all(v == n > 0 for v, n in (rates[row][c] for c in ("stale_reuse", "deletion_residue", "expiry_leak")))
    assert rates["lifecycle-naive@live"]["scope_leakage"][0] == 0 < rates["lifecycle-leaky@live"]["scope_leakage"][0]
    run = json.loads((tmp_path / "set" / "run.json").read_text())
    assert run["runtime"] == "docker" and all(m["describe"]["runtime"] == "docker" for m in run["rows"])


def test_restarted_in_containers_keeps_the_checks_and_scans_the_stopped_volume(tmp_path, cache):
    (tmp_path / "pack").mkdir()
    for sid in ("deletion-basic", "rescope-user", "correction-basic"):
        shutil.copy(PACK / f"{sid}.yaml", tmp_path / "pack")
    done, summary = gate(tmp_path, "--sut", "lifecycle-strict", "--sut", "lifecycle-naive", "--restart",
                         "--scenarios", str(tmp_path / "pack"))
    assert done.returncode == 1, done.stdout + done.stderr
    rows = summary["rows"]
    for row in ("lifecycle-strict", "lifecycle-naive"):
        live, restarted = rows[f"{row}@live"], rows[f"{row}@restarted"]
        assert live["checks"] == restarted["checks"] and restarted["restarts"]["count"] > 0
        assert live["restarts"]["count"] == 0
    naive = rows["lifecycle-naive@restarted"]["erasure_at_rest"]
    assert naive["present"] == 1 and naive["evidence"][0]["hits"][0]["file"] == "lifecycle.json"
    assert naive["evidence"][0]["when"].startswith("the SUT and its services stopped")
    strict = rows["lifecycle-strict@restarted"]["erasure_at_rest"]
    assert strict["present"] == 0 and strict["not_found"] == 1
