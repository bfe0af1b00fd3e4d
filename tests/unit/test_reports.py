"""Reports from a real result set: Markdown, JUnit XML, and the HTML page in headless Chromium."""

import copy
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
from browser import CHROMIUM_FLAGS
from browser import browser as _browser
from resultsets import ROOT, make_result_set, memlab, shared_cache

from html import escape

from lab.cases import BY_ID, CASE_IDS, GROUPS
from lab.judge.row import read_row
from lab.resultset.loading import load_row_records, load_rows, load_run
from lab.resultset.run_record import RunRecord
from lab.report import html, junit, markdown
from lab.report.common import CASE_SHORT, rate_groups
from lab.report.html_evidence import flat



@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return shared_cache(tmp_path_factory)


@pytest.fixture(scope="module")
def rs(tmp_path_factory):
    return make_result_set(tmp_path_factory, "reference-sealed", "reference-naive", "reference-audit")


@pytest.fixture(scope="module")
def rows(rs):
    return load_rows(rs)


@pytest.fixture(scope="module")
def records(rs):
    return load_row_records(rs)


def test_run_writes_the_three_reports_into_the_set(rs, records):
    run = load_run(rs)
    for name, render in (("report.md", markdown.render), ("junit.xml", junit.render)):
        assert (rs / name).read_text(encoding="utf-8") == render(records, run), name
    assert (rs / "report.html").read_text(encoding="utf-8") == html.render(records, run, rs)


@pytest.mark.parametrize("fmt,name", [("markdown", "r.md"), ("junit", "r.xml"), ("html", "r.html")])
def test_report_command_writes_each_format(rs, cache, tmp_path, fmt, name):
    proc = memlab("report", rs, "--format", fmt, "--out", tmp_path / name, cache=cache)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / name).read_text(encoding="utf-8") == (rs / {"markdown": "report.md", "junit": "junit.xml",
                                                                    "html": "report.html"}[fmt]).read_text()


def test_terminal_report_and_bad_input(rs, cache, tmp_path):
    proc = memlab("report", rs, cache=cache)
    assert proc.returncode == 0 and "reference-naive" in proc.stdout and "ACC" in proc.stdout
    assert memlab("report", tmp_path, "--format", "html", cache=cache).returncode == 2


def test_markdown_has_one_matrix_line_per_row(rows, rs):
    text = (rs / "report.md").read_text()
    assert "| reference-naive@read | " + " | ".join(["ACC"] * 10) + " | ok | ok | 0.00 | L0 |" in text
    assert "| reference-sealed@read | " + " | ".join(["REJ"] * 10) + " | ok | ok | 1.00 | L4 |" in text
    assert "| reference-audit@audit | " + " | ".join(["REP·a"] * 8 + ["ACC"] * 2) in text


def test_junit_makes_accepted_a_failure_and_counts_add_up(rs):
    suites = {s.get("name"): s for s in ET.parse(rs / "junit.xml").getroot()}
    naive, sealed = suites["reference-naive@read"], suites["reference-sealed@read"]
    assert (naive.get("tests"), naive.get("failures"), naive.get("errors")) == ("12", "10", "0")
    assert (sealed.get("tests"), sealed.get("failures")) == ("12", "0")
    failure = naive.find("testcase[@name='T1 content tamper']/failure")
    assert failure is not None and failure.get("message").startswith("ACCEPTED") and "UPDATE" in failure.text


def test_junit_error_is_error_and_na_is_skipped(rows):
    row = copy.deepcopy(next(r for r in rows if r["row"] == "reference-sealed"))
    row["cells"]["T2"].update(verdict="n/a", reason="unordered memory")
    row["cells"]["T3"].update(verdict="error", reason="C3: the edit did not land \x00")
    row["controls"]["C2"] = {"ok": False, "reason": "the genuine write was refused"}
    suite = ET.fromstring(junit.render([read_row(row)], RunRecord()))[0]
    assert suite.find("testcase[@name='T2 tail truncation']/skipped") is not None
    assert suite.find("testcase[@name='T3 middle deletion']/error").get("message").startswith("C3")
    assert suite.find("testcase[@name='C2 genuine write after restart']/error") is not None
    assert (suite.get("skipped"), suite.get("errors"), suite.get("failures")) == ("1", "2", "0")


def test_html_is_self_contained(rs):
    page = (rs / "report.html").read_text()
    assert not re.search(r"<script|<link|<img|<iframe|\bsrc=|@import|url\(", page, re.IGNORECASE)
    targets = set(re.findall(r'href="#([^"]+)"', page))
    ids = set(re.findall(r'id="([^"]+)"', page))
    assert targets <= ids and len([t for t in targets if t.startswith("d-")]) == 3 * len(CASE_IDS)


def test_html_escapes_what_a_sut_wrote(rows):
    row = copy.deepcopy(rows[0])
    row["cells"]["T1"]["reason"] = '<img src=x onerror="alert(1)">'
    row["cells"]["T2"]["evidence"]["statements"] = ["</code><script>alert(1)</script>"]
    row["cells"]["T3"]["evidence"]["signals"] = [{"level": "WARNING", "message": "<b>x</b>", "extra": "<u>"}]
    row["notes"] = "<iframe>"
    page = html.render([read_row(row)], RunRecord())
    assert not re.search(r"<img|<script|<iframe|<b>x|<u>", page) and "&lt;img src=x" in page
    assert "&lt;/code&gt;&lt;script&gt;" in page and "&lt;iframe&gt;" in page


def test_html_explains_itself_without_the_method(rs):
    page = (rs / "report.html").read_text()
    head = page[page.index("<thead>"):page.index("</thead>")]
    for cid in CASE_IDS:  # every case by name and meaning in the matrix header itself
        assert f"<b>{cid}</b>{escape(BY_ID[cid].name)}<i>{escape(CASE_SHORT[cid])}</i>" in head
    legend = page[page.index('id="legend"'):page.index("<h2>Rows</h2>")]
    for words in ("REP·a", "REPORTED at audit", "partial: 0.5", "not counted", "Observation classes",
                  "a vendor client SDK", "head anchored off the store", "L3, and T9 REJECTED at the read point",
                  "T1, T3, T5 REJECTED at the read point", "C3", "metric = "):
        assert escape(words) in legend or words in legend, words


def test_html_group_rates_only_where_they_add_information(rs, rows):
    page = (rs / "report.html").read_text()
    head = page[page.index("<thead>"):page.index("</thead>")]
    assert rate_groups() == [g for g, ids in GROUPS.items() if len(ids) > 1] == ["T1-T5", "T6-T8"]
    assert re.findall(r'<th title="the metric over [^"]*">([^<]+)</th>', head) == ["T1-T5", "T6-T8"]
    first = page[re.search(r'<tr class="[^"]*"><td class="rk">', page).start():]
    first = first[:first.index("</tr>")]
    assert first.count('class="num"') == 2 + 2  # metric, level, two group rates


def test_html_cell_evidence_is_rendered_not_dumped(rs, rows):
    page = (rs / "report.html").read_text()
    i = next(n for n, r in enumerate(rows) if r["row"] == "reference-naive")
    panel = page[page.index(f'id="d-{i}-T1"'):]
    panel = panel[:panel.index("</section>")]
    cell = rows[i]["cells"]["T1"]
    assert "<pre><code>" + escape("\n".join(cell["evidence"]["statements"])) + "</code></pre>" in panel
    intended = cell["evidence"]["intended"]
    assert f'<mark>{intended["find"]}</mark>' in panel and f'<mark>{intended["replace"]}</mark>' in panel
    assert "before the edit" in panel and "after the edit" in panel and '"records_before"' not in panel
    assert '<ol class="served">' in panel and "{" not in re.sub(r"<style>.*?</style>", "", panel)
    restore = page[page.index(f'id="d-{i}-T10"'):]
    assert "after the SUT&#x27;s own op" in restore[:restore.index("</section>")]


def test_html_has_a_section_per_row_with_configuration_and_notes(rs, rows):
    page = (rs / "report.html").read_text()
    for i, row in enumerate(rows):
        section = page[page.index(f'<section class="row" id="r-{i}">'):]
        section = section[:section.index("</section>")]
        assert escape(row["notes"]) in section and "configuration" in section
        for key, value in row["configuration"].items():
            assert f"<tr><th>{key}</th><td>{escape(flat(value))}</td></tr>" in section


def test_html_without_the_folder_keeps_to_the_row(records):
    page = html.render(records, RunRecord())
    assert "before the edit" not in page and "the edit landed" in page


def test_html_in_headless_chromium_click_a_cell_to_open_its_detail(rs, rows, tmp_path):
    sync_playwright, executable = _browser()
    i = next(n for n, r in enumerate(rows) if r["row"] == "reference-naive")
    url = (rs / "report.html").resolve().as_uri()
    requested = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1000})
            page.on("request", lambda req: requested.append(req.url))
            page.goto(url)
            detail = page.locator(f"#d-{i}-T1")
            assert not detail.is_visible()
            page.click(f"#c-{i}-T1")
            detail.wait_for(state="visible", timeout=5000)
            text = detail.inner_text()
            assert "reference-naive@read · T1 content tamper — ACC" in text
            assert "UPDATE" in detail.locator("pre code").inner_text()  # the statements, as code
            assert "c3: did the edit land?" in text.lower() and "served after the restart" in text.lower()
            assert detail.locator("table.recs mark").first.is_visible()  # the records before/after
            assert not page.locator(f"#d-{i}-T2").is_visible()  # only the clicked cell opens
            header = page.locator("#matrix thead").inner_text()
            assert all(BY_ID[c].name in " ".join(header.split()) for c in CASE_IDS), header
            legend = page.locator(".legend").inner_text()
            assert "L4" in legend and "head anchored off the store" in legend and "T9 REJECTED" in legend
            shot = tmp_path / "report.png"
            page.screenshot(path=str(shot), full_page=False)
            assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
        finally:
            browser.close()
    assert requested == [url]  # no external asset was fetched


def test_html_in_headless_chromium_a_row_name_opens_its_section(rs, rows):
    sync_playwright, executable = _browser()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1000})
            page.goto((rs / "report.html").resolve().as_uri())
            page.click("#matrix td.rk a >> nth=1")
            assert page.evaluate("location.hash") == "#r-1"
            section = page.locator("#r-1")
            assert section.is_visible() and rows[1]["notes"] in section.inner_text()
            section.locator("a[href='#d-1-T4']").click()
            assert page.locator("#d-1-T4").is_visible()
        finally:
            browser.close()


def test_html_in_headless_chromium_the_filters_keep_failing_rows_and_one_sut(rs, rows, tmp_path):
    """The checkbox keeps the rows with an ACCEPTED cell; a SUT's radio button keeps its rows only (the
    reference rows and a published row of another SUT on one page)."""
    sync_playwright, executable = _browser()
    rows = rows + load_rows(ROOT / "results" / "published" / "atmem-chain")
    (tmp_path / "report.html").write_text(html.render([read_row(r) for r in rows], load_run(rs)), encoding="utf-8")
    names = [f"{r['row']}@{r['detection_point']}" for r in rows]
    failing = {n for n, r in zip(names, rows) if any(c["verdict"] == "ACCEPTED" for c in r["cells"].values())}
    assert failing and set(names) - failing, "the fixture needs rows with and without an accepted cell"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1000})
            page.goto((tmp_path / "report.html").resolve().as_uri())

            def shown() -> set[str]:
                return {page.locator("#matrix tbody tr td.rk a").nth(i).inner_text() for i in range(len(rows))
                        if page.locator("#matrix tbody tr").nth(i).is_visible()}

            assert shown() == set(names)
            page.check("#f-fail")
            assert shown() == failing
            page.uncheck("#f-fail")
            for sut in {r["sut"]["package"] for r in rows}:
                page.locator("#filters label", has_text=sut).first.click()
                assert shown() == {n for n, r in zip(names, rows) if r["sut"]["package"] == sut} != set(names)
            page.check("#f-sut-all")
            assert shown() == set(names)
        finally:
            browser.close()


def test_the_screenshot_script_renders_the_current_code(rs, tmp_path):
    """scripts/screenshots.py (which makes docs/report-screenshot.png) on a given set, into tmp_path."""
    _, executable = _browser()
    out = tmp_path / "shot.png"
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "screenshots.py"), str(rs), "--out", str(out),
                           "--chromium", executable, "--width", "1200", "--height", "900"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 10_000


def _readme_layout() -> list[str]:
    """The paths of README's "The result set" block (``<row>`` and the like as placeholders)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text[text.index("\n## The result set\n"):]
    start = block.index("```\n") + 4
    block = block[start:block.index("\n```", start)]
    names = []
    for line in block.splitlines():
        words = line.split()
        while words and not line.startswith(" "):  # "a, b, c  what they are": every path before the text
            names.append(words[0].rstrip(","))
            if not words.pop(0).endswith(","):
                break
    return names


def test_readme_result_set_block_names_every_file_of_a_real_set(rs):
    patterns = {name: re.compile(re.sub(r"<[a-z]+>", "[^/]+", re.escape(name)) + "$") for name in _readme_layout()}
    files = [p.relative_to(rs).as_posix() for p in rs.rglob("*") if p.is_file()]
    assert [f for f in files if not any(rx.match(f) for rx in patterns.values())] == []
    unused = [n for n, rx in patterns.items() if not any(rx.match(f) for f in files)]
    assert unused == ["manifest.sig"]  # the set is not signed
