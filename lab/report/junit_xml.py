"""What every JUnit XML report of the lab shares: inert text, a suite with its properties, the
counts on each suite and the run's totals on the document.

    >>> import xml.etree.ElementTree as ET
    >>> root, totals = ET.Element("testsuites", name="memlab"), {"tests": 0, "failures": 0}
    >>> suite = suite_of(root, "row", [("level", "L2")])
    >>> count(suite, {"tests": 2, "failures": 1, "passed": 1}, totals)
    >>> print(document(root, totals).splitlines()[1])
    <testsuites name="memlab" tests="2" failures="1">
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from lab.report.inert import inert


def clean(text: Any, lines: bool = False) -> str:
    """Text from a set as XML 1.0 holds it, inert (lab.report.inert): control characters, a surrogate or
    a non-character shown as escapes, a line feed too unless ``lines``."""
    return inert(text, markup=False, lines=lines)


def suite_of(root: ET.Element, name: str, facts: list[tuple[str, str]]) -> ET.Element:
    """A new ``testsuite`` of ``root`` named ``name`` (already clean), with ``facts`` as its properties."""
    suite = ET.SubElement(root, "testsuite", name=name)
    props = ET.SubElement(suite, "properties")
    for label, value in facts:
        ET.SubElement(props, "property", name=label, value=clean(value))
    return suite


def count(suite: ET.Element, counts: dict[str, int], totals: dict[str, int]) -> None:
    """The suite's ``counts`` of each key of ``totals`` as its attributes, added to ``totals``."""
    for key in totals:
        suite.set(key, str(counts[key]))
        totals[key] += counts[key]


def document(root: ET.Element, totals: dict[str, int]) -> str:
    """The whole document as text, the run's ``totals`` on its root."""
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
