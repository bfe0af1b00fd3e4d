"""The conformance suite's stores of keyed-map entries (``map:``): a state map per (user, app) row, as
Google ADK keeps it, on SQLite (JSON text, the order written) and PostgreSQL (jsonb, its own key
order), built as their own tests build them; the second reader decodes each row's JSON itself.
A map with no metadata in its values has no ``set_meta``, and a jsonb map, whose keys jsonb orders
itself, no ``swap``: the suite checks that each is refused, the store untouched."""

from __future__ import annotations

import json

from conformance_stores import Store, grouped
from edit_stores import selected
from test_map_entries import store as sqlite_map_store
from test_map_entries_postgres import fill as pg_map_fill

OPS = ("replace", "rollback", "delete", "swap", "forge", "transplant", "transplant-within")


def sqlite_map_read(vol):
    rows = selected(vol / "s.db", "SELECT user_id, state FROM user_states ORDER BY app_name")
    return grouped((ctx, text, None) for ctx, state in rows for text in json.loads(state).values())


def postgres_map_read(url):
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT user_id, state::text FROM conformance_states ORDER BY app_name").fetchall()
    return grouped((ctx, text, None) for ctx, state in rows for text in json.loads(state).values())


MAP_STORES = [
    Store("sqlite-map", "sqlite", sqlite_map_store, sqlite_map_read, framing=("BEGIN IMMEDIATE", "COMMIT"),
          kind="map_editor", ops=OPS),
    Store("postgres-map", "postgres", lambda url: pg_map_fill(url, "conformance_states", "jsonb"), postgres_map_read,
          service="postgres", framing=("BEGIN", "COMMIT"), kind="map_editor", ops=tuple(o for o in OPS if o != "swap")),
]
