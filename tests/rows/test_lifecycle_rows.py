"""Re-measure each published lifecycle row and compare it with results/published/<row>/lifecycle/.

One test per row and position: ``memlab lifecycle run --sut ROW --runtime local --position P``
(``--runtime docker`` for the rows in ``RUNTIMES``, each with why)
into a scratch folder, then the row record is compared with the committed one. A test fails when
any check's status, violations or opportunities, the current-fact accuracy counts, the number of
harness errors, the erasure-at-rest counts (deleted values still on disk, proven not found, not
attributable, not measured: a raw scan of the real store after each delete), or the SUT's
installed version differ. Nothing here knows what the results should
be: the committed rows are the measurement they are compared with. The live position is
re-measured for every row (on the local runtime, or the one ``RUNTIMES`` names); the restarted position for every row but those in ``SLOW_RESTARTED``,
whose restarts the fork server (docs/fork-server.md) cannot make cheap: each names why, and the
seconds of its published run say what re-measuring it would cost CI.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from integrity_rows import ROOT, TIMINGS

pytestmark = pytest.mark.rows

PUBLISHED = ROOT / "results" / "published"
#: Every row the lifecycle gate measures, in the order of docs/rows-lifecycle.md.
ROWS = ("mem0-qdrant-local", "crewai-ltm-lancedb", "inspeximus-default", "inspeximus-rcpt+dir", "atmem-chain",
        "atmem-chain+checkpoint", "atelya-attest-chain", "atelya-attest-chain+anchor", "memory-blackbox-md",
        "langgraph-sqlite", "langgraph-sqlite+aes", "langgraph-postgres", "langgraph-ledger",
        "openai-agents-sqlite-session", "llamaindex-memory-sqlite", "hermes-memory-md", "langgraph-redis",
        "openclaw-memory-md", "letta-block-history")
#: Rows re-measured on another runtime than the local one, and why.
RUNTIMES = {"langgraph-redis": ("docker", "its Redis Stack server links OpenSSL 1.1: the lab's bullseye-based image"),
            "openclaw-memory-md": ("docker", "it brings its own image (a Node driver), which runs on docker only")}
#: Rows whose restarted run is not re-measured here: every restart imports the SUT itself (it reads
#: its paths at import: fork_server.per_start, docs/fork-server.md, or it opts out), or starts a
#: container, and that alone is too slow for CI.
SLOW_REASONS = {
    "crewai-ltm-lancedb": "every start imports CrewAI, pyarrow and lancedb (storage paths read at import; "
                          "pyarrow starts a thread at import, so the fork server cannot preload it)",
    "hermes-memory-md": "every start imports Hermes (HERMES_HOME read at import), and every read builds "
                        "an agent session",
    "langgraph-redis": "it runs on the docker runtime; its restarted run took 743 s when published (a new "
                       "container importing LangGraph and redisvl per restart), before the docker fork server",
    "openclaw-memory-md": "its own image runs on the docker runtime, where every restart is a new container "
                          "that loads OpenClaw's Node modules again (no fork server for a Node driver)",
    "letta-block-history": "Letta reads its database settings at import, so its profile opts out of the fork server",
}


def restarted_seconds(row: str) -> float:
    """Seconds the published restarted run of a row took (run.json)."""
    run = json.loads((PUBLISHED / row / "lifecycle" / "run.json").read_text())
    return next(t["seconds"] for t in run["rows"] if t["row"] == row and t["position"] == "restarted")


SLOW_RESTARTED = {row: (restarted_seconds(row), why) for row, why in SLOW_REASONS.items()}
CASES = [pytest.param(row, position, id=f"{row}@{position}")
         for position in ("live", "restarted") for row in ROWS
         if position == "live" or row not in SLOW_RESTARTED]


def published(row: str, position: str) -> dict:
    """The committed row record of one position."""
    path = PUBLISHED / row / "lifecycle" / "rows" / f"{row}@{position}.json"
    assert path.is_file(), f"no published lifecycle row {path}"
    return json.loads(path.read_text())


def summary(record: dict) -> dict:
    """What must not change between two measurements of a row."""
    return {"checks": {name: (c["status"], c["violations"], c["opportunities"])
                       for name, c in sorted(record["checks"].items())},
            "current_facts": (record["current_fact_accuracy"]["hits"], record["current_fact_accuracy"]["opportunities"]),
            "errors": len(record["errors"]), "position": record["position"],
            "erasure_at_rest": {k: (record.get("erasure_at_rest") or {}).get(k)
                                for k in ("deletes", "present", "not_found", "not_attributable", "not_measured")}}


def installed(record: dict) -> str | None:
    """The SUT package's version as installed in the environment the run used."""
    packages = (record.get("describe") or {}).get("packages") or {}
    want = str(record["sut"]["package"]).lower().replace("_", "-")
    return next((v for k, v in packages.items() if k.lower().replace("_", "-") == want), None)


def remeasure(row: str, position: str, out: Path) -> dict:
    """Run the row again through the CLI; keep how long it took for the session's timings."""
    started = time.monotonic()
    runtime = RUNTIMES.get(row, ("local",))[0]
    done = subprocess.run([sys.executable, "-m", "lab.cli", "lifecycle", "run", "--sut", row, "--runtime", runtime,
                           "--position", position, "--out", str(out)], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)
    TIMINGS.append(f"{row}@{position} (lifecycle, {runtime}): whole run {time.monotonic() - started:.1f} s")
    print("\n" + TIMINGS[-1])
    assert done.returncode in (0, 1), f"exit {done.returncode}:\n{done.stderr[-3000:]}"
    return json.loads((out / "rows" / f"{row}@{position}.json").read_text())


@pytest.mark.parametrize(("row", "position"), CASES)
def test_lifecycle_row_matches_its_published_set(row, position, tmp_path):
    then = published(row, position)
    now = remeasure(row, position, tmp_path / "set")
    assert installed(now) == installed(then) == str(then["sut"]["version"]), \
        f"{row}@{position}: installed {installed(now)}, published {installed(then)}"
    assert summary(now) == summary(then), f"{row}@{position} differs from results/published/{row}/lifecycle"
