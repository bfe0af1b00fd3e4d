"""A lifecycle run killed (-9) or terminated (SIGTERM) keeps what it measured: `memlab verify` says
PARTIAL (exit 3), never complete, and `memlab lifecycle run --resume DIR` measures only the scenario
runs it lacks, with the run's own options, into a set that verifies and gives the figures of a run
never interrupted. A shim whose mutations show half a second late makes each scenario slow enough
to be killed in the middle of the pack."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from shims import peer as shims
from test_lifecycle_gate import ROOT, memlab

pytestmark = pytest.mark.system  # composes or runs rows end to end: out of the fast loop

SCENARIOS = ("correction-basic", "deletion-basic", "delete-then-readd")


@pytest.fixture(scope="module")
def pack(tmp_path_factory):
    out = tmp_path_factory.mktemp("pack")
    for name in SCENARIOS:
        (out / f"{name}.yaml").write_text((ROOT / "scenarios" / "lifecycle" / f"{name}.yaml").read_text())
    return out


def figures(out):
    """What the gate says of a set's one row: checks, accuracy, delta, gate."""
    (row,) = [json.loads(p.read_text()) for p in (out / "rows").glob("*.json")]
    return {"checks": row["checks"], "accuracy": row["current_fact_accuracy"], "delta": row["memory_utility_delta"],
            "gate": row["gate"], "findings": row["findings"], "status": row["status"]}


def interrupted(pack, config, out, sig):
    """Start a run, stop it with ``sig`` once its first scenario is saved; its exit code."""
    proc = subprocess.Popen([sys.executable, "-m", "lab.cli", "lifecycle", "run", pack, "--adapter", f"http:{config}",
                             "--seeds", "2", "--out", str(out)], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not list((out / "observations").rglob("*.json")):
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.poll() else "timeout"
        time.sleep(0.05)
    os.kill(proc.pid, sig)  # the process this test started, by its pid
    proc.wait(timeout=60)
    return proc.returncode, proc.stderr.read()


@pytest.mark.parametrize("sig, rc, status", [(signal.SIGKILL, -9, "running"), (signal.SIGTERM, 143, "interrupted")])
def test_an_interrupted_run_is_partial_and_a_resume_completes_it_as_if_never_stopped(tmp_path, pack, sig, rc, status):
    with shims.serve("eventual") as (url, _):
        config = shims.config(tmp_path, url)
        whole = tmp_path / "whole"
        memlab("lifecycle", "run", pack, "--adapter", f"http:{config}", "--seeds", "2", "--out", whole, check_rc=0)
        out = tmp_path / "stopped"
        code, stderr = interrupted(pack, config, out, sig)
        assert code == rc, stderr
        assert json.loads((out / "run.json").read_text())["status"] == status
        verify = memlab("verify", out, check_rc=3)
        assert "PARTIAL" in verify.stdout and f"memlab lifecycle run --resume {out}" in verify.stdout
        assert "delete-then-readd@s1" in verify.stdout  # a scenario run it never reached
        refused = memlab("lifecycle", "run", "--resume", out, "--seeds", "3", check_rc=2)
        assert "refuses --seeds" in refused.stderr
        resumed = memlab("lifecycle", "run", "--resume", out, check_rc=0)
        assert "resuming" in resumed.stderr
    assert "VERIFIED" in memlab("verify", out, check_rc=0).stdout
    run = json.loads((out / "run.json").read_text())
    assert run["status"] == "completed" and len(run["resumed"]) == 1
    assert figures(out) == figures(whole)
    assert "nothing to resume" in memlab("lifecycle", "run", "--resume", out, check_rc=2).stderr
