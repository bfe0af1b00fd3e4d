"""The Markdown report: run facts, the matrix, group rates, each row's setting and cells. Every text
from the set is inert (lab.report.inert) and escaped, so it renders as itself: no line, table cell,
link, code span or HTML tag of its own."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from lab.cases import CASE_IDS, GROUPS
from lab.report.common import LEGEND, case_title, cell_label, metric_text, row_key, run_facts
from lab.report.markdown_text import esc
from lab.resultset.run_record import RunRecord

if TYPE_CHECKING:
    from lab.judge.row import AtRestRow, RowCell


def _table(header: list[str], lines: list[list[Any]]) -> list[str]:
    out = ["| " + " | ".join(esc(h) for h in header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(esc(c) for c in line) + " |" for line in lines]
    return out


def _control(row: AtRestRow, cid: str) -> str:
    return "ok" if row.controls[cid].ok else "FAIL"


def _row_section(row: AtRestRow) -> list[str]:
    sut = row.sut or {}
    config = ", ".join(f"{k}={v}" for k, v in (row.configuration or {}).items())
    out = [f"### {esc(row_key(row))}", "", esc(f"{row.title or ''}".strip()), "",
           esc(f"- SUT: {sut.get('package')} {sut.get('version')} (commit {sut.get('commit') or 'n/a'})"),
           f"- configuration: {esc(config or '—')}",
           f"- DUT boundary: {esc(row.dut_boundary or '—')}",
           esc(f"- position: {row.position}; SUT stopped during edits: {row.sut_stopped_during_edits}"),
           f"- metric {esc(metric_text(row.metric))}, level {esc(row.level or '—')}"]
    if not row.evaluable:
        out.append(f"- **not evaluable**: {esc(row.not_evaluable_reason)}")
    out.append("")
    cells = [[case_title(cid), row.cell(cid).verdict, row.cell(cid).observation_class or "—",
              _variants(row.cell(cid)), row.cell(cid).reason or ""] for cid in CASE_IDS]
    out += _table(["case", "verdict", "class", "variants (decided by)", "reason"], cells)
    return out + [""]


def _variants(cell: RowCell) -> str:
    """The variants a cell was taken over, the one that decided it first: ``3: place=body ACCEPTED; ...``."""
    listing = cell.variants or []
    if len(listing) < 2:
        return "—"
    ordered = sorted(listing, key=lambda v: v.variant != cell.decided_by)
    return f"{len(listing)}: " + "; ".join(f"{v.variant} {v.verdict}" for v in ordered)


def render(rows: list[AtRestRow], run: RunRecord, compose: Sequence[Any] = ()) -> str:
    """The whole report as Markdown text; ``compose`` (the set's compose rows) adds its composition."""
    out = ["# memlab result set", ""]
    out += [f"- {label}: {esc(value)}" for label, value in run_facts(rows, run)]
    out += ["", "## Verdict matrix", ""]
    header = ["row", *CASE_IDS, "C1", "C2", "metric", "level"]
    out += _table(header, [[row_key(r), *[cell_label(r.cell(c)) for c in CASE_IDS], _control(r, "C1"),
                            _control(r, "C2"), metric_text(r.metric), r.level or "—"] for r in rows])
    out += ["", LEGEND, "", "## Group rates", ""]
    out += _table(["row", *GROUPS], [[row_key(r), *[metric_text((r.groups or {}).get(g)) for g in GROUPS]]
                                     for r in rows])
    out += ["", "## Rows", ""]
    for row in rows:
        out += _row_section(row)
    if compose:
        from lab.report.compose import markdown as composition
        out += [composition(compose, level=2)]
    return "\n".join(out).rstrip() + "\n"
