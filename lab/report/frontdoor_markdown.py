"""The front door's Markdown report: per row its cells (every verdict counted), level, findings and
isolation probes, and the legend. Every text from the set is inert and escaped (it renders as itself)."""

from __future__ import annotations

from typing import Any

from lab.frontdoor.channels import CHANNELS
from lab.frontdoor.fixture_types import FAMILIES
from lab.frontdoor.outcome import outcome, run_status
from lab.frontdoor.probes import PROBES
from lab.frontdoor.results import FrontdoorResult
from lab.frontdoor.saved import RunRecord
from lab.report.frontdoor_words import (LEGEND, cell_reason, cell_text, counts_text, heading, probe_reason,
                                        probe_text, provenance_lines, run_facts)
from lab.report.markdown_text import esc as _esc
ABOUT = {p.name: p.about for p in PROBES}


def _row(result: FrontdoorResult, run: RunRecord) -> list[str]:
    done = outcome(result)
    lines = [f"## {_esc(heading(result, run, done))}", "", *(f"{_esc(line)}  " for line in provenance_lines(result)),
             "", "| family | " + " | ".join(c.value for c in CHANNELS)
             + " |", "|---|" + "---|" * len(CHANNELS)]
    for family in FAMILIES:
        cells = {c.channel: c for c in result.cells() if c.family is family}
        if cells:
            texts = [f"**{_esc(cell_text(cells[ch]))}** ({_esc(counts_text(cells[ch]))})" if ch in cells else "–"
                     for ch in CHANNELS]
            lines.append(f"| {_esc(family.value)} | " + " | ".join(texts) + " |")
    reasons = [f"- {_esc(c.family.value)} × {c.channel.value}: no verdict: {_esc(cell_reason(result, c))}"
               for c in result.cells() if c.no_verdict]
    lines += ["", *reasons] if reasons else []
    lines += ["", "| isolation probe | what it tries | result |", "|---|---|---|"]
    lines += [f"| {_esc(t.probe)} | {_esc(ABOUT.get(t.probe, ''))} | **{_esc(probe_text(t))}**"
              + (f" ({_esc(probe_reason(result, t))})" if t.no_verdict else "") + " |" for t in result.probes()]
    lines += ["", *(f"- finding: {_esc(f)}" for f in done.findings)] if done.findings else ["", "No finding."]
    return lines


def render(results: list[FrontdoorResult], run: RunRecord) -> str:
    """The whole Markdown report."""
    status = run_status(outcome(r) for r in results)
    lines = ["# memlab front door", "", _esc(run_facts(run, status))]
    for result in results:
        lines += ["", *_row(result, run)]
    lines += ["", "How to read this report:", "", *(f"- **{_esc(t)}**: {_esc(m)}" for t, m in LEGEND), ""]
    return "\n".join(lines)
