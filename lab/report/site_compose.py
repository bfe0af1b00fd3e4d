"""Composition in HTML: per row and detection point the sequences tried, the count per outcome, what was
left out and why, and each finding with each of its moves alone, beside (never inside) the at-rest matrix.
One renderer for both pages that show it: a SUT's site page and a set's own report.html."""

from __future__ import annotations

from html import escape

from lab.compose.results import OUTCOMES, ComposeRow
from lab.report.compose import moves_of

SAID = {True: "lands", False: "does not land", None: "no verdict"}


def summary(rows: list[ComposeRow]) -> str:
    """One line for the index: the findings per detection point."""
    return ", ".join(f"{r.detection_point} {len(r.findings)} finding(s) in {len(r.sequences)}" for r in rows)


def section(rows: list[ComposeRow]) -> str:
    """The composition's section body: each row's counts, what it left out, and its findings."""
    parts = ['<p class="muted">Sequences of moves around each edit (a genuine write, a restart, the SUT\'s erase '
             'and audit), kept as a finding only where the sequence lands and each move alone, on the same seed, '
             'does not (docs/composition.md). Outside the metric and the levels.</p>']
    for row in rows:
        counts = ", ".join(f"{row.counts[o]} {o}" for o in OUTCOMES)
        parts.append(f"<h3>{escape(row.row)}@{escape(row.detection_point)}: {len(row.sequences)} sequences of "
                     f"{moves_of(row)}</h3><p>{escape(counts)}</p>")
        if row.skipped:
            parts.append('<p class="muted">Left out: ' + "; ".join(
                f"<code>{escape(s.move)}</code> ({escape(s.reason)})" for s in row.skipped) + "</p>")
        if not row.findings:
            continue
        lines = "".join(
            f"<tr><td><code>{escape('+'.join(s.sequence))}</code></td><td>{escape(s.verdict)}: {escape(s.reason)}"
            "</td><td>" + "; ".join(f'<span title="{escape(x.reason)}">{escape(x.move)} alone {SAID[x.landed]}</span>'
                                    for x in s.singles)
            + f"</td><td><code>{escape(s.trial)}</code></td></tr>" for s in row.findings)
        parts.append('<table class="lg"><tr><th>sequence</th><th>verdict: why it lands</th><th>each move alone</th>'
                     f"<th>trial</th></tr>{lines}</table>")
    return "".join(parts)


def block(rows: list[ComposeRow]) -> str:
    """The section under its heading (anchor ``composition``), or nothing for no composition."""
    return f'<h2 id="composition">Composition</h2>{section(rows)}' if rows else ""
