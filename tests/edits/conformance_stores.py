"""The hand-made stores the conformance suite (test_conformance.py) runs every operation on, each with
a second reader: the store read back with its own library or file format directly (sqlite3, json,
a regular expression, psycopg, redis-py, qdrant_client, lancedb), never through an editor, as
``{context: [(payload, metadata value), ...]}`` in the store's order -- the metadata value is the
raw one of the field a ``set_meta`` spec sets (the layout's first metadata field).

A :class:`Store` builds its store in ``where`` (a volume directory, or a service's URL when
``service`` names the fixture that starts it) and returns the layout."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any, Callable

from edit_stores import MD_PATTERN, OPERATIONS, by_op, jsonl_store, markdown_store, selected, sqlite_store
from test_jsondoc_editor import json_store
from test_lancedb_editor import LAYOUT as LANCEDB_LAYOUT
from test_lancedb_editor import build as lancedb_build
from test_qdrant_editor import LAYOUT as QDRANT_LAYOUT
from test_qdrant_editor import build as qdrant_build
from test_service_editors import PG_LAYOUT, REDIS_LAYOUT, fill_postgres, fill_redis
from test_sqlite_lines_editor import twin

from edits.base import editor_for

Raw = dict[str, list[tuple[str, Any]]]


@dataclass(frozen=True)
class Store:
    """One store shape of ``backend``: ``build(where)`` -> layout, ``read(where)`` -> :data:`Raw`; ``service``: the
    conftest fixture whose URL is ``where`` (None: a volume directory); ``framing``: the statements
    that open and close every edit's transaction, where the backend has one."""

    name: str
    backend: str
    build: Callable[[Any], Any]
    read: Callable[[Any], Raw]
    service: str | None = None
    framing: tuple[str, str] | None = None  # the first and last statement of every edit (its transaction)
    contexts: dict[str, str] | None = None  # the store's names of the suite's contexts A and B
    kind: str = "editor"  # which of the backend's editors it is for: editor, list_editor (records:), map_editor
    ops: tuple[str, ...] = tuple(OPERATIONS)  # the operations the store has; any other is refused (EditError)

    def open(self, where) -> tuple[Any, dict | None]:
        """Build the store: (layout, the versions the seeding writes reported, for list-element records)."""
        built = self.build(where)
        return built if isinstance(built, tuple) else (built, None)

    def editor(self, layout, where, versions=None):
        """The editor the registry gives for ``layout`` on ``where``."""
        if self.service is None:
            return editor_for(layout, {"store": where}, versions=versions)
        return editor_for(layout, {}, {layout.service: where}, versions=versions)

    def spec(self, layout, op: str):
        """The spec of operation ``op`` on this store (its first metadata field, its context names)."""
        spec = by_op(next(iter(layout.metadata), None))[op]
        return replace(spec, context=self.contexts[spec.context]) if self.contexts else spec


def grouped(rows) -> Raw:
    """(context, payload, meta) rows, already in the store's order, by context."""
    out: Raw = {}
    for ctx, payload, meta in rows:
        out.setdefault(ctx, []).append((payload.decode() if isinstance(payload, bytes) else payload, meta))
    return out


def sqlite_read(query: str, payload=lambda v: v):
    return lambda vol: grouped((c, payload(p), m) for c, p, m in selected(vol / "memory.db", query))


def jsonl_read(ctx: str, payload, meta: str, order: str | None):
    def read(vol):
        rows = [json.loads(line) for line in (vol / "memory.jsonl").read_text().splitlines() if line.strip()]
        rows = [r for r in rows if ctx in r]
        if order:
            rows.sort(key=lambda r: r[order])
        return grouped((r[ctx], payload(r), r[meta]) for r in rows)
    return read


def lines_read(text_of: Callable[[Any, str], str]):
    """Records of a Markdown text per context (``text_of(where, ctx)``), by :data:`MD_PATTERN`."""
    def read(where):
        pattern = re.compile(MD_PATTERN)
        return {ctx: [(m["text"], m["role"]) for m in map(pattern.match, text_of(where, ctx).splitlines()) if m]
                for ctx in "AB"}
    return read


def json_read(kind: str):
    def read(vol):
        doc = json.loads((vol / "store.json").read_text())
        recs = doc if kind == "list" else list(doc.values())
        if kind == "keyed":
            recs.sort(key=lambda r: r["seq"])
        return grouped((r["ctx"], r["text"], r["role"]) for r in recs)
    return read


def qdrant_read(vol):
    from qdrant_client import QdrantClient

    client = QdrantClient(path=str(vol / "qdrant"))
    try:
        points = [p.payload for p in client.scroll("mem", limit=100)[0]]
    finally:
        client.close()
    return grouped((p["user_id"], p["data"], p["role"]) for p in sorted(points, key=lambda p: p["created_at"]))


def lancedb_read(vol):
    import lancedb

    rows = lancedb.connect(str(vol / "memory")).open_table("memories").to_arrow().to_pylist()
    rows.sort(key=lambda r: r["created_at"])
    return grouped((r["scope"].lstrip("/"), r["content"], r["role"]) for r in rows)


def postgres_read(url):
    import psycopg

    with psycopg.connect(url) as conn:
        return grouped(conn.execute("SELECT session, body, role FROM memories ORDER BY session, seq").fetchall())


def redis_read(url):
    import redis

    client = redis.Redis.from_url(url, decode_responses=True)
    recs = [(key.split(":")[1], client.hgetall(key)) for key in client.keys("mem:*:rec:*")]
    return grouped((ctx, h["text"], h["role"]) for ctx, h in sorted(recs, key=lambda r: (r[0], int(r[1]["seq"]))))


def _sqlite_lines_build(vol):
    """A sqlite-lines store in ``vol``: the Markdown fixture's texts in memory_files cells."""
    (vol / "twin").mkdir()
    layout, built = twin(vol / "twin")[2:]
    for f in built.iterdir():
        f.rename(vol / f.name)
    return layout


def _cell(vol, ctx):
    return dict(selected(vol / ".agent-memory.db", "SELECT path, content FROM memory_files"))[f"{ctx}/main/MEMORY.md"]


def _blob_text(v):
    return v.decode() if isinstance(v, bytes) else v


SQLITE = ("BEGIN IMMEDIATE", "COMMIT")
RECORD_STORES = [
    Store("sqlite-text", "sqlite", lambda v: sqlite_store(v, "text"),
          sqlite_read("SELECT session, body, role FROM memories ORDER BY session, seq"), framing=SQLITE),
    Store("sqlite-json", "sqlite", lambda v: sqlite_store(v, "json"),
          sqlite_read("SELECT thread, message_data, created_at FROM messages ORDER BY thread, id",
                      lambda v: json.loads(v)["content"]), framing=SQLITE),
    Store("sqlite-blob", "sqlite", lambda v: sqlite_store(v, "blob"),
          sqlite_read("SELECT ctx, data, role FROM chunks ORDER BY ctx, ts", _blob_text), framing=SQLITE),
    Store("sqlite-norowid", "sqlite", lambda v: sqlite_store(v, "norowid"),
          sqlite_read("SELECT session, body, role FROM notes ORDER BY session, seq"), framing=SQLITE),
    Store("jsonl-position", "jsonl", lambda v: jsonl_store(v, "position"),
          jsonl_read("thread", lambda r: r["msg"]["content"], "role", None)),
    Store("jsonl-field", "jsonl", lambda v: jsonl_store(v, "field"),
          jsonl_read("ctx", lambda r: r["text"], "source", "seq")),
    Store("jsonl-idorder", "jsonl", lambda v: jsonl_store(v, "idorder"),
          jsonl_read("ctx", lambda r: r["text"], "owner", "n")),
    Store("markdown", "markdown", markdown_store,
          lines_read(lambda vol, ctx: (vol / "memory" / f"{ctx}.md").read_text())),
    Store("sqlite-lines", "sqlite-lines", _sqlite_lines_build, lines_read(_cell)),
    *(Store(f"json-{kind}", "json", lambda v, k=kind: json_store(v, k), json_read(kind))
      for kind in ("keyed", "keyed-position", "list")),
    Store("qdrant", "qdrant", lambda v: (qdrant_build(v), QDRANT_LAYOUT)[1], qdrant_read),
    Store("lancedb", "lancedb", lambda v: (lancedb_build(v), LANCEDB_LAYOUT)[1], lancedb_read),
    Store("postgres", "postgres", lambda url: (fill_postgres(url), PG_LAYOUT)[1], postgres_read,
          service="postgres", framing=("BEGIN", "COMMIT")),
    Store("redis", "redis", lambda url: (fill_redis(url), REDIS_LAYOUT)[1], redis_read,
          service="redis_url", framing=("MULTI", "EXEC")),
]
