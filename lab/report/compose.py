"""A composition's reports: the terminal lines (80 columns) and Markdown, rendered from its saved rows.

Findings stay outside the method's metric and levels (they are beyond the ten edits): a report shows
them beside the row's matrix, never in it.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable

from lab.compose.results import OUTCOMES, ComposeRow
from lab.report.inert import inert
from lab.report.markdown_text import esc

WIDTH = 80


def fit(text: str, width: int, indent: int = 0) -> list[str]:
    """``text`` wrapped to ``width`` columns, its later lines indented two more than its first."""
    return textwrap.wrap(text, width, initial_indent=" " * indent, subsequent_indent=" " * (indent + 2),
                         break_long_words=True, break_on_hyphens=False) or [""]


def moves_of(row: ComposeRow) -> str:
    """``2 moves``, or ``2 to 3 moves``; ``, pairs of edits too`` where sequences may hold two edits;
    ``, restore moves too`` where the restore cases were offered as moves."""
    moves = f"{row.length} moves" if row.length == 2 else f"2 to {row.length} moves"
    moves = moves if row.edits == 1 else f"{moves}, pairs of edits too"
    return f"{moves}, restore moves too" if row.restores else moves


def _alone(seq) -> str:
    said = {True: "lands", False: "does not land", None: "no verdict"}
    return "; ".join(f"{s.move} alone {said[s.landed]}" for s in seq.singles)


def text_lines(rows: Iterable[ComposeRow], width: int = WIDTH) -> list[str]:
    """Per compose row: what was searched, the count per outcome, and each finding with its singles."""
    out = []
    for row in rows:
        counts = ", ".join(f"{row.counts[o]} {o}" for o in OUTCOMES)
        out += fit(inert(f"composition {row.row}@{row.detection_point}: {len(row.sequences)} sequences of "
                         f"{moves_of(row)}: {counts}"), width)
        if row.skipped:
            out += fit(inert("left out: " + ", ".join(s.move for s in row.skipped)), width, 2)
        for seq in row.findings:
            out += fit(inert(f"FINDING {'+'.join(seq.sequence)}: {seq.reason}"), width, 2)
            out += fit(inert(_alone(seq)), width, 4)
    return out


def markdown(rows: Iterable[ComposeRow], level: int = 1) -> str:
    """The composition as Markdown, its heading at ``level`` (2 inside report.md): a table per row of its
    findings, and the counts. Text from the set is escaped as the Markdown report escapes it."""
    top = "#" * level
    parts = [f"{top} Composition: sequences of moves that land where no single move does", ""]
    for row in rows:
        parts += [f"{top}# {esc(row.row)} at {esc(row.detection_point)}", "",
                  f"{len(row.sequences)} sequences of {moves_of(row)}{', one edit each' if row.edits == 1 else ''} "
                  f"(run {esc(str(row.run_id))}): "
                  + ", ".join(f"{row.counts[o]} {o}" for o in OUTCOMES) + ".", ""]
        if row.skipped:
            parts += ["Left out: " + "; ".join(f"{esc(s.move)} ({esc(s.reason)})" for s in row.skipped) + ".", ""]
        if not row.findings:
            parts += ["No finding.", ""]
            continue
        parts += ["| sequence | why it lands | each move alone | trial |", "|---|---|---|---|"]
        for seq in row.findings:
            cells = ["+".join(seq.sequence), seq.reason, _alone(seq), seq.trial]
            parts.append("| " + " | ".join(esc(c) for c in cells) + " |")
        parts.append("")
    return "\n".join(parts)
