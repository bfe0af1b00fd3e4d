"""``memlab site`` over the published result sets: one page per SUT with both measurements, and an
index of every row with a lifecycle column — each figure on the pages checked against the row files
it came from; a set that does not verify writes nothing; a row in two sets is refused."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from html import unescape
from pathlib import Path

import pytest
from browser import CHROMIUM_FLAGS, browser

from lab.cases import CASE_IDS
from lab.judge.row import read_row
from lab.report.common import cell_label

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = ROOT / "results" / "published"


def memlab(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lab.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def rows_of(folder: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((folder / "rows").glob("*.json"))]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = memlab("site", *map(str, sorted(PUBLISHED.iterdir())), "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out


def test_a_page_per_sut_and_an_index(site: Path) -> None:
    names = sorted(p.name for p in PUBLISHED.iterdir())
    assert sorted(p.stem for p in site.glob("*.html") if p.stem != "index") == names


def test_the_index_has_every_row_with_its_cells_and_lifecycle_gate(site: Path) -> None:
    page = (site / "index.html").read_text()
    lines = re.findall(r"<tr class=\"[^\"]*\"><td class=\"rk\">(.*?)</tr>", page, re.S)
    at_rest = [(folder.name, r) for folder in sorted(PUBLISHED.iterdir()) for r in rows_of(folder)]
    assert len(lines) == len(at_rest)
    for line, (name, row) in zip(lines, at_rest):
        assert f'href="{name}.html#r-' in line
        labels = re.findall(r'class="cell[^"]*"[^>]*>([^<]+)</a>', line)
        assert [unescape(x) for x in labels] == [cell_label(read_row(row).cell(c)) for c in CASE_IDS]
        lifecycle = {r["position"]: r for r in rows_of(PUBLISHED / name / "lifecycle")} \
            if (PUBLISHED / name / "lifecycle").is_dir() else {}
        gates = re.findall(r'<td class=s[^>]*>(?:<a [^>]*>)?([^<]+)', line)
        if lifecycle:
            assert gates == [lifecycle["live"]["status"], lifecycle["restarted"]["status"]]
            for record in lifecycle.values():
                for check, c in record["checks"].items():
                    assert (f"{check} ({c['severity']}) fails" in line) == (c["status"] == "FAIL")
        else:
            assert gates == [] and line.count("not measured") == 2


def test_a_sut_page_holds_both_measurements(site: Path) -> None:
    name = "langgraph-sqlite"
    page = (site / f"{name}.html").read_text()
    row = rows_of(PUBLISHED / name)[0]
    assert [unescape(x) for x in re.findall(r'class="cell[^"]*"[^>]*>([^<]+)</a>', page)] == \
        [cell_label(read_row(row).cell(c)) for c in CASE_IDS]
    assert all(f'id="d-0-{c}"' in page for c in CASE_IDS)  # every cell's evidence panel
    lifecycle = rows_of(PUBLISHED / name / "lifecycle")
    assert {r["position"] for r in lifecycle} == {"live", "restarted"}
    for record in lifecycle:
        assert f"id='r-{name}@{record['position']}'" in page
        for check, c in record["checks"].items():
            assert f"{c['violations']}/{c['opportunities']}" in page or c["status"] == "NOT TESTED"
    assert "Live and restarted: what differs" in page


def test_a_sut_page_shows_its_front_door_per_position_and_the_index_links_it(site: Path) -> None:
    measured = sorted(p.parent.name for p in PUBLISHED.glob("*/frontdoor"))
    assert {"inspeximus-trusted-key", "langgraph-store"} <= set(measured)
    for row in measured:
        page = (site / f"{row}.html").read_text()
        assert '<h2 id="frontdoor">Front door</h2>' in page
        assert page.count(f"{row}@live · level ") == page.count(f"{row}@restarted · level ") == 1
    assert "inspeximus-trusted-key@live · level P2 · FINDING" in (site / "inspeximus-trusted-key.html").read_text()
    mem0 = (site / "mem0-qdrant-local.html").read_text()
    assert "T6 (another context's record replayed into this one, store access) ACC at read" in mem0
    assert "beside the probes" not in (site / "langgraph-store.html").read_text()  # no at-rest rows: no T6
    index = (site / "index.html").read_text()
    assert 'href="langgraph-store.html#frontdoor">front door</a>: live P0 FINDING, restarted n/a INCONCLUSIVE' in index


def test_a_set_that_does_not_verify_writes_nothing(tmp_path: Path) -> None:
    copy = tmp_path / "langgraph-sqlite"
    shutil.copytree(PUBLISHED / "langgraph-sqlite", copy)
    path = copy / "rows" / "langgraph-sqlite@read.json"
    path.write_text(path.read_text().replace('"ACCEPTED"', '"REJECTED"', 1))
    done = memlab("site", str(copy), "--out", str(tmp_path / "out"))
    assert done.returncode == 1 and "REJECTED" in done.stderr and "nothing written" in done.stderr
    assert not (tmp_path / "out").exists()


def test_a_lifecycle_set_given_apart_joins_its_row(tmp_path: Path) -> None:
    at_rest = PUBLISHED / "mem0-qdrant-local"
    done = memlab("site", str(at_rest / "lifecycle"), str(PUBLISHED / "acrf-memory-guard"), "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "mem0-qdrant-local.html").read_text()
    assert "No at-rest rows." in page and "mem0-qdrant-local@restarted" in page
    assert "No lifecycle result set" in (tmp_path / "acrf-memory-guard.html").read_text()


def test_a_row_in_two_sets_is_refused(tmp_path: Path) -> None:
    copy = tmp_path / "again"
    shutil.copytree(PUBLISHED / "crewai-ltm-lancedb", copy)
    done = memlab("site", str(PUBLISHED / "crewai-ltm-lancedb"), str(copy), "--out", str(tmp_path / "out"),
                  "--no-verify")
    assert done.returncode == 2 and "is in two" in done.stderr
    assert not (tmp_path / "out").exists()


def test_not_a_result_set_is_a_clear_error(tmp_path: Path) -> None:
    done = memlab("site", str(tmp_path), "--out", str(tmp_path / "out"))
    assert done.returncode == 2 and "not a result set" in done.stderr and "Traceback" not in done.stderr


def test_in_headless_chromium_an_index_cell_opens_its_evidence_on_the_sut_page(site: Path) -> None:
    sync_playwright, executable = browser()
    requested: list[str] = []
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        try:
            page = chromium.new_page(viewport={"width": 1500, "height": 1000})
            page.on("request", lambda req: requested.append(req.url))
            page.goto((site / "index.html").resolve().as_uri())
            page.locator('a.cell[href="langgraph-sqlite.html#d-0-T3"]').click()
            assert page.url.endswith("langgraph-sqlite.html#d-0-T3")
            assert page.locator("#d-0-T3").is_visible()  # the cell's evidence panel, opened by the link
            page.goto((site / "index.html").resolve().as_uri())
            page.locator('a[href="crewai-ltm-lancedb.html#lifecycle"]').first.click()
            assert page.locator("#lifecycle").is_visible() and "crewai-ltm-lancedb@restarted" in page.content()
        finally:
            chromium.close()
    assert all(url.startswith("file://") for url in requested), "the pages must load nothing from a network"
