"""docs/index.md names every page of docs/ once, with a line on it, and names no page that is not there;
the README points to it."""

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_index_lists_every_page_and_only_pages_that_exist():
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    linked = re.findall(r"^- \[([^\]]+)\]\(([^)]+)\) — \S", index, re.M)
    assert all(text == target for text, target in linked), linked
    targets = [target for _, target in linked]
    assert len(targets) == len(set(targets)), "a page is listed twice"
    pages = sorted(p.name for p in DOCS.glob("*.md") if p.name != "index.md")
    assert sorted(targets) == pages


def test_the_readme_points_to_the_index():
    readme = (DOCS.parent / "README.md").read_text(encoding="utf-8")
    assert "(docs/index.md)" in readme
