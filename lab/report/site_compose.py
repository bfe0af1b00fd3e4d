"""Composition on a SUT's site page and in the index: per detection point the sequences tried, the count
per outcome, and each finding with each of its moves alone, beside (never inside) the at-rest matrix."""

from __future__ import annotations

from html import escape

from lab.compose.results import OUTCOMES, ComposeRow
from lab.report.compose import moves_of

SAID = {True: "lands", False: "does not land", None: "no verdict"}


def summary(rows: list[ComposeRow]) -> str:
    """One line for the index: the findings per detection point."""
    return ", ".join(f"{r.detection_point} {len(r.findings)} finding(s) in {len(r.sequences)}" for r in rows)


def section(rows: list[ComposeRow]) -> str:
    """The SUT page's composition section."""
    parts = ['<p class="muted">Sequences of moves around each edit (a genuine write, a restart, the SUT\'s erase '
             'and audit), kept as a finding only where the sequence lands and each move alone, on the same seed, '
             'does not (docs/composition.md). Outside the metric and the levels.</p>']
    for row in rows:
        counts = ", ".join(f"{row.counts[o]} {o}" for o in OUTCOMES)
        parts.append(f"<h3>{escape(row.detection_point)}: {len(row.sequences)} sequences of {moves_of(row)}"
                     f"</h3><p>{escape(counts)}</p>")
        if not row.findings:
            continue
        lines = "".join(
            f"<tr><td><code>{escape('+'.join(s.sequence))}</code></td><td>{escape(s.reason)}</td><td>"
            + "; ".join(f"{escape(x.move)} alone {SAID[x.landed]}" for x in s.singles)
            + f"</td><td><code>{escape(s.trial)}</code></td></tr>" for s in row.findings)
        parts.append("<table><tr><th>sequence</th><th>why it lands</th><th>each move alone</th><th>trial</th></tr>"
                     f"{lines}</table>")
    return "".join(parts)
