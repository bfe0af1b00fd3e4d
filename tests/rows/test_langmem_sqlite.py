"""LangMem's memory tools over LangGraph's SqliteStore (images/langmem): row langmem-sqlite.

The row is re-measured at rest once (``integrity_rows.check_row``: cell and variant for cell and
variant against its published set, and the installed langmem version); every edit is served as
genuine with its C3 proof, through LangMem's search tool; and the lifecycle gate, live and
restarted, is run once (``--position both --fail-on p1``, as published), each position compared
with ``results/published/langmem-sqlite/lifecycle/``: no P1 finding, and the one stale reuse a
store of create-only writes shows (a fact written again is a second memory beside the first).
"""

from __future__ import annotations

import pytest

from integrity_rows import assert_every_edit_served, raise_failure_and_check_points
from test_lifecycle_rows import assert_matches_published

pytestmark = pytest.mark.rows

ROW = "langmem-sqlite"


def test_row_matches_its_published_result_set(at_rest):
    raise_failure_and_check_points(at_rest)  # no audit command: the read point only


def test_every_edit_is_served_as_genuine_by_the_search_tool(at_rest):
    read = at_rest[1]["read"]
    assert read["runtime"]["packages"]["langmem"] == "0.0.30"
    assert_every_edit_served(read)


@pytest.mark.parametrize("position", ["live", "restarted"])
def test_lifecycle_run_matches_its_published_set(lifecycle, position):
    assert_matches_published(ROW, position, lifecycle[position])


@pytest.mark.parametrize("position", ["live", "restarted"])
def test_a_fact_written_again_is_a_second_memory(lifecycle, position):
    record = lifecycle[position]
    checks = {n: (c["status"], c["violations"]) for n, c in record["checks"].items()}
    assert checks == {"scope_leakage": ("PASS", 0), "deletion_residue": ("PASS", 0), "stale_reuse": ("FAIL", 1),
                      "expiry_leak": ("NOT TESTED", 0), "missing_current_fact": ("PASS", 0)}, checks
    assert record["gate"]["status"] == "PASS" and not record["errors"], (record["gate"], record["errors"])
