"""What every report format says the same way: row keys, labels, metric text, run facts."""

from __future__ import annotations

from typing import Any

from lab.cases import BY_ID, CONTROLS
from lab.report.terminal import cell_text

LEGEND = ("REJ refused (pass) · REP reported at read (pass) · REP·a reported at audit only (half credit) · "
          "ACC accepted (fail) · ERR harness error (not counted) · n/a not expressible (not counted)")


def row_key(row: dict[str, Any]) -> str:
    """``<row>@<detection point>``, the name of a row everywhere."""
    return f"{row['row']}@{row.get('detection_point')}"


def cell_label(cell: dict[str, Any]) -> str:
    """The short label of a cell (REJ, REP, REP·a, ACC, ERR, n/a)."""
    return cell_text(cell)[0]


def case_title(cid: str) -> str:
    """``T1 content tamper``."""
    case = BY_ID.get(cid)
    return f"{cid} {case.name}" if case else cid


def control_title(cid: str) -> str:
    """``C1 no-op reload``."""
    return f"{cid} {CONTROLS.get(cid, '').split(':')[0]}".strip()


def metric_text(value: Any) -> str:
    """A metric or rate as ``0.80``; ``—`` when there is none."""
    return "—" if value is None else f"{value:.2f}"


def run_facts(rows: list[dict[str, Any]], run: dict[str, Any]) -> list[tuple[str, str]]:
    """``(label, value)`` facts a report heads with: run, date, lab, method revision, runtime."""
    first = rows[0] if rows else {}
    lab = run.get("lab") or first.get("lab") or {}
    commit = lab.get("commit") or "unknown"
    facts = [("run", str(run.get("run_id") or first.get("run_id"))),
             ("date", str(run.get("started") or first.get("date"))),
             ("lab", f"memlab {lab.get('version')} commit {commit}{' (dirty)' if lab.get('dirty') else ''}"),
             ("method revision", str(first.get("method_revision") or run.get("method_revision"))),
             ("runtime", str(run.get("runtime") or (first.get("runtime") or {}).get("runtime")))]
    source = run.get("analyzed_from")
    if source:
        facts.append(("analyzed from", f"{source.get('path')} (run {source.get('run_id')})"))
    return facts
