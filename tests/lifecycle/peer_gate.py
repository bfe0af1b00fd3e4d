"""The peer gate memorycheck, run beside memlab on the same input (installed by scripts/test.d/40-peers.sh
from its source, which is on no package registry: ``$MEMLAB_MEMORYCHECK_SOURCE``).

Every peer run a test makes is named (``record=``) and its outputs are kept under
tests/fixtures/peer-records/: the exit code, the JSON report and the printed text, with volatile
parts (time, run id, ports, temporary paths) masked. Where the peer is installed, each run is live and
its figures must equal the record's (``MEMLAB_RECORD_PEER=1`` writes the records anew instead); where it
is not (a clone of this repository alone), the test compares memlab's live run with the record, and the
session's summary counts those comparisons. A test that needs the peer's own pack (its source) is
skipped by name without it, and fails instead where ``MEMLAB_REQUIRE_LIVE_PEER=1`` (as .ci/run sets).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from peer_records import kept, mask, recorded, require_live

ROOT = Path(__file__).resolve().parents[2]
PEER = ROOT / ".peers" / "memorycheck" / "bin" / "memorycheck"
SOURCE = Path(os.environ.get("MEMLAB_MEMORYCHECK_SOURCE") or next(
    (p for p in (ROOT.parent / "shared" / "peers" / "memorycheck", ROOT.parent.parent / "shared" / "peers" / "memorycheck")
     if (p / "pyproject.toml").is_file()), ROOT.parent / "shared" / "peers" / "memorycheck"))
RATES = ("scope_leakage", "deletion_residue", "stale_reuse", "expiry_leak")
VOLATILE = ("generated_at", "run_id")
HOW = ("memorycheck 0.1.0, installed from its source by scripts/test.d/40-peers.sh, run by "
       "tests/lifecycle/peer_gate.py with MEMLAB_RECORD_PEER=1 on the arguments below")
#: The tests of this session skipped for want of the peer's source.
WITHOUT_SOURCE: list[str] = []


def live() -> bool:
    """Whether the peer is installed here (else its recorded outputs stand in for it)."""
    return PEER.is_file()


def peer_pack() -> Path:
    """The peer's own bundled pack, from its source; a named skip without it (a failure where
    MEMLAB_REQUIRE_LIVE_PEER=1)."""
    pack = SOURCE / "scenarios"
    if not pack.is_dir():
        why = (f"needs memorycheck's own pack, in its source (not at {SOURCE}): set MEMLAB_MEMORYCHECK_SOURCE "
               "to run it (README, 'The peers')")
        if require_live():
            pytest.fail(why)
        WITHOUT_SOURCE.append(os.environ.get("PYTEST_CURRENT_TEST", "?").split(" ")[0])
        pytest.skip(why)
    return pack


def _mask(text: str) -> str:
    return mask(text, {str(SOURCE): "<memorycheck's source>"})


def _stable(report: dict) -> dict:
    return json.loads(_mask(json.dumps({k: v for k, v in report.items() if k not in VOLATILE})))


def figures(exit_code: int, report: dict) -> dict:
    """What a live peer run must keep equal to its record: the exit, and every figure its report has."""
    return {"exit": exit_code, **(metrics(report) if report else {})}


def _peer(record: str, args: list[str], report: Path | None) -> tuple[int, dict, str]:
    if not live():
        saved = recorded(record, f"the live peer memorycheck is not installed at {PEER}: run bash "
                                 "scripts/test.d/40-peers.sh")
        if report and saved["report"]:
            report.write_text(json.dumps(saved["report"]), encoding="utf-8")
        return saved["exit"], saved["report"], saved["output"]
    done = subprocess.run([str(PEER), *args], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert "Traceback" not in done.stderr, done.stderr
    data = json.loads(report.read_text()) if report and report.is_file() else {}
    entry = {"how": HOW, "args": _mask(" ".join(args)), "exit": done.returncode, "report": _stable(data),
             "output": _mask(done.stdout + done.stderr)}
    kept(record, entry, figures(done.returncode, data), lambda saved: figures(saved["exit"], saved["report"]),
         "docs/lifecycle.md")
    return done.returncode, data, done.stdout + done.stderr


def run(tool: str, *args, report: Path | None = None, record: str | None = None) -> tuple[int, dict, str]:
    """``memorycheck ARGS`` (live, or its record named ``record``) or ``memlab lifecycle ARGS`` (with
    ``--report-json REPORT`` when given): (exit, the report or {}, stdout and stderr)."""
    extra = ["--report-json", str(report)] if report else []
    if tool == "peer":
        assert record, "every peer run is named, for its record"
        return _peer(record, [*map(str, args), *extra], report)
    done = subprocess.run([sys.executable, "-m", "lab.cli", "lifecycle", *map(str, args), *extra], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert "Traceback" not in done.stderr, done.stderr
    data = json.loads(report.read_text()) if report and report.is_file() else {}
    return done.returncode, data, done.stdout + done.stderr


def metrics(report: dict) -> dict:
    """The figures both reports carry: every rate metric, accuracy, delta, and the gate."""
    m = report["metrics"]
    return {**{k: m[k] for k in RATES}, "current_fact_accuracy": m["current_fact_accuracy"],
            "delta": m["memory_utility_delta"]["delta"], "verdict": report["gate"]["verdict"],
            "blocking_findings": report["gate"]["blocking_findings"], "answering_layer": report["answering_layer"]}
