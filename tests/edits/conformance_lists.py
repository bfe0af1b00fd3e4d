"""The conformance suite's stores of list-element records (``records:``): the lists the SQLite,
PostgreSQL, Redis (RedisJSON) and json-files editors edit, as their own tests build them, each with
a second reader that decodes the current list itself -- the newest version row, the document the
pointer key names, the context's file -- with no editor's reader (MessagePack through the
decoder of edits.msgpack, which no editor's record reading goes through alone)."""

from __future__ import annotations

import json

from conformance_stores import Store, grouped
from edit_stores import selected
from test_jsonfiles_editor import CTX, STORE as FILES_STORE, build as files_build, name as file_name
from test_list_editor import build as sqlite_list_build
from test_list_editor_postgres import LAYOUT as PG_LIST_LAYOUT, fill as pg_list_fill
from test_redis_json import LAYOUT as REDIS_JSON_LAYOUT, fill as redis_json_fill

from edits.layout import parse_layout
from edits.msgpack import unpack


def _kwargs(message):
    """A message's fields: the third item of its constructor (an Ext's value, or the list JSON keeps)."""
    return (message.value if hasattr(message, "value") else message)[2]


def sqlite_list_read(vol):
    newest = {}
    for thread, v, fmt, blob in selected(vol / "cp.db", "SELECT thread, v, type, blob FROM checkpoints ORDER BY v"):
        newest[thread] = json.loads(blob) if fmt == "json" else unpack(blob)
    return grouped((ctx, k["content"], k["type"]) for ctx, state in sorted(newest.items())
                   for k in map(_kwargs, state["channel_values"]["messages"]))


def postgres_list_read(url):
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT c.thread, b.blob FROM cps c JOIN blobs b ON b.thread = c.thread AND b.ns = c.ns "
                            "AND b.channel = 'messages' AND b.version = c.cp->'versions'->>'messages' "
                            "WHERE c.v = (SELECT max(v) FROM cps WHERE thread = c.thread) ORDER BY c.thread").fetchall()
    return grouped((ctx, k["content"], k["type"]) for ctx, blob in rows for k in map(_kwargs, unpack(bytes(blob))))


def redis_json_read(url):
    import redis

    client = redis.Redis.from_url(url, decode_responses=True)
    docs = {ctx: client.json().get(client.get(f"cp_latest:{ctx}:ns")) for ctx in "AB"}
    return grouped((ctx, m["kwargs"]["content"], m["kwargs"]["type"]) for ctx, doc in docs.items()
                   for m in doc["checkpoint"]["channel_values"]["messages"])


def files_read(vol):
    states = {ctx: json.loads((vol / file_name(c)).read_text()) for c, ctx in CTX.items()}
    return grouped((ctx, m["content"], m["type"]) for ctx, s in states.items() for m in s["llm_context"]["messages"])


LIST_STORES = [
    *(Store(f"sqlite-list-{fmt}", "sqlite", lambda v, f=fmt: sqlite_list_build(v, f), sqlite_list_read,
            framing=("BEGIN IMMEDIATE", "COMMIT"), kind="list_editor") for fmt in ("msgpack", "json")),
    Store("postgres-list", "postgres", lambda url: (PG_LIST_LAYOUT, pg_list_fill(url)), postgres_list_read,
          service="postgres", framing=("BEGIN", "COMMIT"), kind="list_editor"),
    Store("redis-json-list", "redis", lambda url: (REDIS_JSON_LAYOUT, redis_json_fill(url)[1]), redis_json_read,
          service="redis_stack_url", framing=("MULTI", "EXEC"), kind="list_editor"),
    Store("json-files", "json-files", lambda v: (files_build(v), parse_layout(FILES_STORE))[1], files_read,
          contexts=CTX, kind="list_editor"),
]
