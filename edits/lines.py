"""Line-oriented stores (JSON lines, Markdown): a text file edited line by line,
and the editor base that jsonl and markdown share.

:class:`LineFile` keeps each line's body apart from its ending, so moving or
deleting a line never glues two lines together and a file that ends without a
newline still does after the edit. Files are rewritten in place (same inode,
owner and mode). Every operation is logged in words, e.g.
``memory.jsonl: replace line 4: <old> -> <new>``.

Example::

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "m.md"
    >>> _ = p.write_text("# notes\\n- one\\n- two")
    >>> f = LineFile(p, "m.md")
    >>> f.swap(1, 2); f.save()
    >>> p.read_text()
    '# notes\\n- two\\n- one'
    >>> f.ops
    ['m.md: swap lines 2 and 3: - one <-> - two']
"""

from __future__ import annotations

from pathlib import Path

from edits.layout import StoreLayout
from edits.model import EditError, Record
from edits.plan import EditorBase, Outcome, Plan
from edits.records import replace_same_length


class LineFile:
    """A text file as a list of line bodies with their endings, edited in memory, then saved."""

    def __init__(self, path: Path, rel: str):
        self.path = path
        self._split(path.read_bytes().decode("utf-8", "surrogateescape"), rel)

    def _split(self, text: str, rel: str) -> None:
        """Take ``text`` apart into bodies and endings; ``rel`` names the document in the ops."""
        self.rel = rel
        self.bodies: list[str] = []
        self.eols: list[str] = []
        parts = text.split("\n")
        for k, part in enumerate(parts):
            if k == len(parts) - 1:
                if part:
                    self.bodies.append(part)
                    self.eols.append("")
            elif part.endswith("\r"):
                self.bodies.append(part[:-1])
                self.eols.append("\r\n")
            else:
                self.bodies.append(part)
                self.eols.append("\n")
        self.ops: list[str] = []

    def text(self) -> str:
        """The lines put back together, each with its own ending."""
        return "".join(b + e for b, e in zip(self.bodies, self.eols))

    def save(self) -> None:
        """Write the lines back into the same file (inode, owner and mode kept)."""
        with open(self.path, "r+b") as fh:
            fh.write(self.text().encode("utf-8", "surrogateescape"))
            fh.truncate()

    def replace(self, i: int, body: str) -> None:
        """Replace the body of line ``i`` (0-based)."""
        self.ops.append(f"{self.rel}: replace line {i + 1}: {self.bodies[i]} -> {body}")
        self.bodies[i] = body

    def delete(self, i: int) -> None:
        """Delete line ``i``."""
        self.ops.append(f"{self.rel}: delete line {i + 1}: {self.bodies[i]}")
        del self.bodies[i], self.eols[i]

    def swap(self, i: int, j: int) -> None:
        """Exchange the bodies of lines ``i`` and ``j``; line endings stay where they were."""
        self.ops.append(f"{self.rel}: swap lines {i + 1} and {j + 1}: {self.bodies[i]} <-> {self.bodies[j]}")
        self.bodies[i], self.bodies[j] = self.bodies[j], self.bodies[i]

    def insert_after(self, i: int, body: str) -> int:
        """Insert a line after line ``i`` (-1: at the top); return its index."""
        eol = next((e for e in self.eols if e), "\n")
        new_eol = eol
        if 0 <= i == len(self.bodies) - 1 and not self.eols[i]:
            self.eols[i], new_eol = eol, ""
        self.bodies.insert(i + 1, body)
        self.eols.insert(i + 1, new_eol)
        self.ops.append(f"{self.rel}: insert line {i + 2}: {body}")
        return i + 1


class LineEditor(EditorBase):
    """The record operations (:mod:`edits.ops`) for stores where a record is one line of a text file.

    A subclass reads records into ``self.loaded`` (document name -> LineFile) with
    ``locator = {"file": rel, "line": 1-based line}`` (another locator says which document by
    overriding ``_doc_name``) and implements
    ``_forged`` (a forge's line and where it goes), ``_transplanted`` (a transplant's line) and
    ``_with_meta`` (a ``set_meta`` line); ``_swap`` may be overridden (default: swap lines).
    """

    def __init__(self, layout: StoreLayout, volume_path: Path):
        self.layout = layout
        self.root = Path(volume_path)
        self.loaded: dict[str, LineFile] = {}

    def _doc_name(self, locator: dict) -> str:
        """The name (``LineFile.rel``) of the document a record's locator points into."""
        return locator["file"]

    def _line(self, rec: Record) -> tuple[LineFile, int]:
        return self.loaded[self._doc_name(rec.locator)], rec.locator["line"] - 1

    def _done(self, f: LineFile, touched: list[str], **detail) -> Outcome:
        f.save()
        return Outcome(list(f.ops), touched, detail)

    def _rewritten(self, p: Plan, body: str) -> str:
        if p.spec.find not in body:
            raise EditError(f"{p.spec.op}: {p.spec.find!r} is in the decoded payload but not in the stored "
                            f"line {p.target.locator['line']} of {self._doc_name(p.target.locator)} (escaped?)")
        return replace_same_length(body, p.spec.find, p.spec.replace)

    def _replace(self, p: Plan) -> Outcome:
        f, i = self._line(p.target)
        f.replace(i, self._rewritten(p, f.bodies[i]))
        return self._done(f, [p.target.key()])

    def _delete(self, p: Plan) -> Outcome:
        f, i = self._line(p.target)
        f.delete(i)
        return self._done(f, [p.target.key()])

    def _swap(self, p: Plan) -> Outcome:
        (f, i), (g, j) = self._line(p.target), self._line(p.other)
        if f is not g:
            raise EditError(f"{p.spec.op}: the two records are in different files")
        f.swap(i, j)
        return self._done(f, [p.target.key(), p.other.key()])

    def _forge(self, p: Plan) -> Outcome:
        f, i = self._line(p.target)
        body, after = self._forged(p, f.bodies[i])
        new = f.insert_after(after, self._rewritten(p, body))
        return self._done(f, [self._new_key(p, new)], template=p.target.key(), line=new + 1)

    def _transplant(self, p: Plan) -> Outcome:
        f, i = self._line(p.target)
        g, j = self._line(p.other)
        f.replace(i, self._transplanted(p, f.bodies[i], g.bodies[j]))
        return self._done(f, [p.target.key()], donor=p.other.key())

    def _set_meta(self, p: Plan) -> Outcome:
        f, i = self._line(p.target)
        f.replace(i, self._with_meta(p, f.bodies[i]))
        return self._done(f, [p.target.key()], field=p.spec.meta_field,
                          old=p.target.metadata.get(p.spec.meta_field), new=p.meta_value)

    def _new_key(self, p: Plan, index: int) -> str:
        return f"{p.target.context}|{len(p.in_context(p.target.context))}"

    def _forged(self, p: Plan, body: str) -> tuple[str, int]:
        raise NotImplementedError

    def _transplanted(self, p: Plan, victim: str, donor: str) -> str:
        raise NotImplementedError

    def _with_meta(self, p: Plan, body: str) -> str:
        raise NotImplementedError
