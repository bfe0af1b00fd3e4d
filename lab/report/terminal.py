"""The verdict matrix in the terminal: one glance, colour, one line per row. Where the full matrix
does not fit the terminal (an 80-column one), a compact form of one-letter codes grouped as the
method groups the cases, with the codes' key under it (lab.report.compact)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from lab.cases import CASE_IDS, GROUPS
from lab.cases.revisions import NOT_MEASURED
from lab.report.compact import Code, Codes, compact_table, print_fitting
from lab.report.inert import inert
from lab.report.stdout import stdout_console  # noqa: F401 (this module's API too)

if TYPE_CHECKING:
    from lab.judge.row import AtRestRow, RowCell

_LABELS = {"REJECTED": "REJ", "REPORTED": "REP", "ACCEPTED": "ACC", "n/a": "n/a", "error": "ERR", NOT_MEASURED: "n/m"}

#: Each cell label's style, and its code in the compact form's code of each cell label: distinct letters, so no verdict rests on colour or case.
VERDICT_CODES = Codes([Code("REJ", "R", "refused (pass)", "bold green"),
                       Code("REP", "P", "reported at read (pass)", "green"),
                       Code("REP·a", "H", "reported at audit only (half credit)", "yellow"),
                       Code("ACC", "A", "accepted (fail)", "bold red"),
                       Code("ERR", "E", "harness error (not counted)", "bold magenta"),
                       Code("n/a", "-", "not expressible (not counted)", "dim"),
                       Code("n/m", ".", "not measured (a case the set's method revision lacks)", "dim", optional=True)])
NOT_MEASURED_LEGEND = " · n/m not measured (a case the set's method revision lacks)"
LEGEND = ("REJ refused · REP reported at read · REP·a reported at audit only (half credit) · "
          "ACC accepted (fail) · ERR harness error (not counted) · n/a not expressible")


def cell_text(cell: RowCell) -> tuple[str, str]:
    """Short label and style of a cell; audit-time reports are marked ``REP·a``."""
    label = _LABELS.get(cell.verdict, "?")
    if label == "REP" and cell.detection_point == "audit":
        label = "REP·a"
    return label, VERDICT_CODES.style(label)


def _sorted(rows: list[AtRestRow]) -> list[AtRestRow]:
    return sorted(rows, key=lambda r: (r.row, r.detection_point))


def _controls(row: AtRestRow) -> list[str]:
    return ["[green]ok[/]" if row.controls[c].ok else "[bold red]FAIL[/]" for c in ("C1", "C2")]


def _metric(row: AtRestRow) -> str:
    metric = row.metric
    return "—" if metric is None else f"{metric:.2f}" if isinstance(metric, (int, float)) else inert(metric)


def _level(row: AtRestRow) -> str:
    return inert(row.level or "—")


def matrix(rows: list[AtRestRow]) -> Table:
    """A rich table of rows × cases, controls, metric and level."""
    table = Table(title="memlab verdict matrix", header_style="bold", title_justify="left")
    table.add_column("row", no_wrap=True)
    table.add_column("point")
    for cid in CASE_IDS:
        table.add_column(cid, justify="center")
    for col in ("C1", "C2", "metric", "level"):
        table.add_column(col, justify="center")
    for row in _sorted(rows):
        cells = [cell_text(row.cell(cid)) for cid in CASE_IDS]
        table.add_row(inert(row.row), inert(row.detection_point),
                      *[f"[{style}]{text}[/]" for text, style in cells], *_controls(row), _metric(row), _level(row))
    return table


def compact_matrix(rows: list[AtRestRow]) -> Table:
    """The matrix in about 60 columns besides the row names: a column per group of cases (T1-T5,
    T6-T8, T9, T10) holding one code per case, in case order (``RRRRA``); row names wrap."""
    table = compact_table("memlab verdict matrix")
    table.add_column("row", overflow="fold")
    table.add_column("point")
    for group in GROUPS:
        table.add_column(group)
    for col in ("C1", "C2", "metric", "level"):
        table.add_column(col)
    for row in _sorted(rows):
        groups = [VERDICT_CODES.run(cell_text(row.cell(cid))[0] for cid in ids) for ids in GROUPS.values()]
        table.add_row(inert(row.row), inert(row.detection_point), *groups, *_controls(row), _metric(row),
                      _level(row))
    return table


def problems(rows: list[AtRestRow]) -> list[str]:
    """One line per row that is not evaluable and per distinct error reason (cells grouped)."""
    out = []
    for row in rows:
        name = f"{row.row}@{row.detection_point}"
        if not row.evaluable:
            out.append(f"{name}: not evaluable: {row.not_evaluable_reason}")
        by_reason: dict[str, list[str]] = {}
        for cid in CASE_IDS:
            cell = row.cell(cid)
            if cell.verdict == "error":
                by_reason.setdefault(str(cell.reason), []).append(cid)
        for reason, ids in by_reason.items():
            out.append(f"{name} {','.join(ids)}: {reason}")
    return out


def print_matrix(rows: list[AtRestRow], console: Console | None = None) -> None:
    """Print the matrix (compact where the full one does not fit) and a legend, then any errors."""
    console = console or Console()
    shown = {cell_text(row.cell(cid))[0] for row in rows for cid in CASE_IDS}
    if not print_fitting(console, matrix(rows), compact_matrix(rows), [f"[dim]{VERDICT_CODES.key(shown)}[/]"]):
        console.print(f"[dim]{LEGEND}{NOT_MEASURED_LEGEND if 'n/m' in shown else ''}[/]")
    for line in problems(rows):  # a reason quotes logs and paths ("[/vol/store]"): text, not markup
        console.print(f"[magenta]![/] {inert(line)}")
