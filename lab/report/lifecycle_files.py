"""Writing a lifecycle set's report files (never through a link: lab.safewrite). Apart from the at-rest
reports (:mod:`lab.report.files`), so that a lifecycle run loads none of the at-rest renderers and
the cases they read."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from lab import safewrite
from lab.report import lifecycle, lifecycle_html, lifecycle_junit
from lab.report.formats import DEFAULT_FILES

#: Format name -> renderer of a lifecycle result set.
LIFECYCLE_RENDERERS: dict[str, Callable[[list[dict[str, Any]], dict[str, Any]], str]] = {
    "markdown": lifecycle.markdown, "junit": lifecycle_junit.render, "html": lifecycle_html.render}


def write_lifecycle_reports(root: Path, rows: list[dict[str, Any]], run: dict[str, Any]) -> list[Path]:
    """Write a lifecycle set's report.md, junit.xml and report.html into ``root``; returns their paths."""
    written = []
    for fmt, name in DEFAULT_FILES.items():
        path = Path(root) / name
        safewrite.write_text(path, LIFECYCLE_RENDERERS[fmt](rows, run))
        written.append(path)
    return written
