"""Re-measure each published lifecycle row and compare it with results/published/<row>/lifecycle/.

One test per row and position: ``memlab lifecycle run --sut ROW --runtime local --position P``
(``--runtime docker`` for the rows in ``RUNTIMES``, each with why)
into a scratch folder, then the row record is compared with the committed one. A test fails when
any check's status, violations or opportunities, the current-fact accuracy counts, the number of
harness errors, the erasure-at-rest counts (deleted values still on disk, proven not found, not
attributable, not measured: a raw scan of the real store after each delete), or the SUT's
installed version differ. Nothing here knows what the results should
be: the committed rows are the measurement they are compared with. Both positions are
re-measured for every row (on the local runtime, or the one ``RUNTIMES`` names), the restarted
one included where every restart imports the SUT's own modules anew (hermes-memory-md and
letta-block-history read their paths or settings at import: the fork server preloads only their
dependencies, docs/fork-server.md), rebinds CrewAI's paths and imports lancedb (crewai-ltm-lancedb)
or starts a container (openclaw-memory-md).
Those restarted runs (``AHEAD``, 1 to 3 minutes each) are started when the session's tests are
collected and run one at a time beside the other tests (``tests/background.py``); their tests
wait for them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from background import AHEAD as BACKGROUND
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
#: Runs started ahead, beside the other tests (see the module).
AHEAD = {(row, "restarted") for row in ("crewai-ltm-lancedb", "hermes-memory-md", "langgraph-redis",
                                        "openclaw-memory-md", "letta-block-history")}
CASES = [pytest.param(row, position, id=f"{row}@{position}") for position in ("live", "restarted") for row in ROWS]


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


#: Seconds a run may take; where each run started ahead writes its set.
TIMEOUT = 1800
OUT: dict[tuple[str, str], Path] = {}


def command(row: str, position: str, out: Path) -> list[str]:
    """``memlab lifecycle run`` of one row and position into ``out``."""
    return [sys.executable, "-m", "lab.cli", "lifecycle", "run", "--sut", row, "--runtime",
            RUNTIMES.get(row, ("local",))[0], "--position", position, "--out", str(out)]


def start_ahead(row: str, position: str) -> None:
    """Queue the run of a row in ``AHEAD`` in the background (the rows' conftest calls it at collection)."""
    out = BACKGROUND.folder(f"memlab-ahead-{row}-") / "set"
    BACKGROUND.submit((row, position), command(row, position, out), ROOT, TIMEOUT)
    OUT[(row, position)] = out


def remeasure(row: str, position: str, out: Path) -> dict:
    """Run the row again through the CLI (or wait for its run started ahead); keep how long it took
    for the session's timings."""
    started = time.monotonic()
    runtime = RUNTIMES.get(row, ("local",))[0]
    done = BACKGROUND.wait((row, position))
    if done is None:
        done = subprocess.run(command(row, position, out), cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT)
        how = f"whole run {time.monotonic() - started:.1f} s"
    else:
        out = OUT[(row, position)]
        how = f"whole run {done.seconds:.1f} s, started ahead (waited {time.monotonic() - started:.1f} s for it)"
    TIMINGS.append(f"{row}@{position} (lifecycle, {runtime}): {how}")
    print("\n" + TIMINGS[-1])
    assert done.returncode in (0, 1), f"exit {done.returncode}:\n{done.stderr[-3000:]}"
    return json.loads((out / "rows" / f"{row}@{position}.json").read_text())


def assert_matches_published(row: str, position: str, now: dict) -> None:
    """A lifecycle row record re-measured equals the published one's :func:`summary`, with the SUT's
    installed version the published one."""
    then = published(row, position)
    assert installed(now) == installed(then) == str(then["sut"]["version"]), \
        f"{row}@{position}: installed {installed(now)}, published {installed(then)}"
    assert summary(now) == summary(then), f"{row}@{position} differs from results/published/{row}/lifecycle"


@pytest.mark.parametrize(("row", "position"), CASES)
def test_lifecycle_row_matches_its_published_set(row, position, tmp_path):
    assert_matches_published(row, position, remeasure(row, position, tmp_path / "set"))
