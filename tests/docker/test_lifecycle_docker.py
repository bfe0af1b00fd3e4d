"""The lifecycle gate on the docker runtime: the three reference rows, each SUT in a hardened
container, give the same figures as on the local runtime (tests/lifecycle/test_gate.py)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.docker


def test_the_reference_rows_gate_the_same_in_containers(tmp_path, cache):
    summary = tmp_path / "summary.json"
    done = subprocess.run([sys.executable, "-m", "lab.cli", "lifecycle", "run", "--sut", "lifecycle-*", "--runtime",
                           "docker", "--out", tmp_path / "set", "--json", summary],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stdout + done.stderr  # naive and leaky fail the gate
    rows = json.loads(summary.read_text())["rows"]
    rates = {row: {n: (c["violations"], c["opportunities"]) for n, c in r["checks"].items()} for row, r in rows.items()}
    assert rows["lifecycle-strict"]["status"] == "PASS" and rows["lifecycle-strict"]["memory_utility_delta"] == 1.0
    assert all(v == 0 for v, _ in rates["lifecycle-strict"].values())
    for row in ("lifecycle-naive", "lifecycle-leaky"):
        assert rows[row]["status"] == "FAIL"
        assert all(v == n > 0 for v, n in (rates[row][c] for c in ("stale_reuse", "deletion_residue", "expiry_leak")))
    assert rates["lifecycle-naive"]["scope_leakage"][0] == 0 < rates["lifecycle-leaky"]["scope_leakage"][0]
    run = json.loads((tmp_path / "set" / "run.json").read_text())
    assert run["runtime"] == "docker" and all(m["describe"]["runtime"] == "docker" for m in run["rows"])
    assert subprocess.run([sys.executable, "-m", "lab.cli", "verify", tmp_path / "set"], cwd=ROOT).returncode == 0
