"""JUnit XML of a lifecycle result set: a test suite per (row, position) and a test case per check: a
FAIL is a ``<failure>``, NOT TESTED ``<skipped>`` (never a pass), a harness error an ``<error>``.
Erasure at rest is a storage finding, not a check: a test case that passes with the finding in
``<system-out>``."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from lab.lifecycle.results import row_key
from lab.report.lifecycle import erasure_lines, rate_text, values_text


def render(rows: list[dict[str, Any]], run: dict[str, Any]) -> str:
    """JUnit XML: a suite per row, a case per check (FAIL a failure, NOT TESTED skipped)."""
    suites = ET.Element("testsuites", name="memlab lifecycle")
    for row in rows:
        suite = ET.SubElement(suites, "testsuite", name=f"lifecycle {row_key(row)}")
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        for name, check in row["checks"].items():
            counts["tests"] += 1
            case = ET.SubElement(suite, "testcase", classname=f"lifecycle.{row_key(row)}", name=name, time="0")
            detail = "\n".join(f"{f['scenario']} seed {f['seed']} step {f['step']}: {values_text(f)}"
                               for f in row["findings"] if f["check"] == name)
            if row["errors"]:
                counts["errors"] += 1
                ET.SubElement(case, "error", type="harness-error",
                              message=f"{len(row['errors'])} harness error(s)").text = row["errors"][0]["message"]
            elif check["status"] == "FAIL":
                counts["failures"] += 1
                ET.SubElement(case, "failure", type=check["severity"],
                              message=f"{name} {rate_text(check)}").text = detail
            elif check["status"] == "NOT TESTED":
                counts["skipped"] += 1
                ET.SubElement(case, "skipped", message=f"NOT TESTED: {check.get('reason', '')}")
        if row.get("erasure_at_rest"):  # a finding, not a check: it passes, and says what it found
            counts["tests"] += 1
            case = ET.SubElement(suite, "testcase", classname=f"lifecycle.{row_key(row)}", name="erasure_at_rest",
                                 time="0")
            ET.SubElement(case, "system-out").text = "\n".join(erasure_lines(row, limit=200))
        for key, value in counts.items():
            suite.set(key, str(value))
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"
