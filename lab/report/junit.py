"""JUnit XML: a test suite per row, a test case per cell, so CI systems show failures natively.

ACCEPTED is a ``<failure>``, a harness ``error`` an ``<error>``, ``n/a`` ``<skipped>``;
REJECTED and REPORTED pass (an audit-only REPORTED passes with a note: half credit).
Controls C1 and C2 are test cases too; a failed control is an ``<error>`` (the row is
not evaluable, so none of its verdicts count).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

from lab.cases import CASE_IDS
from lab.cases.revisions import NOT_MEASURED
from lab.report.common import case_title, control_title, metric_text, row_key, run_facts
from lab.report.junit_xml import clean as _clean, count, document, suite_of
from lab.resultset.run_record import RunRecord

if TYPE_CHECKING:
    from lab.judge.row import AtRestRow, RowCell


def _case(suite: ET.Element, classname: str, name: str) -> ET.Element:
    return ET.SubElement(suite, "testcase", classname=classname, name=name, time="0")


def _cell_case(suite: ET.Element, key: str, cid: str, cell: RowCell) -> str:
    case = _case(suite, key, case_title(cid))
    verdict, reason = cell.verdict, _clean(cell.reason or "")
    statements = _clean("\n".join(map(str, (cell.evidence and cell.evidence.statements) or [])), lines=True)
    if verdict == "ACCEPTED":
        ET.SubElement(case, "failure", message=f"ACCEPTED: {reason}", type="ACCEPTED").text = statements
        return "failures"
    if verdict == "error":
        ET.SubElement(case, "error", message=reason, type="harness-error").text = statements
        return "errors"
    if verdict == "n/a":
        ET.SubElement(case, "skipped", message=f"not applicable: {reason}")
        return "skipped"
    if verdict == NOT_MEASURED:  # a case the set's method revision lacks: never a pass
        ET.SubElement(case, "skipped", message=reason)
        return "skipped"
    note = " (audit point only: half credit)" if cell.detection_point == "audit" else ""
    ET.SubElement(case, "system-out").text = _clean(f"{verdict}{note}: {reason}")
    return "passed"


def render(rows: list[AtRestRow], run: RunRecord) -> str:
    """The JUnit XML document as text."""
    root = ET.Element("testsuites", name="memlab")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for row in rows:
        key = _clean(row_key(row))
        suite = suite_of(root, key, run_facts(rows, run) + [("metric", metric_text(row.metric)),
                                                           ("level", str(row.level or "—"))])
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "passed": 0}
        for cid in ("C1", "C2"):
            control = row.controls[cid]
            case = _case(suite, key, control_title(cid))
            counts["tests"] += 1
            if not control.ok:
                ET.SubElement(case, "error", message=_clean(f"not evaluable: {control.reason}"), type="control")
                counts["errors"] += 1
        for cid in CASE_IDS:
            counts[_cell_case(suite, key, cid, row.cell(cid))] += 1
            counts["tests"] += 1
        count(suite, counts, totals)
    return document(root, totals)
