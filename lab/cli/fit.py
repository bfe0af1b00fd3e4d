"""Listings that fit the terminal they are printed on, with every name whole (``memlab list``,
``memlab images list``).

A listing is rows: a name (a row's, an image's), short facts beside it (its SUT and version, its
tag), and longer details under it (why a row cannot run, an image's versions). :func:`lay_out` puts
them in ``width`` columns:

* a table, one line per row, when every name and fact fits side by side;
* else the facts stay in aligned columns at the right of the line, and a name too long for the space
  before them has a line of its own, its facts on the next line (as a manual page sets a long option);
* else (a terminal too narrow for the facts side by side) each row's facts follow on indented lines,
  as many to a line as fit.

A row may open with a heading (a line of its own, at the left edge: the SUT its rows share). Details
are wrapped at spaces only, indented under their row (their next lines further in). No name, fact or
word is ever cut or split: one that does not fit at its indent is moved left as far as it takes, and a
line is wider than ``width`` only when it holds one of them alone (at its indent), too wide by itself. Pure: text in, lines out, each line a list of (text, rich style)
segments; widths are display columns (a wide character counts two).

    >>> rows = [Row(("a-long-row-name", ""), (("pkg", ""), ("runnable", "green"))),
    ...         Row(("short", ""), (("pkg", ""), ("unavailable", "yellow")), ((("no wheel for this Python", ""),),))]
    >>> print("\\n".join(plain(line) for line in lay_out(rows, 24)))
    a-long-row-name
            pkg  runnable
    short   pkg  unavailable
        no wheel for this
          Python
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from rich.cells import cell_len

Segment = tuple[str, str]  # text, and its rich style ("" for none)
Line = list[Segment]
Text = tuple[Segment, ...]  # a heading or a detail: words to wrap, each keeping its style

GAP = 2  # columns between two cells
FACTS_INDENT = 2  # facts under their name, when they cannot be beside it
DETAIL_INDENT = 4  # details under their name
HANG = 2  # a detail's next lines, further in than its first


@dataclass(frozen=True)
class Row:
    """One row of a listing: its name, its facts (one per column), its details (each a paragraph,
    wrapped under the name) and a heading said on a line of its own before it."""

    name: Segment
    facts: tuple[Segment, ...] = ()
    details: tuple[Text, ...] = ()
    heading: Text = ()


def plain(line: Line) -> str:
    """A line's text, without its styles."""
    return "".join(text for text, _ in line)


def plain_width(line: Line) -> int:
    """A line's width in display columns."""
    return sum(cell_len(text) for text, _ in line)


def _columns(rows: Sequence[Row]) -> list[int]:
    count = max((len(r.facts) for r in rows), default=0)
    return [max((cell_len(r.facts[j][0]) for r in rows if j < len(r.facts)), default=0) for j in range(count)]


def _facts_width(columns: list[int]) -> int:
    return sum(columns) + GAP * (len(columns) - 1) if columns else 0


def table_fits(rows: Sequence[Row], width: int, indent: int = 0) -> bool:
    """Whether ``rows`` (a header first, if any) fit ``width`` as a table: one line per row, every
    name and fact whole and side by side."""
    columns = _columns(rows)
    names = max((cell_len(r.name[0]) for r in rows), default=0)
    return indent + names + (GAP + _facts_width(columns) if columns else 0) <= width


def lay_out(rows: Sequence[Row], width: int, indent: int = 0) -> list[Line]:
    """The lines of ``rows`` (a header first, if any) in ``width`` columns, each name at ``indent``."""
    columns = _columns(rows)
    facts = _facts_width(columns)
    names = max((cell_len(r.name[0]) for r in rows), default=0)
    if not columns or table_fits(rows, width, indent):
        at: int | None = indent + names + GAP  # the column the facts start at
    elif facts + indent + FACTS_INDENT <= width:
        at = width - facts
    else:
        at = None  # no room for the facts side by side: each row's follow it, packed
    lines: list[Line] = []
    for row in rows:
        if row.heading:
            lines += wrap(row.heading, width, 0, DETAIL_INDENT)
        lines += _row(row, columns, at, width, indent)
        for detail in row.details:
            lines += wrap(detail, width, indent + DETAIL_INDENT, HANG)
    return lines


def _lead(indent: int, size: int, width: int) -> Line:
    """The indent of a line that opens with something ``size`` wide: ``indent``, or less if that is what
    it takes to stay in ``width`` (``indent`` still for something wider than the line by itself: where it
    sits says what it is)."""
    lead = min(indent, width - size) if size <= width else indent
    return [(" " * lead, "")] if lead else []


def _row(row: Row, columns: list[int], at: int | None, width: int, indent: int) -> list[Line]:
    name: Line = _lead(indent, cell_len(row.name[0]), width) + [row.name]
    cells = [row.facts[j] if j < len(row.facts) else ("", "") for j in range(len(columns))]
    while cells and not cells[-1][0]:
        cells.pop()  # no trailing blanks
    if not cells:
        return [name]
    if at is None:
        return [name] + _pack(cells, width, indent + FACTS_INDENT)
    beside: Line = []
    for j, cell in enumerate(cells):
        beside.append(cell)
        if j < len(cells) - 1:
            beside.append((" " * (columns[j] - cell_len(cell[0]) + GAP), ""))
    before = indent + cell_len(row.name[0])
    if before + GAP <= at:
        return [name + [(" " * (at - before), "")] + beside]
    return [name, [(" " * at, "")] + beside]


def _pack(cells: list[Segment], width: int, indent: int) -> list[Line]:
    """Cells (each kept whole) on indented lines, as many to a line as fit, ``GAP`` apart."""
    lines: list[Line] = []
    line: Line = []
    used = indent
    for cell in (c for c in cells if c[0]):
        size = cell_len(cell[0])
        if line and used + GAP + size > width:
            lines.append(line)
            line, used = [], indent
        if line:
            line.append((" " * GAP, ""))
            used += GAP
        else:
            line = _lead(indent, size, width)
            used = plain_width(line)
        line.append(cell)
        used += size
    if line:
        lines.append(line)
    return lines


def words(text: Text) -> list[Line]:
    """The words of ``text`` (split at spaces, which may fall inside or between its segments), each
    as the styled pieces it is made of."""
    out: list[Line] = []
    word: Line = []
    for piece, style in text:
        parts = piece.split(" ")
        for k, part in enumerate(parts):
            if k and word:
                out.append(word)
                word = []
            if part:
                word.append((part, style))
    if word:
        out.append(word)
    return out


def wrap(text: Text, width: int, indent: int, hang: int = 0) -> list[Line]:
    """``text`` wrapped in ``width`` columns at ``indent`` (its next lines ``hang`` further in), at
    spaces only: a word wider than the room has a line of its own."""
    lines: list[Line] = []
    line: Line = []
    used = indent
    for word in words(text):
        size = sum(cell_len(piece) for piece, _ in word)
        if line and used + 1 + size > width:
            lines.append(line)
            line, used = [], indent + hang
        if line:
            line.append((" ", ""))
            used += 1
        else:
            line = _lead(used, size, width)
            used = plain_width(line)
        line += word
        used += size
    if line:
        lines.append(line)
    return lines
