"""Generic editor for Markdown stores: one file per context, one record per line.

``layout.file`` is a pattern such as ``memory/{context}.md``; the context comes
from the file name. A record is a line matching ``layout.record_pattern``; its
``text`` group (or the group named by ``layout.payload.field``) is the payload,
and ``layout.metadata`` maps names (role, source, timestamp, owner) to other
groups. Every other line (headings, blank lines, prose) is kept untouched.
Order and identity are the position: identity is (context, index of the record
in its file). ``swap`` exchanges two lines, ``forge`` inserts the forged line after the last
record line of the context's file, ``transplant`` puts the donor's line in the victim's
place, ``set_meta`` rewrites only the metadata group's characters. No variants
(:mod:`edits.places`): a record is one line, the token sits in its payload group and a metadata
field is one group of it, so ``replace`` and ``set_meta`` each have one place.

``layout.record_separator`` (optional) is a line that stands between two records, as
Hermes's ``§`` does: such lines are never records, ``rollback``/``delete`` remove the record's line with one
separator beside it (the one before it, else the one after), and ``forge`` inserts a separator
before the forged line, so the file keeps one separator between every two records.

``layout.continuation`` (optional, a line regex) lets a record span lines, as a memory written with
a newline in its text is stored: a line directly after a record line (or after that record's
previous continuation line) that is not the separator and matches the regex is part of that record,
its text group joined with ``"\\n"`` and the line; the record's locator adds ``last_line``. The
regex is tried before the record pattern, so a store whose entries stand between separator lines
(Hermes's ``§``) names every non-empty line a continuation and each entry's first line its record
line. Without it a record is one line, exactly as above. The line operations move one line, so an
edit on such a layout is refused (:class:`~edits.model.EditError` naming ``store.continuation``):
the field serves reading a store back (a front-door row's ``frontdoor.stored``), not editing it.

The files are the editor's *documents* (``documents()``: each context's lines, a
:class:`~edits.lines.LineFile`); :mod:`edits.sqlite_lines` reads the same lines from a cell of
a SQLite row instead, with everything else here.

Example::

    >>> import pathlib, tempfile
    >>> from edits import layout, markdown, model
    >>> vol = pathlib.Path(tempfile.mkdtemp())
    >>> (vol / "memory").mkdir()
    >>> _ = (vol / "memory" / "A.md").write_text("# A\\n- [user] mA1-q likes FACT-A1\\n- [assistant] mA2-q ok\\n")
    >>> lay = layout.parse_layout({"backend": "markdown", "volume": "store", "file": "memory/{context}.md",
    ...                            "identity": [], "order": "@position", "payload": "text",
    ...                            "metadata": {"role": "role"},
    ...                            "record_pattern": r"^- \\[(?P<role>\\w+)\\] (?P<text>.*)$"})
    >>> done = markdown.MarkdownEditor(lay, vol).apply(model.EditSpec("demo", "A", "mA1-q", second="mA2-q", op="swap"))
    >>> done.statements
    ['memory/A.md: swap lines 2 and 3: - [user] mA1-q likes FACT-A1 <-> - [assistant] mA2-q ok']
    >>> print((vol / "memory" / "A.md").read_text(), end="")
    # A
    - [assistant] mA2-q ok
    - [user] mA1-q likes FACT-A1
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from edits.layout import StoreLayout
from edits.layout_fields import LayoutError
from edits.lines import LineEditor, LineFile
from edits.model import AppliedEdit, EditError, EditSpec, Record
from edits.plan import Outcome, Plan
from edits.records import decode_payload, sort_records
from edits.registry import FILE, Backend, Field, register


class MarkdownEditor(LineEditor):
    """Edits the per-context Markdown files ``layout.file`` of one volume."""

    backend = "markdown"

    def __init__(self, layout: StoreLayout, volume_path: Path):
        super().__init__(layout, volume_path)
        self.pattern = re.compile(layout.record_pattern or r"^(?P<text>.*)$")
        self.file_re = context_re(layout.file)
        self.text_group = layout.payload.field if layout.payload.field in self.pattern.groupindex else "text"
        self.separator = layout.options.get("record_separator")
        continuation = layout.options.get("continuation")
        self.continuation = re.compile(continuation) if continuation is not None else None
        missing = [g for g in layout.metadata.values() if g not in self.pattern.groupindex]
        if missing:
            raise EditError(f"record_pattern has no group(s) {missing} named by store.metadata")

    def files(self) -> list[Path]:
        """Every context file that matches the layout's pattern."""
        glob = self.layout.file.replace("{context}", "*")
        return sorted(p for p in self.root.glob(glob)
                      if p.is_file() and self.file_re.match(p.relative_to(self.root).as_posix()))

    def documents(self) -> list[tuple[str, LineFile]]:
        """(context, its lines) of every context file; a subclass reads its lines elsewhere."""
        out = []
        for path in self.files():
            rel = path.relative_to(self.root).as_posix()
            out.append((self.file_re.match(rel).group("context"), LineFile(path, rel)))
        return out

    def _locator(self, f: LineFile) -> dict:
        """Where a record line of ``f`` is, but its line number (``_doc_name`` reads it back)."""
        return {"file": f.rel}

    def records(self) -> list[Record]:
        """Every record line of every context document, sorted by (context, position)."""
        if self.continuation is not None:
            return self._records_with_continuation()
        out: list[Record] = []
        self.loaded = {}
        for ctx, f in self.documents():
            self.loaded[f.rel] = f
            index = 0
            for n, body in enumerate(f.bodies, start=1):
                m = None if body == self.separator else self.pattern.match(body)
                if not m:
                    continue
                groups = m.groupdict()
                out.append(Record(context=ctx, identity=(ctx, index), order=index,
                                  payload=decode_payload(groups[self.text_group] or "", self.layout.payload),
                                  metadata={k: groups.get(g) for k, g in self.layout.metadata.items()},
                                  fields={"line": body, **groups}, locator={**self._locator(f), "line": n}))
                index += 1
        return sort_records(out)

    def _records_with_continuation(self) -> list[Record]:
        """``records`` where a record may span lines (``layout.continuation``, see the module)."""
        out: list[Record] = []
        self.loaded = {}
        for ctx, f in self.documents():
            self.loaded[f.rel] = f
            blocks: list[tuple[int, dict, list[str]]] = []  # (first line, groups, the record's lines)
            open_block = False
            for n, body in enumerate(f.bodies, start=1):
                if body == self.separator:
                    open_block = False
                elif open_block and self.continuation.match(body):  # tried first: see the module
                    blocks[-1][2].append(body)
                elif m := self.pattern.match(body):
                    blocks.append((n, m.groupdict(), [body]))
                    open_block = True
                else:
                    open_block = False
            for index, (n, groups, lines) in enumerate(blocks):
                text = "\n".join([groups[self.text_group] or "", *lines[1:]])
                groups = {**groups, self.text_group: text}
                out.append(Record(context=ctx, identity=(ctx, index), order=index,
                                  payload=decode_payload(text, self.layout.payload),
                                  metadata={k: groups.get(g) for k, g in self.layout.metadata.items()},
                                  fields={"line": "\n".join(lines), **groups},
                                  locator={**self._locator(f), "line": n, "last_line": n + len(lines) - 1}))
        return sort_records(out)

    def apply(self, spec: EditSpec) -> AppliedEdit:
        """As every editor's; refused where a record may span lines (``layout.continuation``)."""
        if self.continuation is not None:
            raise EditError(f"{spec.op}: the {self.backend} editor does not edit a layout with store.continuation "
                            "(a record of several lines): it only reads such a store back; drop store.continuation "
                            "to edit one-line records")
        return super().apply(spec)

    def _delete(self, p: Plan) -> Outcome:
        """Delete the record's line; with a separator, also the separator next to it."""
        if self.separator is None:
            return super()._delete(p)
        f, i = self._line(p.target)
        gone = [k for k in (i - 1, i + 1) if 0 <= k < len(f.bodies) and f.bodies[k] == self.separator][:1]
        if gone == [i - 1] and i == len(f.bodies) - 1 and i >= 2:
            f.eols[i - 2] = f.eols[i]  # the line that becomes the file's last keeps its ending (or none)
        for k in sorted([i, *gone], reverse=True):
            f.delete(k)
        return self._done(f, [p.target.key()])

    def _forge(self, p: Plan) -> Outcome:
        """Insert the forged line; with a separator, a separator line before it."""
        if self.separator is None:
            return super()._forge(p)
        f, i = self._line(p.target)
        body, after = self._forged(p, f.bodies[i])
        new = f.insert_after(f.insert_after(after, self.separator), self._rewritten(p, body))
        return self._done(f, [self._new_key(p, new)], template=p.target.key(), line=new + 1)

    def _forged(self, p: Plan, body: str) -> tuple[str, int]:
        return body, p.in_context(p.target.context)[-1].locator["line"] - 1

    def _transplanted(self, p: Plan, victim: str, donor: str) -> str:
        return donor

    def _with_meta(self, p: Plan, body: str) -> str:
        group = self.layout.metadata[p.spec.meta_field]
        start, end = self.pattern.match(body).span(group)
        if start < 0:
            raise EditError(f"{p.spec.op}: group {group!r} is empty in line {p.target.locator['line']} of "
                            f"{self._doc_name(p.target.locator)}")
        new = body[:start] + str(p.meta_value) + body[end:]
        m = self.pattern.match(new)
        if not m or m.group(group) != str(p.meta_value):
            raise EditError(f"{p.spec.op}: {p.meta_value!r} does not fit group {group!r} of the record pattern")
        return new


def context_re(pattern: str) -> re.Pattern:
    """A name pattern with ``{context}`` (one segment, no '/') as a regex with a ``context`` group."""
    head, _, tail = pattern.partition("{context}")
    return re.compile(re.escape(head) + r"(?P<context>[^/]+?)" + re.escape(tail) + "$")


def _record_pattern(pattern: Any, store: dict) -> str:
    """``record_pattern``: a line regex with a ``(?P<text>...)`` group."""
    if not isinstance(pattern, str):
        raise LayoutError("record_pattern", "must be a regular expression",
                          "give a line regex with a (?P<text>...) group")
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        raise LayoutError("record_pattern", f"not a regular expression: {exc}", "fix the regex") from exc
    if "text" not in compiled.groupindex:
        raise LayoutError("record_pattern", "has no (?P<text>...) group", "name the text group 'text'")
    return pattern


def _one_file_per_context(store: dict) -> None:
    if "{context}" not in str(store.get("file", "")):
        raise LayoutError("file", "markdown stores keep one file per context",
                          "write the file as a pattern with {context}, e.g. memory/{context}.md")


RECORD_PATTERN = Field("record_pattern", required=True, parse=_record_pattern,
                       fix="give a line regex with a (?P<text>...) group")
RECORD_SEPARATOR = Field("record_separator", fix="give the separator line's exact text, e.g. '§'")
"""The line fields, read by every backend whose records are Markdown lines (markdown, sqlite-lines)."""


def _continuation(pattern: Any, store: dict) -> str:
    """``continuation``: a line regex; a line it matches, directly after a record's line, is that record's."""
    fix = "give a line regex for the lines that continue a record, e.g. '^(?!- ).+$' (a line not starting a bullet)"
    if not isinstance(pattern, str):
        raise LayoutError("continuation", "must be a regular expression", fix)
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        raise LayoutError("continuation", f"not a regular expression: {exc}", fix) from exc
    if compiled.match("") is not None:
        raise LayoutError("continuation", "matches an empty line, so a blank line would join the record before it",
                          fix)
    return pattern


CONTINUATION = Field("continuation", parse=_continuation,
                     fix="give a line regex for the lines that continue a record, e.g. '^(?!- ).+$'")
"""A Markdown store's records of several lines (the markdown backend only)."""

BACKEND = register(Backend(
    "markdown", FILE, editor=MarkdownEditor, context_field=False, check=_one_file_per_context,
    fields=(RECORD_PATTERN, RECORD_SEPARATOR, CONTINUATION)))
