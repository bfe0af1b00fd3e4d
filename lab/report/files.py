"""Report formats by name, and writing the report files into a result set (never through a link:
lab.safewrite); a lifecycle set's: :mod:`lab.report.lifecycle_files`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from lab import safewrite
from lab.report import html, junit, markdown
from lab.report.formats import DEFAULT_FILES
from lab.report.lifecycle_files import LIFECYCLE_RENDERERS, write_lifecycle_reports  # noqa: F401 (this module's API too)
from lab.resultset.run_record import RunRecord

if TYPE_CHECKING:
    from lab.judge.row import AtRestRow

#: Format name -> renderer ``(rows, run) -> text`` (each row read by its record, lab.judge.row).
RENDERERS: dict[str, Callable[[list[AtRestRow], RunRecord], str]] = {
    "markdown": markdown.render, "junit": junit.render, "html": html.render}


def composition(root: Path | None) -> list[Any]:
    """The compose rows of the set at ``root`` (none when it holds no composition); ``ValueError`` for a
    row that cannot be read."""
    if root is None or not (Path(root) / "composition").is_dir():
        return []
    from lab.resultset.composition import load_rows  # the compose judge: imported only for a composition
    return load_rows(Path(root))


def render(fmt: str, rows: list[AtRestRow], run: RunRecord, root: Path | None = None) -> str:
    """One report as text; the HTML page also reads the records before and after each edit from ``root``,
    and the HTML page and Markdown show the set's composition, if any, after the matrix."""
    if fmt == "html":
        return html.render(rows, run, root, composition(root))
    if fmt == "markdown":
        return markdown.render(rows, run, composition(root))
    return RENDERERS[fmt](rows, run)


def write_reports(root: Path, rows: list[AtRestRow], run: RunRecord) -> list[Path]:
    """Write report.md, junit.xml and report.html into ``root``; returns their paths."""
    written = []
    for fmt, name in DEFAULT_FILES.items():
        path = Path(root) / name
        safewrite.write_text(path, render(fmt, rows, run, root))
        written.append(path)
    return written
