#!/usr/bin/env python3
"""Screenshot the HTML report of a result set, rendered by the current code, in headless Chromium.

    python3 scripts/screenshots.py                 # a fresh `memlab run --runtime local --sut 'reference-*'`
    python3 scripts/screenshots.py results/published/langgraph-sqlite --cell langgraph-sqlite@read:T1
    python3 scripts/screenshots.py --site          # `memlab site results/published/*`: its index page

With no result set, the reference rows are run into a temporary folder first. The page is
rendered from that set by ``lab.report`` as it is now (not the set's own report.html, which an
older lab may have written), opened with one cell's panel shown (``#d-<row>-<case>``, as a click
on the cell does) and written to ``docs/report-screenshot.png``: the image the README shows.
Chromium runs with a fresh profile folder, no network services, no GPU; exit 0 when the PNG
was written, 1 when a step failed (with what it printed). With ``--site``, the index page of
``memlab site`` over every published set is written to ``docs/site-screenshot.png`` instead.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lab.cases import CASE_IDS  # noqa: E402
from lab.judge.row import AtRestRow  # noqa: E402
from lab.report.common import row_key  # noqa: E402
from lab.report.files import render  # noqa: E402
from lab.resultset.loading import load_row_records, load_run  # noqa: E402

DEFAULT_OUT = ROOT / "docs" / "report-screenshot.png"
SITE_OUT = ROOT / "docs" / "site-screenshot.png"
DEFAULT_CELL = "reference-naive@read:T1"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars"]


def _fail(message: str) -> None:
    print(f"screenshots: {message}", file=sys.stderr)
    sys.exit(1)


def fresh_result_set(work: Path) -> Path:
    """``memlab run --runtime local --sut 'reference-*'`` into ``work/rs`` (the matrix on stderr)."""
    out = work / "rs"
    proc = subprocess.run([sys.executable, "-m", "lab.cli", "run", "--runtime", "local", "--sut", "reference-*",
                           "--out", str(out), "--no-reports"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        _fail(f"memlab run exited {proc.returncode}:\n{proc.stderr[-4000:]}")
    return out


def anchor(rows: list[AtRestRow], cell: str) -> str:
    """``d-<i>-<case>`` of ``ROW@POINT:CASE`` (the first row's T1 when that row is not in the set)."""
    key, _, case = cell.rpartition(":")
    if case not in CASE_IDS:
        _fail(f"--cell {cell!r}: the case must be one of {', '.join(CASE_IDS)}")
    keys = [row_key(r) for r in rows]
    if key not in keys:
        print(f"screenshots: {key} is not in the set; showing {keys[0]}:{case}", file=sys.stderr)
    return f"d-{keys.index(key) if key in keys else 0}-{case}"


def screenshot(page: Path, fragment: str, out: Path, width: int, height: int, browser: str) -> None:
    """Headless Chromium: ``page#fragment`` in a ``width`` x ``height`` window, saved as ``out``."""
    with tempfile.TemporaryDirectory(prefix="memlab-chromium-") as profile:
        shot = Path(profile) / "shot.png"
        cmd = [browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}/data", f"--screenshot={shot}",
               f"--window-size={width},{height}", f"{page.resolve().as_uri()}#{fragment}"]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
        if proc.returncode != 0 or not shot.exists() or shot.read_bytes()[:8] != b"\x89PNG\r\n\x1a\n":
            _fail(f"chromium exited {proc.returncode} without a PNG:\n{proc.stderr[-4000:]}")
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, out)


def site_screenshot(args: argparse.Namespace) -> int:
    """``memlab site`` over every published set into a temporary folder; its index page shot."""
    out = args.out or SITE_OUT
    with tempfile.TemporaryDirectory(prefix="memlab-screenshots-") as tmp:
        sets = sorted(str(p) for p in (ROOT / "results" / "published").iterdir())
        proc = subprocess.run([sys.executable, "-m", "lab.cli", "site", *sets, "--out", tmp], cwd=ROOT,
                              capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            _fail(f"memlab site exited {proc.returncode}:\n{proc.stderr[-4000:]}")
        screenshot(Path(tmp) / "index.html", "", out, args.width, args.height, args.chromium)
    print(f"wrote {out} ({out.stat().st_size} bytes) from {len(sets)} published sets")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, get a result set, render its page, screenshot it."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("result_set", nargs="?", type=Path, help="a result set (default: a fresh reference run)")
    parser.add_argument("--out", type=Path, help=f"the PNG (default {DEFAULT_OUT}, with --site {SITE_OUT})")
    parser.add_argument("--site", action="store_true", help="the index page of `memlab site results/published/*`")
    parser.add_argument("--cell", default=DEFAULT_CELL, help=f"ROW@POINT:CASE whose panel is open ({DEFAULT_CELL})")
    parser.add_argument("--width", type=int, default=1600)
    parser.add_argument("--height", type=int, default=1380)
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", "/usr/bin/chromium"))
    args = parser.parse_args(argv)
    if not Path(args.chromium).exists() and not shutil.which(args.chromium):
        _fail(f"no Chromium at {args.chromium} (apt-get install -y chromium, or --chromium PATH)")
    if args.site:
        return site_screenshot(args)
    args.out = args.out or DEFAULT_OUT
    with tempfile.TemporaryDirectory(prefix="memlab-screenshots-") as tmp:
        work = Path(tmp)
        root = args.result_set or fresh_result_set(work)
        rows, run = load_row_records(root), load_run(root)
        page = work / "report.html"
        page.write_text(render("html", rows, run, root), encoding="utf-8")
        screenshot(page, anchor(rows, args.cell), args.out, args.width, args.height, args.chromium)
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes) from {len(rows)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
