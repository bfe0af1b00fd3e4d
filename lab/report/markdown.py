"""The Markdown report: run facts, the matrix, group rates, each row's setting and cells."""

from __future__ import annotations

from typing import Any

from lab.cases import CASE_IDS, GROUPS
from lab.report.common import LEGEND, case_title, cell_label, metric_text, row_key, run_facts


def _esc(value: Any) -> str:
    """Text safe inside a Markdown table cell."""
    return str(value).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").replace("\r", " ")


def _table(header: list[str], lines: list[list[Any]]) -> list[str]:
    out = ["| " + " | ".join(_esc(h) for h in header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(_esc(c) for c in line) + " |" for line in lines]
    return out


def _control(row: dict[str, Any], cid: str) -> str:
    return "ok" if row["controls"][cid]["ok"] else "FAIL"


def _row_section(row: dict[str, Any]) -> list[str]:
    sut = row.get("sut") or {}
    config = ", ".join(f"{k}={v}" for k, v in (row.get("configuration") or {}).items())
    out = [f"### {row_key(row)}", "", f"{row.get('title') or ''}".strip(), "",
           f"- SUT: {sut.get('package')} {sut.get('version')} (commit {sut.get('commit') or 'n/a'})",
           f"- configuration: {config or '—'}",
           f"- DUT boundary: {row.get('dut_boundary') or '—'}",
           f"- position: {row.get('position')}; SUT stopped during edits: {row.get('sut_stopped_during_edits')}",
           f"- metric {metric_text(row.get('metric'))}, level {row.get('level') or '—'}"]
    if not row.get("evaluable"):
        out.append(f"- **not evaluable**: {row.get('not_evaluable_reason')}")
    out.append("")
    cells = [[case_title(cid), row["cells"][cid].get("verdict"), row["cells"][cid].get("observation_class") or "—",
              _variants(row["cells"][cid]), row["cells"][cid].get("reason") or ""] for cid in CASE_IDS]
    out += _table(["case", "verdict", "class", "variants (decided by)", "reason"], cells)
    return out + [""]


def _variants(cell: dict[str, Any]) -> str:
    """The variants a cell was taken over, the one that decided it first: ``3: place=body ACCEPTED; ...``."""
    listing = cell.get("variants") or []
    if len(listing) < 2:
        return "—"
    decided = cell.get("decided_by")
    ordered = sorted(listing, key=lambda v: v.get("variant") != decided)
    return f"{len(listing)}: " + "; ".join(f"{v.get('variant')} {v.get('verdict')}" for v in ordered)


def render(rows: list[dict[str, Any]], run: dict[str, Any]) -> str:
    """The whole report as Markdown text."""
    out = ["# memlab result set", ""]
    out += [f"- {label}: {_esc(value)}" for label, value in run_facts(rows, run)]
    out += ["", "## Verdict matrix", ""]
    header = ["row", *CASE_IDS, "C1", "C2", "metric", "level"]
    out += _table(header, [[row_key(r), *[cell_label(r["cells"][c]) for c in CASE_IDS], _control(r, "C1"),
                            _control(r, "C2"), metric_text(r.get("metric")), r.get("level") or "—"] for r in rows])
    out += ["", LEGEND, "", "## Group rates", ""]
    out += _table(["row", *GROUPS], [[row_key(r), *[metric_text((r.get("groups") or {}).get(g)) for g in GROUPS]]
                                     for r in rows])
    out += ["", "## Rows", ""]
    for row in rows:
        out += _row_section(row)
    return "\n".join(out).rstrip() + "\n"
