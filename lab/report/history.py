"""A row's history across releases of its SUT package, from a sweep's record (``sweep.json``, made by
``memlab sweep``; lab.sweep.summary): a line of every release the sweep named — measured, skipped by
the halving, not installable — each release where cells moved marked with them, then the cells that
moved, release by release, and each change in words with the last release of the old verdict and the
first of the new. Static HTML, no script, as the other reports; every text from the record escaped.
The record is plain data here: the site's command reads and checks it (lab.cli.site).
"""

from __future__ import annotations

from html import escape
from typing import Any

CSS = ("ol.hist{display:flex;flex-wrap:wrap;list-style:none;padding:0;gap:4px;margin:8px 0}"
       "ol.hist li{border:1px solid #d0d7de;border-radius:4px;padding:2px 6px;font-size:12px;line-height:1.3}"
       "ol.hist li.measured{background:#ddf4ff}ol.hist li.moved{background:#fff8c5;border-color:#bf8700}"
       "ol.hist li.skipped{color:#57606a;border-style:dashed}ol.hist li.not-installed,ol.hist li.failed"
       "{background:#ffebe9}ol.hist small{display:block;color:#57606a}")

#: Short labels in the history table.
SHORT = {"REJECTED": "REJ", "REPORTED": "REP", "ACCEPTED": "ACC", "error": "ERR", "NOT TESTED": "NT",
         "INCONCLUSIVE": "INC", "not evaluable": "n.e."}
WORDS = {"measured": "measured", "skipped": "skipped by the halving", "not-installed": "could not be installed",
         "failed": "could not be measured", "interrupted": "interrupted", "pending": "not measured"}


def summary_line(doc: dict[str, Any]) -> str:
    """One line for the index: the releases swept and how many cells moved."""
    versions = [r.get("version") for r in doc.get("releases", [])]
    moved = len({c.get("cell") for c in doc.get("changes", [])})
    span = f"{versions[0]} → {versions[-1]}" if len(versions) > 1 else (versions[0] if versions else "-")
    return f"{doc.get('package')} {span}: {moved} cell(s) moved"


def render(doc: dict[str, Any], anchor: str = "history") -> str:
    """The history section of a SUT's page."""
    releases = doc.get("releases", [])
    changes = doc.get("changes", [])
    moved_at: dict[str, list[str]] = {}
    for change in changes:
        moved_at.setdefault(str(change.get("first_new")), []).append(str(change.get("cell")))
    items = []
    for release in releases:
        version, status = str(release.get("version")), str(release.get("status"))
        moved = moved_at.get(version, [])
        kind = "moved" if moved else status
        note = f"<small>{escape(', '.join(moved))}</small>" if moved else ""
        title = WORDS.get(status, status) + (f"; same cells at {' and '.join(release['skipped_between'])}"
                                             if release.get("skipped_between") else "")
        items.append(f'<li class="{escape(kind)}" title="{escape(title)}">{escape(version)}{note}</li>')
    measured = [r for r in releases if r.get("status") == "measured" and r.get("version") in doc.get("cells", {})]
    cells = list(dict.fromkeys(str(c.get("cell")) for c in changes))
    table = ""
    if cells and measured:
        head = "".join(f"<th>{escape(str(r['version']))}</th>" for r in measured)
        body = "".join(f"<tr><th>{escape(cell)}</th>" + "".join(
            f"<td>{escape(SHORT.get(v := str(doc['cells'][r['version']].get(cell, '-')), v))}</td>" for r in measured)
            + "</tr>" for cell in cells)
        table = f'<table class="m"><tr><th>cell</th>{head}</tr>{body}</table>'
    words = "".join(f"<li><b>{escape(str(c.get('cell')))}</b>: {escape(str(c.get('old')))} → {escape(str(c.get('new')))}, "
                    f"first in {escape(str(c.get('first_new')))} (last with the old: {escape(str(c.get('last_old')))})"
                    + (f"; not measured between them: {escape(', '.join(map(str, c['unmeasured_between'])))}"
                       if c.get("unmeasured_between") else "") + "</li>" for c in changes)
    skipped = sum(1 for r in releases if r.get("status") == "skipped")
    lead = (f"<p>{escape(str(doc.get('row')))} measured by <code>memlab sweep</code> against {len(releases)} release(s) of "
            f"{escape(str(doc.get('package')))} (the row pins {escape(str(doc.get('pinned')))}): {len(measured)} measured"
            + (f", {skipped} skipped by the halving" if skipped else "") + ". Each release is a row of its own, "
            "in a result set of its own; a release where cells moved is marked with them.</p>")
    variants = doc.get("variant_changes", [])
    more = ""
    if variants:
        lines = "".join(f"<li>{escape(str(c.get('cell')))}: {escape(str(c.get('old')))} → {escape(str(c.get('new')))}, "
                        f"first in {escape(str(c.get('first_new')))} (last with the old: {escape(str(c.get('last_old')))})"
                        "</li>" for c in variants)
        more = (f"<details><summary>{len(variants)} change(s) of a case's expressions (variants; a cell is the weakest "
                f"of them)</summary><ul>{lines}</ul></details>")
    return (f'<h2 id="{escape(anchor)}">History: {escape(str(doc.get("package")))} releases</h2>{lead}'
            f'<ol class="hist">{"".join(items)}</ol>{table}'
            + (f"<ul>{words}</ul>" if words else "<p>No cell moved between the releases measured.</p>") + more)
