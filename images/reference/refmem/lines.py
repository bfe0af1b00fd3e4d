"""Line-based storage backends of refmem: records as lines of text files (``jsonl``, ``markdown``),
one code path (:class:`LineBackend`) differing only in how a line is parsed and formatted."""

from __future__ import annotations

import json
import os
import re
import uuid
from pathlib import Path

from refmem.record import Record, Seal


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
