"""The front door on the lab's rows, through their SUTs' drivers: each row that takes the measurement and
has a published set (``results/published/<row>/frontdoor/``) is measured again here, both positions, and
must give the published figures; the LangGraph store rows are also held to what their SUT does.

``memlab frontdoor run --sut ROW --runtime local --out DIR`` once per row (shared by the module's tests).
The rows re-measured are those of ``FRAMEWORK_ROWS`` (each SUT's rows that cost seconds, one Mem0 row,
and a PostgreSQL row whose read-back goes through its server); ``MEMLAB_FRONTDOOR_ALL_ROWS=1`` re-measures every published row (CrewAI's take about seven minutes
each, letta-archival about twenty-one: its restarted position imports Letta before every judged read). Every
published set, re-measured or not, is verified by tests/unit/test_published.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lab.frontdoor.results import FrontdoorResult
from lab.frontdoor.verify import verify_frontdoor
from lab.resultset.files import read_json

pytestmark = pytest.mark.rows

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = sorted(p.parent.name for p in (ROOT / "results" / "published").glob("*/frontdoor")
                   if (p / "manifest.json").is_file())
FRAMEWORK_ROWS = ("langgraph-store", "langgraph-store-sqlite", "inspeximus-default", "inspeximus-trusted-read",
                  "inspeximus-trusted-key", "mem0-qdrant-local+source-filter",
                  "langgraph-store-postgres")  # its cases read back through the server started alone
MEASURED = PUBLISHED if os.environ.get("MEMLAB_FRONTDOOR_ALL_ROWS") == "1" else [
    row for row in PUBLISHED if row in FRAMEWORK_ROWS]


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """``measured(row)``: (exit code, {position: result}) of one run of the row, made once."""
    done: dict[str, tuple[int, dict[str, FrontdoorResult]]] = {}

    def run(row: str) -> tuple[int, dict[str, FrontdoorResult]]:
        if row not in done:
            out = tmp_path_factory.mktemp(f"frontdoor-{row}") / "set"
            proc = subprocess.run([sys.executable, "-m", "lab.cli", "frontdoor", "run", "--sut", row, "--runtime",
                                   "local", "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=1800)
            assert proc.returncode in (0, 1), f"exit {proc.returncode}:\n{proc.stderr[-3000:]}"
            assert verify_frontdoor(out).ok
            done[row] = proc.returncode, rows_of(out)
            run.folders[row] = out
        return done[row]

    run.folders = {}  # row -> its set's folder
    return run


def rows_of(root: Path) -> dict[str, FrontdoorResult]:
    return {p.stem.rsplit("@", 1)[1]: FrontdoorResult.from_json(read_json(p)) for p in (root / "rows").glob("*.json")}


#: Cells whose verdicts follow the wall clock, not the input: SqliteStore (LangMem's too, and Agno's memory table) stamps
#: updated_at to the second and the read orders by it, ties in insertion order, so whether the stuffed
#: entry or the genuine write after it is among the k served depends on the second each write fell in.
#: Their figures are reported, not compared.
TIMING_DEPENDENT = {"langgraph-store-sqlite": {"crowding"}, "agno-sqlite": {"crowding"}, "langmem-sqlite": {"crowding"}}


def figures(result: FrontdoorResult, row: str = "") -> dict:
    """What a row says: its level, each cell's verdict counts, each probe's tally, the reasons of no
    verdict (a timing-dependent cell left out), and its attack writes proven stored (C3)."""
    skip = TIMING_DEPENDENT.get(row, set())
    return {"level": result.level(), "sut": result.sut.model_dump() if result.sut else None,
            "proven": result.proven(),
            "cells": {(c.family.value, c.channel.value): (c.counts, c.no_verdict) for c in result.cells()
                      if c.family.value not in skip},
            "probes": {t.probe: (t.leaks, t.total, t.no_verdict) for t in result.probes()},
            "reasons": sorted({o.decision.reason for o in (*result.poisoning, *result.isolation)
                               if o.decision.reason and getattr(o, "family", None) not in skip})}


def test_the_rows_re_measured_here_are_published():
    assert set(FRAMEWORK_ROWS) <= set(PUBLISHED)


@pytest.mark.parametrize("row", MEASURED)
def test_a_row_measures_as_its_published_front_door_set(measured, row):
    code, now = measured(row)
    then = rows_of(ROOT / "results" / "published" / row / "frontdoor")
    assert set(now) == set(then) == {"live", "restarted"}
    for position in then:
        got, want = figures(now[position], row), figures(then[position], row)
        want["sut"]["runtime"] = got["sut"]["runtime"] = "local"
        assert got == want, f"{row}@{position} differs from results/published/{row}/frontdoor"


def test_the_sqlite_store_serves_every_planted_write_and_reads_a_missing_user_as_every_user(measured):
    """BaseStore keeps no label (one channel); search takes a namespace prefix, so a read with no user id
    is served every user's memories, and a memory written with none is served to every user (no-scope
    leaks both ways). Crowding is timing-dependent (TIMING_DEPENDENT), so not asserted."""
    code, rows = measured("langgraph-store-sqlite")
    assert code == 1
    for result in rows.values():
        assert result.level() == "P0" and result.sut.channels == ("untrusted",)
        assert {c.family.value: c.served for c in result.cells() if c.family.value != "crowding"} == {
            "planted_fact": 5, "false_correction": 5, "instruction": 5, "trust_tag": 5, "smuggled_label": 5}
        probes = {t.probe: t for t in result.probes()}
        assert (probes["no-scope"].leaks, probes["no-scope"].total) == (20, 20)
        assert all(t.leaks == 0 for name, t in probes.items() if name != "no-scope")
        refused = {w.refusal for o in result.isolation if o.probe == "int-str" for w in o.writes if not w.accepted}
        assert refused and all("must be strings" in r for r in refused), refused  # BaseStore refuses an int id


def test_the_in_memory_store_keeps_nothing_across_a_restart_and_is_never_held_for_it(measured):
    code, rows = measured("langgraph-store")
    live, restarted = rows["live"], rows["restarted"]
    assert live.level() == "P0"
    assert restarted.level() == "n/a" and not any(c.served for c in restarted.cells())
    assert all(c.status == "n/a" for c in restarted.cells()) and all(t.status == "n/a" for t in restarted.probes())


def test_the_doctor_agrees_with_the_run_on_the_sqlite_store():
    proc = subprocess.run([sys.executable, "-m", "lab.cli", "frontdoor", "doctor", "--sut", "langgraph-store-sqlite",
                           "--runtime", "local", "--json"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    checks = {c["name"]: c["ok"] for c in json.loads(proc.stdout)["checks"]}
    assert checks == {"serves": True, "labels": False, "signatures": False, "content": False, "scopes": True}
    assert proc.stderr.startswith("runtime: local")


def test_the_doctor_signs_what_the_sut_verifies_and_names_the_signer():
    """inspeximus verifies its own attestation message under the signer a write names: the doctor's genuine
    write must be signed over those bytes and name its signer, as the run's are (it said "cannot be measured"
    for every inspeximus row before), and a refused genuine write would be shown with what the store said."""
    proc = subprocess.run([sys.executable, "-m", "lab.cli", "frontdoor", "doctor", "--sut", "inspeximus-trusted-key",
                           "--runtime", "local", "--json"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-2000:]
    checks = {c["name"]: c["ok"] for c in json.loads(proc.stdout)["checks"]}
    assert checks == {"serves": True, "labels": True, "signatures": True, "content": False, "scopes": True}


def test_a_row_s_sut_logs_are_pinned_once_its_sut_is_stopped(measured):
    """Every start of the row's SUT left its log in the set, pinned byte for byte (the SUT stopped before
    the manifest is written, so no line lands after it): a log edited after the run is named by verify."""
    import shutil

    measured("langgraph-store-sqlite")
    out = measured.folders["langgraph-store-sqlite"]
    manifest = json.loads((out / "manifest.json").read_text())
    logs = sorted(p.relative_to(out).as_posix() for p in (out / "logs").rglob("*") if p.is_file())
    assert logs and logs == sorted(e["file"] for e in manifest["evidence"] if e["file"].startswith("logs/"))
    copy = Path(shutil.copytree(out, out.parent / "edited"))
    with open(copy / logs[0], "a") as log:
        log.write("a line written after the run\n")
    assert {(f.ground, f.file) for f in verify_frontdoor(copy).findings} == {("digest-mismatch", logs[0])}
