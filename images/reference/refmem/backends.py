"""Storage backends of refmem: where records live at rest.

Every backend offers the same four calls: ``append``, ``records``, ``delete``
and ``close``. ``sqlite`` and ``postgres`` keep one table (and a MAC column, so
they can be sealed) through one SQL code path; ``redis`` keeps a hash per record;
``jsonl`` and ``markdown`` keep records as lines of text and share one code path
(:class:`LineBackend`), differing only in how a line is parsed and formatted.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

Seal = Callable[["Record"], str]


@dataclass(frozen=True)
class Record:
    """One stored record; ``seq`` is its position in its context, ``mac`` its seal (or None)."""

    id: str
    ctx: str
    seq: int
    role: str | None
    source: str | None
    ts: float | str | None
    text: str
    mac: str | None = None

    def served(self) -> dict:
        """The record as the read path serves it: id, text and metadata."""
        return {"id": self.id, "text": self.text,
                "meta": {"role": self.role, "source": self.source, "timestamp": self.ts}}


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


class LineBackend:
    """Records as lines of text files; subclasses say which file, and how a line reads and writes."""

    sealable = False

    def __init__(self, root: Path, url: str | None = None):
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    # what a subclass defines
    def path(self, ctx: str) -> Path:
        """The file that holds the context's records."""
        raise NotImplementedError

    def header(self, ctx: str) -> list[str]:
        """Lines written when the file is created."""
        return []

    def parse(self, line: str) -> dict | None:
        """A line's fields (id?, ctx?, role, source, ts, text), or None when it is not a record."""
        raise NotImplementedError

    def format(self, rec: Record) -> str:
        """The line that stores a record."""
        raise NotImplementedError

    def new_id(self, position: int) -> str:
        """The id of a record appended at ``position`` in its context."""
        raise NotImplementedError

    # one code path for every line store
    def _lines(self, ctx: str) -> list[str]:
        path = self.path(ctx)
        return path.read_text(encoding="utf-8").splitlines() if path.exists() else []

    def _entries(self, ctx: str) -> list[tuple[int, Record]]:
        out: list[tuple[int, Record]] = []
        for index, line in enumerate(self._lines(ctx)):
            fields = self.parse(line)
            if fields is None or fields.get("ctx", ctx) != ctx:
                continue
            pos = len(out)
            out.append((index, Record(str(fields.get("id", pos)), ctx, pos, fields.get("role"),
                                      fields.get("source"), fields.get("ts"), fields["text"])))
        return out

    def append(self, ctx: str, role: str | None, source: str | None, ts: float, text: str,
               seal: Seal | None = None) -> Record:
        """Append one record line (creating the file with its header)."""
        if seal is not None:
            raise ValueError(f"{type(self).__name__} has no place for a MAC; seal the sqlite storage")
        pos = len(self._entries(ctx))
        rec = Record(self.new_id(pos), ctx, pos, role, source, ts, text)
        path = self.path(ctx)
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [] if path.exists() else self.header(ctx)
        with path.open("a", encoding="utf-8") as fh:
            fh.write("".join(line + "\n" for line in lines + [self.format(rec)]))
        return rec

    def records(self, ctx: str) -> list[Record]:
        """The records of a context, in file order."""
        return [rec for _, rec in self._entries(ctx)]

    def delete(self, ctx: str, record_id: str | None) -> list[str]:
        """Rewrite the file without the record's line (or without every line of the context)."""
        gone = {i: rec.id for i, rec in self._entries(ctx) if record_id is None or rec.id == record_id}
        if gone:
            kept = [line for i, line in enumerate(self._lines(ctx)) if i not in gone]
            path = self.path(ctx)
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_text("".join(line + "\n" for line in kept), encoding="utf-8")
            os.replace(tmp, path)
        return list(gone.values())

    def close(self) -> None:
        """Nothing stays open between calls."""


class JsonlBackend(LineBackend):
    """``memory.jsonl``: one JSON object per line, every context in one file, uuid4 ids."""

    def path(self, ctx: str) -> Path:
        """Every context shares ``memory.jsonl``."""
        return self.root / "memory.jsonl"

    def parse(self, line: str) -> dict | None:
        """A JSON object per non-blank line (a line without ``ctx`` belongs to no context)."""
        if not line.strip():
            return None
        fields = json.loads(line)
        return {**fields, "ctx": fields.get("ctx")}

    def format(self, rec: Record) -> str:
        """``{"id", "ctx", "role", "source", "ts", "text"}``."""
        return json.dumps({"id": rec.id, "ctx": rec.ctx, "role": rec.role, "source": rec.source,
                           "ts": rec.ts, "text": rec.text}, ensure_ascii=False)

    def new_id(self, position: int) -> str:
        """A random uuid4, hex."""
        return uuid.uuid4().hex


class MarkdownBackend(LineBackend):
    """``memory/<ctx>.md``: a header, then ``- [role|source|ts] text`` per record; id = position."""

    LINE = re.compile(r"^- \[(?P<role>[^|\]]*)\|(?P<source>[^|\]]*)\|(?P<ts>[^\]]*)\] (?P<text>.*)$")
    CONTEXT = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9_.-]*$")

    def path(self, ctx: str) -> Path:
        """One file per context; the context name must be a plain file name."""
        if not self.CONTEXT.match(ctx):
            raise ValueError(f"context {ctx!r} is not a plain file name (letters, digits, _ . -)")
        return self.root / "memory" / f"{ctx}.md"

    def header(self, ctx: str) -> list[str]:
        """``# Memory of <ctx>``."""
        return [f"# Memory of {ctx}"]

    def parse(self, line: str) -> dict | None:
        """Record lines match :attr:`LINE`; any other line (header, blank) is not a record."""
        m = self.LINE.match(line)
        if m is None:
            return None
        try:
            ts: float | str = float(m["ts"])
        except ValueError:
            ts = m["ts"]
        return {"role": m["role"], "source": m["source"], "ts": ts, "text": m["text"]}

    def format(self, rec: Record) -> str:
        """One line; newlines in the text and ``|``/``]`` in the metadata become spaces / ``/``."""
        def clean(value: object) -> str:
            return re.sub(r"[|\]\n]", "/", "" if value is None else str(value))
        return f"- [{clean(rec.role)}|{clean(rec.source)}|{clean(rec.ts)}] {rec.text.replace(chr(10), ' ')}"

    def new_id(self, position: int) -> str:
        """The record's position among the record lines."""
        return str(position)


BACKENDS = {"sqlite": SqliteBackend, "jsonl": JsonlBackend, "markdown": MarkdownBackend,
            "postgres": PostgresBackend, "redis": RedisBackend}
