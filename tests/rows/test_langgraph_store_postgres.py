"""LangGraph's PostgresStore (images/langgraph-store, ``store: postgres``) on the lab's PostgreSQL
service: row langgraph-store-postgres.

The row is re-measured at rest once (``integrity_rows.check_row``: cell and variant for cell and
variant against its published set, and the installed langgraph-checkpoint-postgres version); every
edit is served as genuine with its C3 proof, T4's contents swap exchanges the served keys, T8 moves
the time served; and the lifecycle gate, live and restarted, is run once (``--position both
--fail-on p1``, as published), each position compared with
``results/published/langgraph-store-postgres/lifecycle/`` and passing every check it can express.
"""

from __future__ import annotations

import pytest

from test_lifecycle_rows import installed, published, summary

pytestmark = pytest.mark.rows

ROW = "langgraph-store-postgres"
CASES = ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8", "T9", "T10")


def test_row_matches_its_published_result_set(at_rest):
    failure, rows = at_rest
    if failure is not None:
        raise failure
    assert set(rows) == {"read"}  # no audit command: the read point only


def test_every_edit_is_served_as_genuine(at_rest):
    read = at_rest[1]["read"]
    assert read["controls"]["C1"]["ok"] and read["controls"]["C2"]["ok"]
    assert read["runtime"]["packages"]["langgraph-checkpoint-postgres"] == "3.2.0"
    for case in CASES:
        cell = read["cells"][case]
        assert cell["verdict"] == "ACCEPTED", (case, cell["reason"])
        if case not in ("T9", "T10"):
            assert cell["evidence"]["c3"]["ok"], (case, cell["evidence"]["c3"]["reasons"])


def test_a_contents_swap_exchanges_the_served_keys_and_t8_the_time_served(at_rest):
    cells = at_rest[1]["read"]["cells"]
    swap = {v["variant"]: v for v in cells["T4"]["variants"]}["swap=contents"]
    assert swap["verdict"] == "ACCEPTED" and "served key" in swap["effect"]["detail"], swap
    [t8] = cells["T8"]["variants"]
    assert t8["verdict"] == "ACCEPTED" and "updated_at" in t8["effect"]["detail"], t8


@pytest.mark.parametrize("position", ["live", "restarted"])
def test_lifecycle_run_matches_its_published_set(lifecycle, position):
    then, now = published(ROW, position), lifecycle[position]
    assert installed(now) == installed(then) == str(then["sut"]["version"]), (installed(now), installed(then))
    assert summary(now) == summary(then), f"{ROW}@{position} differs from results/published/{ROW}/lifecycle"


@pytest.mark.parametrize("position", ["live", "restarted"])
def test_a_keyed_store_passes_every_check_it_can_express(lifecycle, position):
    record = lifecycle[position]
    checks = {n: c["status"] for n, c in record["checks"].items()}
    assert checks == {"scope_leakage": "PASS", "deletion_residue": "PASS", "stale_reuse": "PASS",
                      "expiry_leak": "NOT TESTED", "missing_current_fact": "PASS"}, checks
    acc = record["current_fact_accuracy"]
    assert acc["hits"] == acc["opportunities"] > 0 and not record["errors"], (acc, record["errors"])
    # PostgreSQL's DELETE leaves the tuple in the heap and the WAL: found by the raw scan after a delete
    assert record["erasure_at_rest"]["present"] > 0, record["erasure_at_rest"]
