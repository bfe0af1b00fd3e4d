"""Both measurements of every SUT as a small static site: one page per SUT with its at-rest matrix
and its lifecycle result together, and an index of all rows with a lifecycle column; a row swept
across releases of its SUT package (``memlab sweep``) shows its history there too (lab.report.history).

A SUT here is one folder of results: an at-rest result set, and beside it (or given apart) the
lifecycle result set of the same row. Its page shows the verdict matrix and each row's section and
evidence panels exactly as the at-rest report does, then the lifecycle gate with each position of
the row its own line (live and restarted side by side, never merged), what differs between them,
erasure at rest and every finding. The index is the at-rest matrix of every row, each row's name
and cells linking into its SUT's page, with the lifecycle gate of each position in a column of its
own. No script and no external asset, as the other reports.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lab import safewrite
from lab.cases import CASE_IDS
from lab.report import history as release_history
from lab.report import html, lifecycle_html, site_compose, site_frontdoor
from lab.report.html_filters import filter_bar, filter_css
from lab.report.inert import inert
from lab.report.common import case_edit, case_title, cell_label, row_key
from lab.report.lifecycle import check_names, rate_text
from lab.report.lifecycle_positions import POSITIONS, differences
from lab.resultset.run_record import RunRecord

if TYPE_CHECKING:
    from lab.judge.row import AtRestRow

#: What the lifecycle column says of a SUT without a lifecycle result set.
NOT_MEASURED = "not measured"
#: The lifecycle column's cells inside the at-rest matrix.
_CSS = ("table.m td.s{color:#fff;font-weight:600;text-align:center;padding:4px 8px;border-radius:4px;font-size:12px;"
        "max-width:220px}table.m td.s small{font-weight:400}table.m td.muted{color:#57606a;background:#f6f8fa}")


@dataclass
class SutResults:
    """One SUT's results: its at-rest rows (and their set's folder) and its lifecycle rows, if any."""

    name: str
    rows: list[AtRestRow]
    run: RunRecord = field(default_factory=RunRecord)
    root: Path | None = None
    lifecycle: list[dict[str, Any]] = field(default_factory=list)
    #: The row's history across releases of its SUT package: a sweep's record (lab.report.history), if any.
    history: dict[str, Any] | None = None
    #: The front door: each position's row (lab.frontdoor.results.FrontdoorResult) and its run, if any.
    frontdoor: list[tuple[Any, Any]] = field(default_factory=list)
    #: Its composition: the compose rows (lab.compose.results.ComposeRow), if any.
    compose: list[Any] = field(default_factory=list)

    @property
    def page(self) -> str:
        """The SUT page's file name."""
        return f"{page_name(self.name)}.html"

    def positions(self) -> dict[str, dict[str, Any]]:
        """position -> the lifecycle row record."""
        return {r.get("position", "live"): r for r in self.lifecycle}


def page_name(name: str) -> str:
    """A file-name-safe form of a SUT's name (``+`` and letters kept; anything else ``_``)."""
    return re.sub(r"[^A-Za-z0-9+._-]", "_", name).lstrip(".") or "_"


def _document(title: str, body: str, rows: list[AtRestRow]) -> str:
    return inert("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
            f"<title>{escape(title)}</title><style>{html.CSS}{lifecycle_html.CSS}{_CSS}{release_history.CSS}"
            f"{filter_css(rows)}</style>"
            "</head><body>"
            f"{body}</body></html>\n", markup=False, lines=True)  # a SUT's control characters as escapes


def lifecycle_cells(sut: SutResults) -> list[str]:
    """The index's lifecycle cells of a SUT: per position its gate status with the failing checks."""
    positions = sut.positions()
    out = []
    for position in POSITIONS:
        row = positions.get(position)
        if row is None:
            out.append(f'<td class="s muted">{NOT_MEASURED}</td>')
            continue
        failing = [f"{n} ({row['checks'][n]['severity']}) fails {rate_text(row['checks'][n])}" for n in check_names([row])
                   if row["checks"][n]["status"] == "FAIL"]
        out.append(lifecycle_html.status_cell(row["status"], "; ".join(failing), href=f"{sut.page}#lifecycle",
                                              title=f"{position}: open the SUT page for every check"))
    return out


def render_index(suts: list[SutResults]) -> str:
    """The matrix of every row, linking into the SUT pages, with the lifecycle gate per position."""
    rows = [r for s in suts for r in s.rows]
    pages = [(s.page, i) for s in suts for i in range(len(s.rows))]
    extra = [lifecycle_cells(s) for s in suts for _ in s.rows]
    head = [f'<th title="the lifecycle gate (docs/lifecycle.md), {p}: the SUT {"kept running" if p == "live" else "restarted after every mutation"}">'
            f"lifecycle<br>{p}</th>" for p in POSITIONS]
    index = "".join(f'<li><a href="{s.page}">{escape(s.name)}</a> — {len(s.rows)} at-rest row(s), '
                    f"{len(s.lifecycle) or 'no'} lifecycle position(s)"
                    + (f'; <a href="{s.page}#frontdoor">front door</a>: {escape(site_frontdoor.summary(s.frontdoor))}'
                       if s.frontdoor else "")
                    + (f'; <a href="{s.page}#composition">composition</a>: {escape(site_compose.summary(s.compose))}'
                       if s.compose else "")
                    + (f'; <a href="{s.page}#history">history</a>: {escape(release_history.summary_line(s.history))}'
                       if s.history else "") + "</li>" for s in suts)
    body = ("<h1>memlab: agent memory at rest and through its lifecycle</h1>"
            "<p class=\"lead\">Each line is one SUT configuration at one detection point: the ten edits of its "
            "stored memory made at rest (click a cell for its evidence on the SUT's page), then the lifecycle gate "
            "of the same SUT — do its own correct, rescope, expire and delete change what the agent is served — "
            "with the SUT kept running (live) and restarted after every mutation, each its own result.</p>"
            f"<h2>Matrix</h2>{filter_bar(rows)}{html.matrix(rows, pages, (head, extra))}"
            f"<h2>SUTs</h2><ul>{index}</ul>{html.legend()}")
    return _document("memlab: every row", body, rows)


def _differences(sut: SutResults) -> str:
    positions = sut.positions()
    if not positions:
        return ""
    lines = differences(positions)
    items = "".join(f"<li>{_inline_code(line.removeprefix('- '))}</li>" for line in lines)
    return f"<h3>Live and restarted: what differs</h3><ul>{items}</ul>"


def _inline_code(text: str) -> str:
    """Escaped text with Markdown's `code` spans as <code>."""
    return re.sub(r"`([^`]*)`", r"<code>\1</code>", escape(text))


def render_sut(sut: SutResults) -> str:
    """One SUT's page: its at-rest matrix, rows and evidence, then its lifecycle gate and findings."""
    rows = sut.rows
    panels = "".join(html.cell_panel(f"d-{i}-{c}", f"{row_key(r)} · {case_title(c)}", f"{c}: {case_edit(c)}", r, c,
                                     cell_label(r.cell(c)), sut.root)
                     for i, r in enumerate(rows) for c in CASE_IDS)
    if sut.lifecycle:
        gate = (f'<div class="lc">{lifecycle_html.checks_table(sut.lifecycle)}{_differences(sut)}'
                + "".join(lifecycle_html.findings(r) for r in sut.lifecycle) + "</div>")
    else:
        gate = f"<p class=\"muted\">No lifecycle result set for this SUT ({NOT_MEASURED}).</p>"
    body = (f'<p><a href="index.html">← every row</a></p><h1>{escape(sut.name)}</h1>'
            f"<h2>At rest: the verdict matrix</h2>{html.matrix(rows) if rows else '<p>No at-rest rows.</p>'}"
            f'<h2 id="lifecycle">Lifecycle gate</h2>{gate}'
            + (f'<h2 id="frontdoor">Front door</h2>{site_frontdoor.section(sut.frontdoor, sut.rows)}' if sut.frontdoor else "")
            + site_compose.block(sut.compose)
            + (release_history.render(sut.history) if sut.history else "") +
            "<h2>At rest: the rows</h2>" + "".join(html.row_section(i, r) for i, r in enumerate(rows))
            + f"{html.legend()}{panels}")
    return _document(f"memlab: {sut.name}", body, [])


def write_site(suts: list[SutResults], out: Path) -> list[Path]:
    """Write index.html and one page per SUT into ``out``: every page is rendered into a folder of its own
    inside ``out`` first, then each is moved into place, the index last, so an interrupted site leaves no
    index naming a page that is not there (the folder is removed whatever happens); each file whole, never
    through a link (lab.safewrite). Returns the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".site-", dir=out))
    try:
        for sut in suts:
            safewrite.write_text(staging / sut.page, render_sut(sut))
        safewrite.write_text(staging / "index.html", render_index(suts))
        written = [*(out / sut.page for sut in suts), out / "index.html"]
        for path in written:
            safewrite.check_target(path)  # a link or a hard-linked file where a page goes: refused
        for path in written:  # one file system: each move is a rename, the index after every page
            os.replace(staging / path.name, path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return [written[-1], *written[:-1]]
