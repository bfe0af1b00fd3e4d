"""The agno rows (images/agno): Agno's SqliteDb, its user memories through MemoryManager
(agno-sqlite) and an agent session's runs in agno_runs (agno-sqlite-sessions).

Each row is re-measured at rest once (``integrity_rows.check_row``: cell and variant for cell and
variant against its published set, and the installed agno version); the session row's edits stayed
in the victim's session and user (its columns and the copies inside run_data); the memory row's T8
moves the time a read serves; and each row's lifecycle gate, live and restarted, is run once
(``--position both``, as published) and each position compared with
``results/published/<row>/lifecycle/``. Both rows share one SUT environment.
"""

from __future__ import annotations

import pytest

from integrity_rows import assert_every_edit_served, raise_failure_and_check_points
from test_lifecycle_rows import assert_matches_published

pytestmark = pytest.mark.rows

MEMORIES, SESSIONS = "agno-sqlite", "agno-sqlite-sessions"
ROWS = (MEMORIES, SESSIONS)


@pytest.mark.parametrize("row", ROWS)
def test_row_matches_its_published_result_set(at_rest_of, row):
    raise_failure_and_check_points(at_rest_of(row))  # no audit command: the read point only


@pytest.mark.parametrize("row", ROWS)
def test_every_edit_is_served_as_genuine(at_rest_of, row):
    assert_every_edit_served(at_rest_of(row)[1]["read"])


def test_every_edit_of_a_run_stays_in_the_victims_session_and_user(at_rest_of):
    read = at_rest_of(SESSIONS)[1]["read"]
    assert read["store"]["scope"] == [{"field": "user_id", "path": []}, {"field": "run_data", "path": ["session_id"]},
                                      {"field": "run_data", "path": ["user_id"]}]
    forged = read["cells"]["T5"]["evidence"]
    victim = forged["intended"]["context"]
    [insert] = [s for s in forged["statements"] if s.startswith("INSERT")]
    assert insert.count(f"'{victim}'") == 2 and f'"session_id": "{victim}", "user_id": "{victim}"' in insert, insert
    copied = read["cells"]["T6"]["evidence"]
    victim = copied["intended"]["context"]
    [update] = [s for s in copied["statements"] if s.startswith("UPDATE")]
    assert f'"session_id": "{victim}", "user_id": "{victim}"' in update, update  # the donor's message, the victim's ids


def test_the_memory_time_relabelled_is_the_time_served(at_rest_of):
    cell = at_rest_of(MEMORIES)[1]["read"]["cells"]["T8"]
    assert [v["variant"] for v in cell["variants"]] == ["default"]
    assert cell["verdict"] == "ACCEPTED" and cell["variants"][0]["effect"]["detail"].startswith("served timestamp:")


@pytest.mark.parametrize("position", ["live", "restarted"])
@pytest.mark.parametrize("row", ROWS)
def test_lifecycle_run_matches_its_published_set(lifecycle_of, row, position):
    assert_matches_published(row, position, lifecycle_of(row)[position])
