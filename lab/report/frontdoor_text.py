"""The front door's plain-text report, at most 80 columns: per row its family × channel cells with their
figures, the level and the isolation probes; then the legend. ``report.txt`` and the terminal both."""

from __future__ import annotations

import textwrap

from lab.frontdoor.channels import CHANNELS
from lab.frontdoor.fixture_types import FAMILIES
from lab.frontdoor.outcome import outcome, run_status
from lab.frontdoor.results import FrontdoorResult
from lab.frontdoor.saved import RunRecord
from lab.report.frontdoor_words import (cell_reason, cell_text, heading, legend_line, probe_reason, probe_text,
                                        provenance_lines, run_facts)
from lab.report.inert import inert

WIDTH = 80
FAMILY, CHANNEL, PROBE = 18, 20, 39


def _wrapped(text: str, indent: str = "") -> list[str]:
    return textwrap.wrap(text, WIDTH, subsequent_indent=indent, break_on_hyphens=False) or [""]


def _cells(result: FrontdoorResult) -> list[str]:
    lines = ["family".ljust(FAMILY) + "".join(c.value.ljust(CHANNEL) for c in CHANNELS).rstrip()]
    for family in FAMILIES:
        cells = {c.channel: c for c in result.cells() if c.family is family}
        if cells:
            texts = [cell_text(cells[ch]) if ch in cells else "-" for ch in CHANNELS]
            lines.append((family.value.ljust(FAMILY) + "".join(t.ljust(CHANNEL) for t in texts)).rstrip())
    return lines


def _probes(result: FrontdoorResult) -> list[str]:
    tallies = result.probes()
    if not tallies:
        return ["isolation: no probe run"]
    leaked = sum(1 for t in tallies if t.leaks)
    entries = [f"{inert(t.probe, markup=False):<24}{probe_text(t)}" for t in tallies]
    lines = [f"isolation: {len(tallies)} probe(s), {leaked} leaked (cases leaked / cases)"]
    if max(map(len, entries)) < PROBE:  # two a line
        return lines + [("  " + a.ljust(PROBE) + b).rstrip() for a, b in zip(entries[::2], entries[1::2] + [""])]
    return lines + [f"  {e}" for e in entries]


def _why_na(result: FrontdoorResult) -> list[str]:
    """Each reason a cell or probe has no verdict (its first fixture's or case's), with how many share it."""
    reasons: dict[str, list[str]] = {}
    for c in result.cells():
        if c.no_verdict:
            reasons.setdefault(cell_reason(result, c), []).append("cell")
    for t in result.probes():
        if t.no_verdict:
            reasons.setdefault(probe_reason(result, t), []).append("probe")
    return [f"{reason} ({', '.join(f'{kinds.count(k)} {k}(s)' for k in dict.fromkeys(kinds))})"
            for reason, kinds in reasons.items()]


def render(results: list[FrontdoorResult], run: RunRecord) -> str:
    """The whole text report (each line at most 80 columns; a longer name is wrapped)."""
    outcomes = [outcome(r) for r in results]
    lines = _wrapped(f"memlab front door · {run_facts(run, run_status(outcomes))}", "  ")
    for result, done in zip(results, outcomes):
        lines += ["", *_wrapped(heading(result, run, done), "  ")]
        lines += [wrapped for line in provenance_lines(result) for wrapped in _wrapped(line, "  ")]
        lines += [*_cells(result), *_probes(result)]
        lines += [wrapped for line in _why_na(result) for wrapped in _wrapped(f"  why n/a: {line}", "    ")]
    lines += ["", *_wrapped(legend_line(), "  ")]
    return "\n".join(lines) + "\n"
