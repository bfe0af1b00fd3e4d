"""Reports from a real result set: Markdown, JUnit XML, and the HTML page in headless Chromium."""

import copy
import os
import re
import shutil
import xml.etree.ElementTree as ET

import pytest
from resultsets import ROOT, make_result_set, memlab, shared_cache

from lab.cases import CASE_IDS
from lab.resultset.loading import load_rows, load_run
from lab.report import html, junit, markdown

SCREENSHOT = ROOT / "docs" / "report-screenshot.png"
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return shared_cache(tmp_path_factory)


@pytest.fixture(scope="module")
def rs(tmp_path_factory):
    return make_result_set(tmp_path_factory, "reference-sealed", "reference-naive", "reference-audit")


@pytest.fixture(scope="module")
def rows(rs):
    return load_rows(rs)


def test_run_writes_the_three_reports_into_the_set(rs, rows):
    run = load_run(rs)
    for name, render in (("report.md", markdown.render), ("junit.xml", junit.render), ("report.html", html.render)):
        assert (rs / name).read_text(encoding="utf-8") == render(rows, run), name


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
    suite = ET.fromstring(junit.render([row], {}))[0]
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
    page = html.render([row], {})
    assert "<img" not in page and "&lt;img src=x" in page


def _missing(what: str) -> None:
    if os.environ.get("CI"):  # nothing silently skipped in CI
        pytest.fail(f"{what} is not installed; the HTML report is tested in headless Chromium in CI")
    pytest.skip(f"{what} is not installed")


def _browser():
    """``(sync_playwright, chromium executable)``: Debian's chromium driven by playwright."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright (pip install playwright; never `playwright install`)")
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        _missing("chromium (apt-get install -y chromium)")
    return sync_playwright, path


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
            assert "UPDATE" in text and "C3 evidence" in text and "served after the restart" in text
            assert not page.locator(f"#d-{i}-T2").is_visible()  # only the clicked cell opens
            shot = tmp_path / "report.png"
            page.screenshot(path=str(shot), full_page=False)
            assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
            if os.environ.get("MEMLAB_UPDATE_SCREENSHOT"):
                shutil.copyfile(shot, SCREENSHOT)
        finally:
            browser.close()
    assert requested == [url]  # no external asset was fetched
