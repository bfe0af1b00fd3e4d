"""Writing a front-door set's reports (never through a link: lab.safewrite): report.txt, report.md,
report.html and junit.xml. Renderings, not evidence: the manifest does not pin them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lab import safewrite
from lab.frontdoor.results import FrontdoorResult
from lab.frontdoor.saved import RunRecord
from lab.report import frontdoor_html, frontdoor_junit, frontdoor_markdown, frontdoor_text

#: File name -> renderer ``(results, run) -> text``.
FRONTDOOR_RENDERERS: dict[str, Callable[[list[FrontdoorResult], RunRecord], str]] = {
    "report.txt": frontdoor_text.render, "report.md": frontdoor_markdown.render,
    "report.html": frontdoor_html.render, "junit.xml": frontdoor_junit.render}


def write_frontdoor_reports(root: Path, results: list[FrontdoorResult], run: RunRecord) -> list[Path]:
    """Write every report into ``root``; returns their paths."""
    return [safewrite.write_text(Path(root) / name, render(results, run))
            for name, render in FRONTDOOR_RENDERERS.items()]
