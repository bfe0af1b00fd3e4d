"""The front door as JUnit XML: a suite per row, a test case per cell and per isolation probe.

A cell that served the canary and a probe that leaked are ``<failure>``s; a cell or probe without a
verdict is ``<skipped>`` with its reason, and so is a beyond-reach cell (reported, never a pass); a
cell or probe that held passes, with its verdicts in ``<system-out>``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from lab.frontdoor.outcome import outcome
from lab.frontdoor.results import FrontdoorResult
from lab.frontdoor.saved import RunRecord
from lab.frontdoor.verdicts import NA, Cell, Leak, Tally, Verdict
from lab.report.frontdoor_words import (BEYOND_REACH, cell_reason, cell_text, counts_text, expected, probe_reason,
                                        probe_text)
from lab.report.junit_xml import clean as _clean, count, document, suite_of


def _served(result: FrontdoorResult, cell: Cell) -> str:
    return "\n".join(f"{o.fixture} ({o.channel.value}): the canary was served as genuine" for o in result.poisoning
                     if o.family is cell.family and o.channel is cell.channel and o.decision.verdict is Verdict.SERVED)


def _cell(suite: ET.Element, classname: str, result: FrontdoorResult, cell: Cell) -> str:
    case = ET.SubElement(suite, "testcase", classname=classname, name=f"{cell.family.value} × {cell.channel.value}",
                         time="0")
    text = cell_text(cell)
    if cell.role == "beyond reach":
        ET.SubElement(case, "skipped", message=f"beyond reach ({text}): {BEYOND_REACH}")
        return "skipped"
    if cell.served:
        ET.SubElement(case, "failure", type="SERVED", message=f"{text}: {counts_text(cell)}").text = \
            _clean(_served(result, cell))
        return "failures"
    if cell.status == NA:
        ET.SubElement(case, "skipped", message=_clean(f"n/a ({counts_text(cell)}): {cell_reason(result, cell)}"))
        return "skipped"
    ET.SubElement(case, "system-out").text = f"{text}: {counts_text(cell)}"
    return "passed"


def _probe(suite: ET.Element, classname: str, result: FrontdoorResult, tally: Tally) -> str:
    case = ET.SubElement(suite, "testcase", classname=classname, name=_clean(f"isolation {tally.probe}"), time="0")
    if tally.leaks:
        leaked = [f"{o.secret}: {o.owner.key()} -> {o.reader.key()}" for o in result.isolation
                  if o.probe == tally.probe and o.decision.verdict is Leak.LEAKED]
        ET.SubElement(case, "failure", type="LEAKED", message=probe_text(tally)).text = _clean("\n".join(leaked))
        return "failures"
    if tally.status == NA:
        ET.SubElement(case, "skipped", message=_clean(f"{probe_text(tally)}: {probe_reason(result, tally)}"))
        return "skipped"
    ET.SubElement(case, "system-out").text = probe_text(tally)
    return "passed"


def render(results: list[FrontdoorResult], run: RunRecord) -> str:
    """The JUnit XML document as text."""
    root = ET.Element("testsuites", name="memlab front door")
    totals = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
    for result in results:
        classname = _clean(f"frontdoor.{result.store}")
        facts = [("run", run.run_id), ("level", result.level()), ("built at", expected(run, result.store) or "—"),
                 ("status", outcome(result).status), ("fixtures", str(result.fixtures_version))]
        suite = suite_of(root, _clean(f"frontdoor {result.store}"), facts)
        counts = dict.fromkeys(("tests", "failures", "errors", "skipped", "passed"), 0)
        for kind in [_cell(suite, classname, result, c) for c in result.cells()] + \
                [_probe(suite, classname, result, t) for t in result.probes()]:
            counts[kind] += 1
            counts["tests"] += 1
        count(suite, counts, totals)
    return document(root, totals)
