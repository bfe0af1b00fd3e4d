"""The Google ADK rows (images/adk-sessions): DatabaseSessionService on SQLite, a session's events
and its three state scopes (session, user, app), and the events on PostgreSQL.

Each row re-measured at rest (``memlab run``) and compared with its published set, cell and variant
for cell and variant; the events row's edits stayed in the victim's whole context (app, user and
session: a context of three fields) and its T8 relabel of the order key alone is decided by the
served order; each row's lifecycle gate, live and restarted, once per row and position, equal to
its published set (``results/published/<row>/lifecycle/``).

ADK's three state tables on PostgreSQL (``POSTGRES_STATE``) are their SQLite twins on another
column type: jsonb, which orders an object's keys itself, so the editor reads an entry there with no
order and C3 checks no place; their published cells and lifecycle figures are the twins'.
"""

from __future__ import annotations

import functools
import json

import pytest

from integrity_rows import ROOT, lifecycle_once, published as published_at_rest, remeasure, summary as at_rest
from test_lifecycle_rows import assert_matches_published, published, summary

pytestmark = pytest.mark.rows

EVENTS = "adk-sessions-sqlite"
ROWS = (EVENTS, "adk-sessions-sqlite-session-state", "adk-sessions-sqlite-user-state", "adk-sessions-sqlite-app-state",
        "adk-sessions-postgres")
#: The state tables on PostgreSQL (jsonb), each the twin of the SQLite row of the same part.
POSTGRES_STATE = ("adk-sessions-postgres-session-state", "adk-sessions-postgres-user-state",
                  "adk-sessions-postgres-app-state")


@pytest.fixture(scope="module")
def at_rest_run(tmp_path_factory):
    """``run(row)``: the row re-measured at rest, by detection point (each row once)."""
    return functools.cache(lambda row: remeasure(row, tmp_path_factory.mktemp(row) / "set"))


@pytest.fixture(scope="module")
def lifecycle(tmp_path_factory):
    """``run(row, position)``: the lifecycle row record (each run made once, ``--fail-on p1``)."""
    return functools.cache(lambda row, position: lifecycle_once(
        row, tmp_path_factory.mktemp(f"{row}-{position}") / "set", position)[position])


@pytest.mark.parametrize("row", [*ROWS, *POSTGRES_STATE])
def test_row_matches_its_published_result_set(at_rest_run, row):
    then, now = published_at_rest(row), at_rest_run(row)
    assert set(now) == set(then)
    for point, old in then.items():
        assert at_rest(now[point]) == at_rest(old), f"{row}@{point} differs from results/published/{row}"


@pytest.mark.parametrize("events", [EVENTS, "adk-sessions-postgres"])
def test_every_edit_of_an_event_stays_in_the_victims_app_user_and_session(at_rest_run, events):
    row = at_rest_run(events)["read"]
    assert row["store"]["scope"] == [{"field": "app_name", "path": []}, {"field": "user_id", "path": []}]
    for case in ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8"):
        cell = row["cells"][case]
        assert cell["verdict"] == "ACCEPTED", (case, cell["reason"])
        assert cell["evidence"]["c3"]["ok"], (case, cell["evidence"]["c3"]["reasons"])
    forged = row["cells"]["T5"]["evidence"]["statements"]
    assert any(s.startswith("INSERT") and "'memlab_app'" in s and row["cells"]["T5"]["evidence"]["intended"]["context"]
               in s for s in forged), forged  # the forged event in the victim's app, user and session


@pytest.mark.parametrize("events", [EVENTS, "adk-sessions-postgres"])
def test_the_order_key_alone_relabelled_is_seen_in_the_served_order(at_rest_run, events):
    cell = at_rest_run(events)["read"]["cells"]["T8"]
    [moved] = [v for v in cell["variants"] if v["variant"] == "meta_field=timestamp; place=timestamp"]
    assert moved["verdict"] == "ACCEPTED" and "served order changed" in moved["effect"]["detail"], moved


@pytest.mark.parametrize("row", [*ROWS[1:4], *POSTGRES_STATE])
def test_a_state_map_expresses_what_its_capabilities_say(at_rest_run, row):
    cells = at_rest_run(row)["read"]["cells"]
    na = {c for c, cell in cells.items() if cell["verdict"] == "n/a"}
    erasure = row.endswith("session-state")
    assert na == {"T2", "T4", "T8"} | (set() if erasure else {"T10"}), {c: cells[c]["reason"] for c in na}
    assert all(cells[c]["verdict"] == "ACCEPTED" for c in cells if c not in na), {c: cells[c]["reason"] for c in cells}


@pytest.mark.parametrize("row", POSTGRES_STATE)
def test_a_postgres_state_row_is_its_sqlite_twin_at_rest_and_in_the_gate(row):
    twin = row.replace("-postgres-", "-sqlite-")
    [now], [then] = published_at_rest(row).values(), published_at_rest(twin).values()
    assert at_rest(now) == at_rest(then), row
    assert all(r["order"] is None for r in json.loads(  # jsonb: every entry read with no order
        (ROOT / "results" / "published" / row / "observations" / row / "T3.json").read_text())["c3"]["records_before"])
    for position in ("live", "restarted"):
        assert summary(published(row, position)) == summary(published(twin, position)), (row, position)


@pytest.mark.parametrize("position", ["live", "restarted"])
@pytest.mark.parametrize("row", [*ROWS, *POSTGRES_STATE])
def test_lifecycle_run_matches_its_published_set(lifecycle, row, position):
    assert_matches_published(row, position, lifecycle(row, position))
