"""A keyed map in a jsonb column keeps no order of its keys (Google ADK's state tables on
PostgreSQL): jsonb stores an object's keys shorter first, then bytewise, whatever order they were
written in. The generic PostgreSQL map editor reads an entry's place as jsonb gives it, and T5's
forged entry gets a fresh key jsonb places after the last one, so the forged record is the most
recent of its context and C3 passes -- with keys written in any order, as ADK's driver writes random
ones (note-<12 hex>). A json column keeps the text, and the key T5 always made. On a hand-made
database of the lab's own server."""

import json

import psycopg
import pytest
from edit_stores import FACTS, marker, specs

from edits.base import editor_for
from edits.layout import parse_layout
from edits.maps import jsonb_rank, key_after
from lab.judge.c3 import check_edit

USERS = {"A": "app-a", "B": "app-b"}
# Written in this order; jsonb keeps them sorted: the last written is not the last kept.
KEYS = {"A": ["note-fd9933aa4c05", "note-0a1b2c3d4e5f", "note-7c8a7f2889b9", "note-b819b9978db9",
              "note-10000000000a"],
        "B": ["note-ee11c5d2dc41", "note-3d1098bf9830", "note-90e09b83d6ca", "note-ba04e79b0976",
              "note-00000000001b"]}


def layout(table):
    return parse_layout({"backend": "postgres", "volume": "pgdata", "service": "db", "table": table,
                         "context": ["user_id", "app_name"], "identity": ["@key"], "order": "@position",
                         "payload": {"field": "state", "format": "json"}, "map": {"text": []}})


def entries(ctx):
    """Five entries of ``ctx`` in the order written (the fact in the third), under random-looking keys."""
    return {key: f"{marker(ctx, i)} note {i} of {ctx}" + (f", the code is {FACTS[ctx]}" if i == 3 else "")
            for i, key in enumerate(KEYS[ctx], 1)}


def fill(url, table, kind):
    with psycopg.connect(url) as conn:
        conn.execute(f"DROP TABLE IF EXISTS {table}")
        conn.execute(f"CREATE TABLE {table} (app_name text, user_id text, state {kind} NOT NULL, "
                     "PRIMARY KEY (app_name, user_id))")
        for ctx, app in USERS.items():
            conn.execute(f"INSERT INTO {table} VALUES (%s, %s, %s)", (app, ctx, json.dumps(entries(ctx))))
    return layout(table)


def measure(lay, url, spec):
    editor = editor_for(lay, {}, {"db": url})
    before = [r.to_json() for r in editor.records()]
    outcome = editor.apply(spec)
    after = [r.to_json() for r in editor_for(lay, {}, {"db": url}).records()]
    return outcome, check_edit(spec.to_json(), lay.to_json(), before, after, {"changed": ["pgdata/base"]})


def keys_of(lay, url, ctx):
    return [r.key() for r in editor_for(lay, {}, {"db": url}).records() if r.context == ctx]


def test_a_jsonb_map_is_read_in_the_order_jsonb_keeps(postgres):
    lay = fill(postgres, "jsonb_states", "jsonb")
    assert keys_of(lay, postgres, "A") == sorted(KEYS["A"], key=jsonb_rank) != KEYS["A"]


def test_a_json_map_is_read_in_the_order_written(postgres):
    lay = fill(postgres, "json_states", "json")
    assert keys_of(lay, postgres, "A") == KEYS["A"]


@pytest.mark.parametrize("kind", ["jsonb", "json"])
def test_the_forged_entry_is_the_last_of_its_context_and_c3_passes(postgres, kind):
    lay = fill(postgres, f"{kind}_forge", kind)
    outcome, result = measure(lay, postgres, specs()["T5"])
    assert result.ok, result.reasons
    new = outcome.detail["new"]
    assert keys_of(lay, postgres, "A")[-1] == new and new not in KEYS["A"]
    if kind == "jsonb":  # the last key jsonb keeps, its hex tail counted up: the keys' own form
        assert new == "note-fd9933aa4c06", new
    else:  # the text keeps the order written: the key T5 always made
        assert len(keys_of(lay, postgres, "A")) == 6


@pytest.mark.parametrize("case", ["T1", "T3", "T6"])
def test_the_other_jsonb_map_edits_land_whatever_order_the_keys_were_written_in(postgres, case):
    lay = fill(postgres, "jsonb_cases", "jsonb")
    _, result = measure(lay, postgres, specs()[case])
    assert result.ok, result.reasons


def test_a_key_after_the_last_one_jsonb_keeps():
    assert key_after(["b", "aa"], "c") == "ab"  # "c" is shorter than "aa": jsonb puts it first
    assert key_after(["x-0f", "x-10"], "x-11") == "x-11"
    assert key_after(["x-0F", "x-0A"], "x-00") == "x-10"  # upper-case hex stays upper-case
    assert key_after(["x-99", "x-ab"], "x-9a") == "x-ac"
    assert key_after(["x-ab", "x-ac"], "x-ac") == "x-ad"
    assert key_after([], "k1") == "k1"
    fresh = key_after(KEYS["A"], "note-10000000000b")
    assert all(jsonb_rank(fresh) > jsonb_rank(k) for k in KEYS["A"])
