"""A context of several fields and a keyed map on PostgreSQL (ADK's tables there: event_data and
state as jsonb, a timestamp column): every edit lands in the victim's whole scope, a map's entry is
edited inside the jsonb value, and C3 passes. On a hand-made database of the lab's own server."""

import json

import psycopg
import pytest
from edit_stores import marker, seed, specs
from test_map_entries import USERS, entries

from edits.base import editor_for
from edits.layout import parse_layout
from lab.judge.c3 import check_edit

EVENTS = parse_layout({"backend": "postgres", "volume": "pgdata", "service": "db", "table": "events",
                       "context": ["session_id", "app_name", "user_id"],
                       "identity": ["id", {"field": "event_data", "path": ["id"]}], "order": "timestamp",
                       "payload": {"field": "event_data", "format": "json", "path": ["text"]},
                       "metadata": {"timestamp": [{"field": "event_data", "path": ["ts"]}, "timestamp"]}})
STATE = parse_layout({"backend": "postgres", "volume": "pgdata", "service": "db", "table": "user_states",
                      "context": ["user_id", "app_name"], "identity": ["@key"], "order": "@position",
                      "payload": {"field": "state", "format": "json"}, "map": {"text": []}})
SCOPE = {"A": ("app-a", "alice"), "B": ("app-b", "bob")}


def fill(url):
    with psycopg.connect(url) as conn:
        conn.execute("DROP TABLE IF EXISTS events")
        conn.execute("DROP TABLE IF EXISTS user_states")
        conn.execute("CREATE TABLE events (id text, app_name text, user_id text, session_id text, "
                     "timestamp timestamp without time zone, event_data jsonb, "
                     "PRIMARY KEY (id, app_name, user_id, session_id))")
        for r in seed():
            at = r["ts"].replace("T", " ").rstrip("Z")
            conn.execute("INSERT INTO events VALUES (%s, %s, %s, %s, %s, %s)",
                         (r["uid"], *SCOPE[r["ctx"]], r["ctx"], at,
                          json.dumps({"id": r["uid"], "ts": r["epoch"], "text": r["text"]})))
        conn.execute("CREATE TABLE user_states (app_name text, user_id text, state jsonb NOT NULL, "
                     "PRIMARY KEY (app_name, user_id))")
        for ctx, app in USERS.items():
            conn.execute("INSERT INTO user_states VALUES (%s, %s, %s)", (app, ctx, json.dumps(entries(ctx))))


def measure(layout, url, spec):
    editor = editor_for(layout, {}, {"db": url})
    before = [r.to_json() for r in editor.records()]
    editor.apply(spec)
    after = [r.to_json() for r in editor_for(layout, {}, {"db": url}).records()]
    return check_edit(spec.to_json(), layout.to_json(), before, after, {"changed": ["pgdata/base"]})


@pytest.mark.parametrize("case", ["T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8"])
def test_every_event_edit_keeps_the_whole_scope(postgres, case):
    fill(postgres)
    result = measure(EVENTS, postgres, specs("timestamp")[case])
    assert result.ok, result.reasons
    with psycopg.connect(postgres) as conn:
        scopes = {(app, user, session) for app, user, session in
                  conn.execute("SELECT app_name, user_id, session_id FROM events").fetchall()}
    assert scopes == {(*SCOPE["A"], "A"), (*SCOPE["B"], "B")}


def test_a_relabelled_timestamp_column_moves_as_a_date_time(postgres):
    fill(postgres)
    editor = editor_for(EVENTS, {}, {"db": postgres})
    target = next(r for r in editor.records() if marker("A", 3) in r.payload)
    result = measure(EVENTS, postgres, specs("timestamp")["T8"])
    assert result.ok, result.reasons
    moved = next(r for r in editor_for(EVENTS, {}, {"db": postgres}).records() if marker("A", 3) in r.payload)
    assert (moved.order - target.order).total_seconds() == 86400 and moved.metadata["timestamp"] == target.metadata[
        "timestamp"] + 86400


@pytest.mark.parametrize("case", ["T1", "T3", "T5", "T6", "T7"])
def test_a_jsonb_map_entry_is_edited_in_place(postgres, case):
    fill(postgres)
    result = measure(STATE, postgres, specs()[case])
    assert result.ok, result.reasons
    with psycopg.connect(postgres) as conn:
        state = conn.execute("SELECT state FROM user_states WHERE user_id = 'B'").fetchone()[0]
    assert (state["note-b3"] == entries("A")["note-a3"]) == (case == "T6")
