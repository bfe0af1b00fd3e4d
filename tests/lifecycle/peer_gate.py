"""The peer gate memorycheck, run beside memlab on the same input (installed by scripts/test.d/40-peers.sh).

A test that needs it fails, naming the script, when it is not installed: a comparison CI skipped
is not a comparison that passed.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PEER = ROOT / ".peers" / "memorycheck" / "bin" / "memorycheck"
SOURCE = Path(os.environ.get("MEMLAB_MEMORYCHECK_SOURCE") or next(
    (p for p in (ROOT.parent / "shared" / "peers" / "memorycheck", ROOT.parent.parent / "shared" / "peers" / "memorycheck")
     if (p / "pyproject.toml").is_file()), ROOT.parent / "shared" / "peers" / "memorycheck"))
RATES = ("scope_leakage", "deletion_residue", "stale_reuse", "expiry_leak")


def require() -> Path:
    """The peer's executable; an AssertionError naming how to install it when it is missing."""
    assert PEER.is_file(), (f"the peer gate memorycheck is not installed at {PEER}: run bash "
                            "scripts/test.d/40-peers.sh (its source: $MEMLAB_MEMORYCHECK_SOURCE)")
    return PEER


def peer_pack() -> Path:
    """The peer's own bundled pack, from its source."""
    pack = SOURCE / "scenarios"
    assert pack.is_dir(), f"memorycheck's source is not at {SOURCE} (set MEMLAB_MEMORYCHECK_SOURCE)"
    return pack


def run(tool: str, *args, report: Path | None = None) -> tuple[int, dict, str]:
    """``memorycheck ARGS`` or ``memlab lifecycle ARGS`` (with ``--report-json REPORT`` when given):
    (exit, the report or {}, stdout and stderr)."""
    cmd = [str(require())] if tool == "peer" else [sys.executable, "-m", "lab.cli", "lifecycle"]
    extra = ["--report-json", str(report)] if report else []
    done = subprocess.run([*cmd, *map(str, args), *extra], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert "Traceback" not in done.stderr, done.stderr
    data = json.loads(report.read_text()) if report and report.is_file() else {}
    return done.returncode, data, done.stdout + done.stderr


def metrics(report: dict) -> dict:
    """The figures both reports carry: every rate metric, accuracy, delta, and the gate."""
    m = report["metrics"]
    return {**{k: m[k] for k in RATES}, "current_fact_accuracy": m["current_fact_accuracy"],
            "delta": m["memory_utility_delta"]["delta"], "verdict": report["gate"]["verdict"],
            "blocking_findings": report["gate"]["blocking_findings"], "answering_layer": report["answering_layer"]}
