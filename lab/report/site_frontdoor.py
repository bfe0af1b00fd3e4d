"""The front door on a SUT's site page and in the index: per position its heading (level, status,
served and leaked), how it was measured, its family × channel cells and its isolation probes, in the
words every front-door report uses (``lab.report.frontdoor_words``), with the at-rest T6 verdict of the
same SUT beside the probes."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from lab.frontdoor.channels import CHANNELS
from lab.frontdoor.fixture_types import FAMILIES
from lab.frontdoor.outcome import outcome
from lab.frontdoor.results import FrontdoorResult
from lab.frontdoor.saved import RunRecord
from lab.report.common import cell_label
from lab.report.frontdoor_words import cell_text, heading, probe_text, provenance_lines

if TYPE_CHECKING:
    from lab.judge.row import AtRestRow


def _table(result: FrontdoorResult) -> str:
    head = "".join(f"<th>{c.value}</th>" for c in CHANNELS)
    rows = []
    for family in FAMILIES:
        cells = {c.channel: c for c in result.cells() if c.family is family}
        if cells:
            tds = "".join(f"<td>{escape(cell_text(cells[ch]))}</td>" if ch in cells else "<td>–</td>" for ch in CHANNELS)
            rows.append(f"<tr><th>{escape(family.value)}</th>{tds}</tr>")
    probes = "; ".join(f"{escape(t.probe)} {escape(probe_text(t))}" for t in result.probes())
    return (f"<table><tr><th>family</th>{head}</tr>{''.join(rows)}</table>"
            f"<p class=\"muted\">isolation: {probes or 'no probe run'}</p>")


def t6_line(at_rest: list[AtRestRow]) -> str:
    """The at-rest T6 verdict of each detection point (another context's record replayed into this one at
    rest), shown beside the read-path isolation probes; '' for a SUT with no at-rest rows."""
    verdicts = [f"{cell_label(r.cells['T6'])} at {r.detection_point}" for r in at_rest if "T6" in r.cells]
    return (f"<p class=\"muted\">at rest, beside the probes: T6 (another context's record replayed into this "
            f"one, store access) {escape(', '.join(verdicts))}</p>") if verdicts else ""


def section(measured: list[tuple[FrontdoorResult, RunRecord]], at_rest: list[AtRestRow] = ()) -> str:
    """The SUT page's front-door section (``measured``: each position's row and its run; ``at_rest``: the
    SUT's at-rest rows, whose T6 verdict stands beside the read-path probes)."""
    parts = [t6_line(list(at_rest))]
    for result, run in measured:
        lines = "".join(f"<p class=\"muted\">{escape(line)}</p>" for line in provenance_lines(result))
        parts.append(f"<h3>{escape(heading(result, run, outcome(result)))}</h3>{lines}{_table(result)}")
    return "".join(parts)


def summary(measured: list[tuple[FrontdoorResult, RunRecord]]) -> str:
    """The index's words for a SUT's front door: each position's level and status."""
    return ", ".join(f"{r.position} {outcome(r).level} {outcome(r).status}" for r, _ in measured) or "no front door"
