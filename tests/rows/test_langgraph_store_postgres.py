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

from integrity_rows import assert_every_edit_served, raise_failure_and_check_points
from test_lifecycle_rows import assert_matches_published

pytestmark = pytest.mark.rows

ROW = "langgraph-store-postgres"


def test_row_matches_its_published_result_set(at_rest):
    raise_failure_and_check_points(at_rest)  # no audit command: the read point only


def test_every_edit_is_served_as_genuine(at_rest):
    read = at_rest[1]["read"]
    assert read["runtime"]["packages"]["langgraph-checkpoint-postgres"] == "3.2.0"
    assert_every_edit_served(read)


def test_a_contents_swap_exchanges_the_served_keys_and_t8_the_time_served(at_rest):
    cells = at_rest[1]["read"]["cells"]
    swap = {v["variant"]: v for v in cells["T4"]["variants"]}["swap=contents"]
    assert swap["verdict"] == "ACCEPTED" and "served key" in swap["effect"]["detail"], swap
    [t8] = cells["T8"]["variants"]
    assert t8["verdict"] == "ACCEPTED" and "updated_at" in t8["effect"]["detail"], t8


@pytest.mark.parametrize("position", ["live", "restarted"])
def test_lifecycle_run_matches_its_published_set(lifecycle, position):
    assert_matches_published(ROW, position, lifecycle[position])


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
