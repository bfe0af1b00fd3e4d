"""A terminal table in the form that fits: the full table where the console is wide enough, else a
compact one whose one-letter codes a key printed under it explains. Any table of a few labels
can use it (the verdict matrix does, lab.report.terminal; the lifecycle table's statuses can).

>>> codes = Codes([Code("REJ", "R", "refused (pass)"), Code("ACC", "A", "accepted (fail)")])
>>> codes.run(["REJ", "REJ", "ACC"]), codes.label("A")
('RRA', 'ACC')
>>> codes.key()
'R REJ refused (pass) · A ACC accepted (fail)'

Print one form or the other: ``print_fitting(console, full, small, [codes.key()])``, where ``small``
is a ``compact_table(title)`` whose cells hold ``codes.run(...)``. The codes must stay
distinguishable without colour (a pipe, a copied log), so ``Codes`` refuses two codes that differ
only by case; a label without a code prints as ``?``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from rich import box
from rich.console import Console, RenderableType
from rich.markup import escape
from rich.measure import Measurement
from rich.table import Table

#: Wider than any terminal: a table measured in it takes its natural width.
_UNBOUNDED = 10_000


@dataclass(frozen=True)
class Code:
    """A label of the full table (``REJ``), its compact code (``R``), what it means, its style."""

    label: str
    short: str
    meaning: str
    style: str = ""
    optional: bool = False  # in the key only where a table shows it


class Codes:
    """The codes of one table, each label's compact code and the key that explains them."""

    def __init__(self, codes: Iterable[Code]):
        self.codes = tuple(codes)
        shorts = [c.short.casefold() for c in self.codes]
        labels = [c.label for c in self.codes]
        if len(set(shorts)) != len(shorts) or len(set(labels)) != len(labels):
            raise ValueError(f"codes must be distinct, ignoring case: {[c.short for c in self.codes]}")
        self._by_label = {c.label: c for c in self.codes}
        self._by_short = {c.short: c for c in self.codes}

    def short(self, label: str) -> str:
        """The compact code of ``label`` (KeyError for a label without one)."""
        return self._by_label[label].short

    def label(self, short: str) -> str:
        """The label a compact code stands for (KeyError for an unknown code)."""
        return self._by_short[short].label

    def style(self, label: str) -> str:
        """The style of ``label`` (``magenta`` for a label without a code)."""
        code = self._by_label.get(label)
        return code.style if code else "magenta"

    def styled(self, label: str) -> str:
        """The compact code of ``label`` as markup in its style (``?`` for a label without a code)."""
        code = self._by_label.get(label) or Code(label, "?", "", "magenta")
        text = escape(code.short)
        return f"[{code.style}]{text}[/]" if code.style else text

    def run(self, labels: Iterable[str]) -> str:
        """Several labels as one cell of adjacent codes (``RRRAA``), each in its style."""
        return "".join(self.styled(label) for label in labels)

    def key(self, shown: Iterable[str] = ()) -> str:
        """One line of markup: each code, its label and what it means (``R REJ refused · ...``); an
        optional code only where its label is among ``shown``."""
        shown = set(shown)
        return " · ".join(f"{self.styled(c.label)} {escape(c.label)} {escape(c.meaning)}" for c in self.codes
                          if not c.optional or c.label in shown)


def natural_width(console: Console, renderable: RenderableType) -> int:
    """The columns ``renderable`` takes when nothing limits it (a table: no cell wrapped)."""
    return Measurement.get(console, console.options.update_width(_UNBOUNDED), renderable).maximum


def fits(console: Console, renderable: RenderableType) -> bool:
    """Whether ``renderable`` prints on ``console`` at its natural width, nothing wrapped or cut."""
    return natural_width(console, renderable) <= console.width


def compact_table(title: str) -> Table:
    """An empty table drawn tight: no frame, two spaces between columns, a rule under the header."""
    return Table(title=title, title_justify="left", header_style="bold", box=box.SIMPLE_HEAD, show_edge=False,
                 padding=(0, 1, 0, 0), pad_edge=False, collapse_padding=True)


def print_fitting(console: Console, full: Table, compact: Table, key: Iterable[str] = ()) -> bool:
    """Print ``full`` when it fits the console, else ``compact`` with the ``key`` lines (markup) under
    it. True when the compact form was printed."""
    if fits(console, full):
        console.print(full)
        return False
    console.print(compact)
    for line in key:
        console.print(line)
    return True
