"""The LangGraph long-term store rows (images/langgraph-store): InMemoryStore and SqliteStore.

``memlab lifecycle run --sut ROW --runtime local --position P --fail-on p2`` once per row and
position (a run each, shared by the tests of the module), then: the gate's figures on the bundled
pack (a keyed store that supersedes on write, deletes by key and keeps tenants and users apart
passes every check it can express; expiry is NOT TESTED, no ttl declared), InMemoryStore losing
everything at a restart, and each run equal to its published set
(``results/published/<row>/lifecycle/``). SqliteStore's at-rest row is re-measured and compared
with its published set as every integrity row is; a pack of scope ids holding ``.`` and ``%``
shows the driver keeps such namespaces apart (BaseStore refuses ``.`` in a namespace label).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from integrity_rows import ROOT, check_row
from test_lifecycle_rows import assert_matches_published

pytestmark = pytest.mark.rows

MEMORY, SQLITE = "langgraph-store", "langgraph-store-sqlite"
CHECKS = ("scope_leakage", "deletion_residue", "stale_reuse", "expiry_leak", "missing_current_fact")
DOTTED = """\
id: dotted-scopes
title: Scope ids holding '.' and '%' stay apart
subject: {tenant_id: acme.eu, user_id: alice}
steps:
  - write: {key: desk, value: "hot desk D-4411"}
  - write: {key: desk, value: "corner desk K-9027"}
    as: {tenant_id: acme%2Eeu}
  - write: {key: desk, value: "window desk W-3158"}
    as: {tenant_id: acme, user_id: eu.alice}
  - query:
      prompt: Which desk is mine?
      expect: {must_use: [desk]}
  - query:
      prompt: Which desk is mine?
      expect: {must_use: [desk]}
    as: {tenant_id: acme%2Eeu}
  - query:
      prompt: Which desk is mine?
      expect: {must_use: [desk]}
    as: {tenant_id: acme, user_id: eu.alice}
"""


@pytest.fixture(scope="module")
def lifecycle(tmp_path_factory):
    """``run(row, position, scenarios=None)``: (exit code, row record), each run made once."""
    done: dict[tuple, tuple[int, dict]] = {}

    def run(row: str, position: str, scenarios: Path | None = None) -> tuple[int, dict]:
        key = (row, position, scenarios)
        if key not in done:
            out = tmp_path_factory.mktemp(f"{row}-{position}") / "set"
            cmd = [sys.executable, "-m", "lab.cli", "lifecycle", "run", "--sut", row, "--runtime", "local",
                   "--position", position, "--fail-on", "p2", "--out", str(out),
                   *(["--scenarios", str(scenarios)] if scenarios else [])]
            proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=900)
            assert proc.returncode in (0, 1), f"exit {proc.returncode}:\n{proc.stderr[-3000:]}"
            done[key] = proc.returncode, json.loads((out / "rows" / f"{row}@{position}.json").read_text())
        return done[key]

    return run


def figures(record: dict) -> dict:
    """Each check as (status, violations), the current facts as (hits, opportunities), delta, gate."""
    acc = record["current_fact_accuracy"]
    return {"checks": {n: (record["checks"][n]["status"], record["checks"][n]["violations"]) for n in CHECKS},
            "facts": (acc["hits"], acc["opportunities"]), "delta": record["memory_utility_delta"],
            "gate": record["gate"]["status"], "errors": len(record["errors"])}


@pytest.mark.parametrize(("row", "position"), [(MEMORY, "live"), (SQLITE, "live"), (SQLITE, "restarted")])
def test_a_keyed_store_passes_every_check_it_can_express(lifecycle, row, position):
    code, record = lifecycle(row, position)
    got = figures(record)
    assert code == 0, got
    assert got["checks"] == {"scope_leakage": ("PASS", 0), "deletion_residue": ("PASS", 0), "stale_reuse": ("PASS", 0),
                             "expiry_leak": ("NOT TESTED", 0), "missing_current_fact": ("PASS", 0)}
    hits, chances = got["facts"]
    assert hits == chances > 0 and got["delta"] == 1.0 and got["gate"] == "PASS" and got["errors"] == 0, got
    assert all(record["checks"][n]["opportunities"] > 0 for n in CHECKS if n != "expiry_leak"), record["checks"]


def test_in_memory_store_loses_everything_at_a_restart(lifecycle):
    code, record = lifecycle(MEMORY, "restarted")
    got = figures(record)
    hits, chances = got["facts"]
    assert code == 1 and got["gate"] == "FAIL", got
    assert hits == 0 and chances > 0 and got["delta"] == 0.0, got
    assert got["checks"]["missing_current_fact"] == ("FAIL", chances), got
    assert record["gate"]["blocking"] == ["missing_current_fact"], record["gate"]
    assert got["errors"] == 0, record["errors"]


@pytest.mark.parametrize(("row", "position"), [(MEMORY, "live"), (MEMORY, "restarted"),
                                               (SQLITE, "live"), (SQLITE, "restarted")])
def test_lifecycle_run_matches_its_published_set(lifecycle, row, position):
    assert_matches_published(row, position, lifecycle(row, position)[1])


def test_scope_ids_with_periods_and_percent_signs_stay_apart(lifecycle, tmp_path):
    (tmp_path / "dotted-scopes.yaml").write_text(DOTTED)
    code, record = lifecycle(MEMORY, "live", tmp_path)
    got = figures(record)
    assert code == 0 and got["errors"] == 0, record["errors"]
    # three queries, each with two other scopes' values in reach: one opportunity per query
    assert got["checks"]["scope_leakage"] == ("PASS", 0) and record["checks"]["scope_leakage"]["opportunities"] == 3
    assert got["facts"] == (3, 3), got


def test_sqlite_store_at_rest_matches_its_published_set(tmp_path):
    check_row(SQLITE, tmp_path)
