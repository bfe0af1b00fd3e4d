"""Storage backends of refmem: where records live at rest.

Every backend offers the same four calls: ``append``, ``records``, ``delete``
and ``close``. ``sqlite`` and ``postgres`` keep one table (and a MAC column, so
they can be sealed) through one SQL code path; ``redis`` keeps a hash per record;
``jsonl`` and ``markdown`` keep records as lines of text (:mod:`refmem.lines`).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from refmem.lines import JsonlBackend, MarkdownBackend
from refmem.record import Record, Seal

class SqlBackend:
    """Records in table ``records``; ``seq`` orders records within a context. A dialect gives
    the connection, the placeholder and how a transaction is opened."""

    sealable = True
    PARAM = "?"
    SCHEMA = ("CREATE TABLE IF NOT EXISTS records (id INTEGER PRIMARY KEY, ctx TEXT NOT NULL, "
              "seq INTEGER NOT NULL, role TEXT, source TEXT, created_at REAL, body TEXT, mac TEXT)")

    def __init__(self, db) -> None:
        self.db = db
        with self._tx():
            self._exec(self.SCHEMA)

    def _tx(self):
        return self.db

    def _exec(self, sql: str, args: tuple = ()):
        return self.db.execute(sql.replace("?", self.PARAM), args)

    def append(self, ctx: str, role: str | None, source: str | None, ts: float, text: str,
               seal: Seal | None = None) -> Record:
        """Insert one record at the end of its context (seq = max + 1), sealed when asked."""
        with self._tx():
            (seq,) = self._exec("SELECT COALESCE(MAX(seq) + 1, 0) FROM records WHERE ctx = ?", (ctx,)).fetchone()
            (rid,) = self._exec("INSERT INTO records (ctx, seq, role, source, created_at, body) "
                                "VALUES (?, ?, ?, ?, ?, ?) RETURNING id", (ctx, seq, role, source, ts, text)).fetchone()
            rec = Record(str(rid), ctx, seq, role, source, ts, text)
            if seal is not None:
                rec = Record(**{**rec.__dict__, "mac": seal(rec)})
                self._exec("UPDATE records SET mac = ? WHERE id = ?", (rec.mac, rid))
        return rec

    def records(self, ctx: str) -> list[Record]:
        """The records of a context, ordered by seq."""
        rows = self._exec("SELECT id, ctx, seq, role, source, created_at, body, mac FROM records "
                          "WHERE ctx = ? ORDER BY seq, id", (ctx,)).fetchall()
        return [Record(str(r[0]), *r[1:]) for r in rows]

    def delete(self, ctx: str, record_id: str | None) -> list[str]:
        """Delete one record of the context (or all of them when ``record_id`` is None)."""
        with self._tx():
            where, args = ("ctx = ?", (ctx,)) if record_id is None else ("ctx = ? AND id = ?", (ctx, int(record_id)))
            ids = [str(r[0]) for r in self._exec(f"DELETE FROM records WHERE {where} RETURNING id", args).fetchall()]
        return ids

    def close(self) -> None:
        """Close the connection."""
        self.db.close()


class SqliteBackend(SqlBackend):
    """``memory.db`` in the store folder."""

    def __init__(self, root: Path, url: str | None = None):
        root.mkdir(parents=True, exist_ok=True)
        super().__init__(sqlite3.connect(root / "memory.db"))


class PostgresBackend(SqlBackend):
    """The same table in the PostgreSQL server at ``url`` (its data directory is the store volume)."""

    PARAM = "%s"
    SCHEMA = ("CREATE TABLE IF NOT EXISTS records (id BIGSERIAL PRIMARY KEY, ctx TEXT NOT NULL, "
              "seq INTEGER NOT NULL, role TEXT, source TEXT, created_at DOUBLE PRECISION, body TEXT, mac TEXT)")

    def __init__(self, root: Path, url: str | None = None):
        import psycopg

        if not url:
            raise ValueError("the postgres storage needs the service URL (services: {db: {kind: postgres}})")
        super().__init__(psycopg.connect(url, autocommit=True))

    def _tx(self):
        return self.db.transaction()


class RedisBackend:
    """One hash per record at ``mem:<ctx>:rec:<id>`` (fields seq, role, source, ts, text, mac);
    ids from the counter ``mem:next-id``, in the Redis server at ``url``."""

    sealable = True

    def __init__(self, root: Path, url: str | None = None):
        import redis

        if not url:
            raise ValueError("the redis storage needs the service URL (services: {cache: {kind: redis}})")
        self.db = redis.Redis.from_url(url, decode_responses=True)

    def _all(self, ctx: str) -> list[Record]:
        recs = []
        for key in self.db.scan_iter(match=f"mem:{ctx}:rec:*"):
            h = self.db.hgetall(key)
            recs.append(Record(key.rsplit(":", 1)[1], ctx, int(h["seq"]), h.get("role"), h.get("source"),
                               float(h["ts"]) if h.get("ts") else None, h.get("text", ""), h.get("mac")))
        return sorted(recs, key=lambda r: (r.seq, int(r.id)))

    def append(self, ctx: str, role: str | None, source: str | None, ts: float, text: str,
               seal: Seal | None = None) -> Record:
        """Write one hash at the end of its context (seq = max + 1), sealed when asked."""
        seq = max((r.seq for r in self._all(ctx)), default=-1) + 1
        rec = Record(str(self.db.incr("mem:next-id")), ctx, seq, role, source, ts, text)
        if seal is not None:
            rec = Record(**{**rec.__dict__, "mac": seal(rec)})
        fields = {"seq": seq, "role": role or "", "source": source or "", "ts": ts, "text": text}
        self.db.hset(f"mem:{ctx}:rec:{rec.id}", mapping={**fields, **({"mac": rec.mac} if rec.mac else {})})
        return rec

    def records(self, ctx: str) -> list[Record]:
        """The records of a context, ordered by seq."""
        return self._all(ctx)

    def delete(self, ctx: str, record_id: str | None) -> list[str]:
        """Delete one record's hash (or every hash of the context)."""
        ids = [r.id for r in self._all(ctx) if record_id is None or r.id == record_id]
        if ids:
            self.db.delete(*(f"mem:{ctx}:rec:{i}" for i in ids))
        return ids

    def close(self) -> None:
        """Close the connection."""
        self.db.close()


BACKENDS = {"sqlite": SqliteBackend, "jsonl": JsonlBackend, "markdown": MarkdownBackend,
            "postgres": PostgresBackend, "redis": RedisBackend}
