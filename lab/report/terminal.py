"""The verdict matrix in the terminal: one glance, colour, one line per row."""

from __future__ import annotations

import sys
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from lab.cases import CASE_IDS

_SHORT = {"REJECTED": ("REJ", "bold green"), "REPORTED": ("REP", "green"), "ACCEPTED": ("ACC", "bold red"),
          "n/a": ("n/a", "dim"), "error": ("ERR", "bold magenta")}


def stdout_console() -> Console:
    """The console for results: a pipe or a file gets the whole matrix width, not 80 columns."""
    return Console() if sys.stdout.isatty() else Console(width=170)


def cell_text(cell: dict[str, Any]) -> tuple[str, str]:
    """Short label and style of a cell; audit-time reports are marked ``REP·a``."""
    label, style = _SHORT.get(cell.get("verdict"), ("?", "magenta"))
    if cell.get("verdict") == "REPORTED" and cell.get("detection_point") == "audit":
        return "REP·a", "yellow"
    return label, style


def matrix(rows: list[dict[str, Any]]) -> Table:
    """A rich table of rows × cases, controls, metric and level."""
    table = Table(title="memlab verdict matrix", header_style="bold", title_justify="left")
    table.add_column("row", no_wrap=True)
    table.add_column("point")
    for cid in CASE_IDS:
        table.add_column(cid, justify="center")
    for col in ("C1", "C2", "metric", "level"):
        table.add_column(col, justify="center")
    for row in sorted(rows, key=lambda r: (r["row"], r["detection_point"])):
        cells = [cell_text(row["cells"][cid]) for cid in CASE_IDS]
        controls = [("ok", "green") if row["controls"][c]["ok"] else ("FAIL", "bold red") for c in ("C1", "C2")]
        metric = "—" if row.get("metric") is None else f"{row['metric']:.2f}"
        table.add_row(row["row"], row["detection_point"],
                      *[f"[{style}]{text}[/]" for text, style in cells + controls],
                      metric, row.get("level") or "—")
    return table


def problems(rows: list[dict[str, Any]]) -> list[str]:
    """One line per row that is not evaluable and per distinct error reason (cells grouped)."""
    out = []
    for row in rows:
        name = f"{row['row']}@{row['detection_point']}"
        if not row.get("evaluable"):
            out.append(f"{name}: not evaluable: {row.get('not_evaluable_reason')}")
        by_reason: dict[str, list[str]] = {}
        for cid in CASE_IDS:
            cell = row["cells"][cid]
            if cell.get("verdict") == "error":
                by_reason.setdefault(str(cell.get("reason")), []).append(cid)
        for reason, ids in by_reason.items():
            out.append(f"{name} {','.join(ids)}: {reason}")
    return out


def print_matrix(rows: list[dict[str, Any]], console: Console | None = None) -> None:
    """Print the matrix and a legend, then any errors."""
    console = console or Console()
    console.print(matrix(rows))
    console.print("[dim]REJ refused · REP reported at read · REP·a reported at audit only (half credit) · "
                  "ACC accepted (fail) · ERR harness error (not counted) · n/a not expressible[/]")
    for line in problems(rows):  # a reason quotes logs and paths ("[/vol/store]"): text, not markup
        console.print(f"[magenta]![/] {escape(line)}")
