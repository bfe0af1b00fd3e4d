"""A set's own reports show its composition beside the matrix (report.html with the site's renderer,
report.md with compose.md's), every text from the set escaped; a set without one renders as before.
Fast: a published set read in place, and compose rows built here."""

from __future__ import annotations

import re
from pathlib import Path

from lab.compose.results import ComposeRow, SequenceResult, Single, Skipped
from lab.report import files, html, markdown
from lab.resultset.loading import load_row_records, load_run

ROOT = Path(__file__).resolve().parents[2]
AT_REST = ROOT / "results" / "published" / "memory-blackbox-md+restart"  # its compose/ set beside, not in it
HOSTILE_ROW, HOSTILE_MOVE = 'evil<script>alert("row")</script>', "<img src=x onerror=alert('move')>"


def _row(name: str = HOSTILE_ROW, move: str = HOSTILE_MOVE) -> ComposeRow:
    single = Single(move=move, trial="T1.json", landed=False, reason='refused "<b>x</b>"')
    seq = SequenceResult(sequence=["T1", move], verdict="finding", reason="served <i>as genuine</i> | forged cell",
                         singles=[Single(move="T1", trial="T1.json", landed=False, reason="REPORTED"), single],
                         trial=f"compose/T1+{move}.json")
    return ComposeRow(row=name, detection_point="read", length=2, method_revision="x", lab=None, run_id="id",
                      date=None, offered=["T1", move], skipped=[Skipped(move="T9<br>", reason="a restore <case>")],
                      sequences=[seq])


def test_a_set_without_composition_renders_as_before():
    rows, run = load_row_records(AT_REST), load_run(AT_REST)
    page = files.render("html", rows, run, AT_REST)
    assert page == html.render(rows, run, AT_REST) and 'id="composition"' not in page
    assert files.render("markdown", rows, run, AT_REST) == markdown.render(rows, run)
    assert "Composition" not in markdown.render(rows, run)


def test_the_html_section_shows_each_finding_with_its_singles_and_escapes_the_set():
    rows, run = load_row_records(AT_REST), load_run(AT_REST)
    page = html.render(rows, run, None, [_row()])
    section = page[page.index('<h2 id="composition">'):page.index('<h2 id="legend">')]
    assert page.index('id="matrix"') < page.index('id="composition"')  # beside the matrix, not inside it
    assert "<script>" not in page and "<img" not in page and "<br>" not in section and "<i>" not in section
    assert "evil&lt;script&gt;alert(&quot;row&quot;)&lt;/script&gt;@read" in section
    move = "&lt;img src=x onerror=alert(&#x27;move&#x27;)&gt;"
    assert f"<code>T1+{move}</code>" in section and "finding: served &lt;i&gt;as genuine&lt;/i&gt; | forged" in section
    assert "T1 alone does not land" in section and f"{move} alone does not land" in section
    assert 'title="refused &quot;&lt;b&gt;x&lt;/b&gt;&quot;"' in section  # the single's reason, quoted safely
    assert "Left out: <code>T9&lt;br&gt;</code> (a restore &lt;case&gt;)" in section


def test_the_markdown_report_adds_the_composition_escaped():
    rows, run = load_row_records(AT_REST), load_run(AT_REST)
    text = markdown.render(rows, run, [_row()])
    assert text.startswith(markdown.render(rows, run).rstrip() + "\n")  # the at-rest report unchanged above it
    assert "\n## Composition: " in text and "\n### evil\\<script\\>" in text
    added = text[text.index("\n## Composition: "):]
    line = next(x for x in added.splitlines() if x.startswith("| T1+"))
    assert len(re.findall(r"(?<!\\)[<>|]", line)) == 5, line  # four cells: every <, > and | from the set escaped
    assert not re.findall(r"(?<!\\)[<>]", added), added
    assert "T1 alone does not land" in added and "T9\\<br\\> (a restore \\<case\\>)" in added


def test_the_terminal_report_prints_the_composition_after_the_matrix(tmp_path):
    """``memlab report`` (terminal, and into a file) prints a composed set's findings as ``memlab compose``
    did; a set without composition prints the matrix alone."""
    from click.testing import CliRunner

    from lab.cli import main
    from lab.resultset.composition import load_rows as load_compose_rows

    published = Path(__file__).resolve().parents[2] / "results" / "published" / "memory-blackbox-md"
    findings = sum(len(r.findings) for r in load_compose_rows(published / "compose"))
    assert findings > 0
    shown = CliRunner().invoke(main, ["report", str(published / "compose")])
    assert shown.exit_code == 0 and shown.output.count("FINDING ") == findings, shown.output[-2000:]
    assert shown.output.index("memlab verdict matrix") < shown.output.index("FINDING ")
    saved = CliRunner().invoke(main, ["report", str(published / "compose"), "--out", str(tmp_path / "r.txt")])
    assert saved.exit_code == 0 and (tmp_path / "r.txt").read_text().count("FINDING ") == findings
    plain = CliRunner().invoke(main, ["report", str(published)])
    assert plain.exit_code == 0 and "FINDING" not in plain.output and "memlab verdict matrix" in plain.output
