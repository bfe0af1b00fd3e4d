"""Generic editor for records that are the lines of a text value in a SQLite row, one row per context.

``layout.table`` in the SQLite file ``layout.file`` keeps a context's text in one row: the row whose
``layout.context`` column (text) matches ``layout.context_pattern`` -- e.g. ``"{context}/main/MEMORY.md"``,
the context one segment with no '/' -- holds in its ``layout.payload.field`` column (TEXT) a text of
lines. A record is a line of it that matches ``layout.record_pattern``, as in a Markdown file: the
line logic, fields (``record_pattern``, ``record_separator``, ``metadata`` groups), identity and order
(the position) and the record operations are those of :mod:`edits.markdown`, the document a cell instead of a file.
Rows whose key does not match the pattern are not contexts: never read as records, never written.

Reads never write to the volume, and an edit is one ``UPDATE`` of that one cell (by its key) in a
``BEGIN IMMEDIATE`` transaction: the connection helpers of :mod:`edits.sqlite`. Every other column of
the row (a version counter, a hash, write metadata) is left as it is -- the editor writes what anyone
holding the file can; whether the SUT's read checks a stale version is what is measured. The
statements say in words what changed, then the UPDATE run. A content that is not text (NULL, a
BLOB, a number), a missing table or column, and a table with no row matching the pattern are
EditErrors.

Example::

    >>> import sqlite3, tempfile, pathlib
    >>> from edits import layout, model, sqlite_lines
    >>> vol = pathlib.Path(tempfile.mkdtemp())
    >>> db = sqlite3.connect(vol / "mem.db")
    >>> _ = db.execute("CREATE TABLE files (path TEXT PRIMARY KEY, content TEXT, version INTEGER)")
    >>> _ = db.executemany("INSERT INTO files VALUES (?, ?, 1)", [("A/MEMORY.md", "# A\\n- mA1-q one\\n- mA2-q two\\n"),
    ...                                                          ("A/notes.md", "- not a context\\n")])
    >>> db.commit(); db.close()
    >>> lay = layout.parse_layout({"backend": "sqlite-lines", "volume": "store", "file": "mem.db", "table": "files",
    ...                            "context": "path", "context_pattern": "{context}/MEMORY.md", "identity": [],
    ...                            "order": "@position", "payload": "content", "record_pattern": "^- (?P<text>.+)$"})
    >>> done = sqlite_lines.SqliteLinesEditor(lay, vol).apply(model.EditSpec("demo", "A", "mA1-q", op="delete"))
    >>> print("\\n".join(done.statements))
    files path='A/MEMORY.md': delete line 2: - mA1-q one
    UPDATE "files" SET "content" = <2 lines, 16 bytes> WHERE "path" = 'A/MEMORY.md'
    >>> sqlite3.connect(vol / "mem.db").execute("SELECT path, content, version FROM files").fetchall()
    [('A/MEMORY.md', '# A\\n- mA2-q two\\n', 1), ('A/notes.md', '- not a context\\n', 1)]
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from edits.fieldstore import CONTEXT_PATTERN
from edits.layout import StoreLayout
from edits.lines import LineFile
from edits.markdown import RECORD_PATTERN, RECORD_SEPARATOR, MarkdownEditor, context_re
from edits.model import EditError
from edits.registry import FILE, Backend, Field, register
from edits.sqlnames import quote as _q
from edits.sqlite import SqliteEditor


def _literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


class TextCell(LineFile):
    """One TEXT cell of a row as lines (a :class:`LineFile` held in memory); ``save`` UPDATEs that cell."""

    def __init__(self, db: SqliteEditor, column: str, key_column: str, key: str, text: str):
        self.db, self.column, self.key_column, self.key = db, column, key_column, key
        self.path = db.path
        self._split(text, f"{db.layout.table} {key_column}={_literal(key)}")

    def save(self) -> None:
        """One UPDATE of this cell alone, in its own transaction; exactly one row must change."""
        table, col, key_col = _q(self.db.layout.table), _q(self.column), _q(self.key_column)
        text = self.text()
        self.db._run([(f"UPDATE {table} SET {col} = ? WHERE {key_col} = ?", (text, self.key))])
        self.ops.append(f"UPDATE {table} SET {col} = <{len(self.bodies)} lines, {len(text.encode())} bytes> "
                        f"WHERE {key_col} = {_literal(self.key)}")


class SqliteLinesEditor(MarkdownEditor):
    """Edits the lines of ``layout.payload.field`` in the rows of ``layout.table`` that hold a context."""

    backend = "sqlite-lines"

    def __init__(self, layout: StoreLayout, volume_path: Path):
        super().__init__(layout, volume_path)
        self.db = SqliteEditor(layout, volume_path)
        self.key_re = context_re(layout.context_pattern)
        self.column = layout.payload.field

    def files(self) -> list[Path]:
        """The database file and its WAL sidecar."""
        return self.db.files()

    def documents(self) -> list[tuple[str, TextCell]]:
        """(context, its lines) of every row whose key matches the pattern, by key."""
        lay, key_col = self.layout, self.layout.context
        try:
            with self.db._reader() as conn:
                names = [r[1] for r in conn.execute(f"PRAGMA table_xinfo({_q(lay.table)})").fetchall()]
                if not names:
                    raise EditError(f"{lay.file}: no table {lay.table!r}")
                missing = [c for c in (key_col, self.column) if c not in names]
                if missing:
                    raise EditError(f"{lay.file}: table {lay.table!r} has no column(s) {missing} named by the layout")
                rows = conn.execute(f"SELECT {_q(key_col)}, {_q(self.column)} FROM {_q(lay.table)} "
                                    f"ORDER BY {_q(key_col)}").fetchall()
        except sqlite3.Error as exc:
            raise EditError(f"{lay.file}: sqlite could not read table {lay.table!r}: {exc}") from exc
        out: list[tuple[str, TextCell]] = []
        for key, text in rows:
            m = self.key_re.match(key) if isinstance(key, str) else None
            if not m:
                continue
            where = f"{lay.table} {key_col}={_literal(key)}"
            if not isinstance(text, str):
                kind = {type(None): "NULL", bytes: "a BLOB"}.get(type(text), f"a number ({text!r})")
                raise EditError(f"{where}: {self.column} is {kind}, not text; its lines cannot be read as records")
            if any(ctx == m.group("context") for ctx, _ in out):
                raise EditError(f"{where}: a second row of context {m.group('context')!r}")
            out.append((m.group("context"), TextCell(self.db, self.column, key_col, key, text)))
        if not out:
            seen = ", ".join(repr(k) for k, _ in rows[:3]) or "none"
            raise EditError(f"{lay.file}: no row of {lay.table!r} whose {key_col} matches "
                            f"{lay.context_pattern!r} ({len(rows)} rows; keys {seen})")
        return out

    def _locator(self, f: TextCell) -> dict:
        return {"file": self.layout.file, "table": self.layout.table, "row": f.key}

    def _doc_name(self, locator: dict) -> str:
        return f"{self.layout.table} {self.layout.context}={_literal(locator['row'])}"


BACKEND = register(Backend(
    "sqlite-lines", FILE, editor=SqliteLinesEditor,
    fields=(Field("table", required=True, fix="name the table whose rows hold a context's text each"),
            CONTEXT_PATTERN, RECORD_PATTERN, RECORD_SEPARATOR)))
