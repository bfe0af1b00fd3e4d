"""``memlab compare`` in the terminal: changed cells, and incomparable rows side by side."""

from __future__ import annotations

import json
from typing import Any, Iterator

from rich.console import Console
from rich.table import Table

from lab.cases import CASE_IDS
from lab.judge.row import AtRestRow
from lab.resultset.compare import Comparison, Pair
from lab.report.inert import inert
from lab.report.terminal import cell_text


def leaf_differences(a: Any, b: Any, path: str = "") -> Iterator[tuple[str, Any, Any]]:
    """``(dotted path, a, b)`` for each leaf where two JSON values differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            yield from leaf_differences(a.get(k), b.get(k), f"{path}.{k}" if path else str(k))
    elif a != b:
        yield path, a, b


def _short(value: Any, width: int = 60) -> str:
    text = json.dumps(value, sort_keys=True, default=str) if not isinstance(value, str) else value
    return text if len(text) <= width else text[: width - 1] + "…"


def _verdict_line(row: AtRestRow) -> list[str]:
    out = []
    for cid in CASE_IDS:
        text, style = cell_text(row.cell(cid))
        out.append(f"[{style}]{text}[/]")
    return out


def _side_by_side(pair: Pair, labels: tuple[str, str], console: Console) -> None:
    table = Table(title=f"{inert(pair.key)}: not comparable, side by side", title_justify="left", header_style="bold")
    table.add_column("set")
    for cid in CASE_IDS:
        table.add_column(cid, justify="center")
    table.add_column("metric")
    table.add_column("level")
    for label, row in zip(labels, (pair.a, pair.b)):
        value = row.metric
        metric = "—" if value is None else f"{value:.2f}" if isinstance(value, (int, float)) else inert(value)
        table.add_row(inert(label), *_verdict_line(row), metric, inert(row.level or "—"))
    console.print(table)
    for name, (a, b) in pair.differing.items():
        for path, x, y in leaf_differences(a, b, name):
            console.print(f"  [yellow]differs[/] {inert(path)}: {inert(_short(x))}  |  {inert(_short(y))}")


def _libraries_basis(pair: Pair, console: Console) -> None:
    """What the pair's libraries were judged on, and the package differences that were not judged."""
    console.print(f"  {inert(pair.key)}: libraries judged on {inert(pair.basis)}")
    if pair.not_judged:
        shown = ", ".join(f"{name} {a or 'absent'} | {b or 'absent'}" for name, (a, b) in pair.not_judged.items())
        console.print(f"  [dim]not judged (outside the SUT's dependency closure):[/] {inert(shown)}")


def render(result: Comparison, labels: tuple[str, str], console: Console) -> None:
    """Print a comparison: comparable rows first, then incomparable pairs, then one-sided rows."""
    comparable = [p for p in result.pairs if p.comparable]
    table = Table(title=f"comparable rows: {labels[0]} -> {labels[1]}", title_justify="left", header_style="bold")
    for col in ("row", "case", labels[0], labels[1]):
        table.add_column(inert(col))
    for pair in comparable:
        for cid, a, b in pair.changed:
            table.add_row(inert(pair.key), cid, inert(a), f"[bold]{inert(b)}[/]")
        for cid, cond, a, b in pair.beside:
            table.add_row(inert(pair.key), cid, inert(a), f"{inert(b)} [yellow]({inert(cond)} differs: side by side)[/]")
        if not pair.changed and not pair.beside:
            table.add_row(inert(pair.key), "all", f"{pair.unchanged} unchanged", "[dim]same[/]")
    if comparable:
        console.print(table)
        for pair in comparable:
            _libraries_basis(pair, console)
    for pair in result.pairs:
        if not pair.comparable:
            _side_by_side(pair, labels, console)
            _libraries_basis(pair, console)
    for side, keys in ((labels[0], result.only_a), (labels[1], result.only_b)):
        for key in keys:
            console.print(f"only in {inert(side)}: {inert(key)}")
    changed = sum(len(p.changed) for p in comparable)
    apart = sum(1 for p in result.pairs if not p.comparable)
    console.print(f"{len(comparable)} comparable row(s), {changed} changed cell(s); "
                  f"{apart} row(s) side by side (conditions differ); "
                  f"{len(result.only_a)} only in A, {len(result.only_b)} only in B")
