"""Re-measure published rows and put their new at-rest result sets in place of the old ones.

Each row runs on the runtime its published set ran on (run.json's ``runtime``) into a scratch
folder; only a set that completed and verifies replaces the published one, whose lifecycle set
(``lifecycle/``) is kept as it is (``scripts/variant_changes_doc.py`` then lists what changed
against the sets of an earlier commit). A row that fails leaves its published
set untouched, its scratch set is kept (the path is printed) and the script exits 1 at the end,
naming it.

    python scripts/republish.py                      # every row under results/published/
    python scripts/republish.py langgraph-sqlite
    python scripts/republish.py --new my-row other-row=docker   # publish rows for the first time
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PUBLISHED = ROOT / "results" / "published"
MEMLAB = ROOT / ".venv" / "bin" / "memlab"
KEEP = {"lifecycle"}


NEW_RUNTIME: dict[str, str] = {}  # a row not yet published -> the runtime it runs on (--new)


def runtime_of(row: str) -> str:
    """The runtime the published set of ``row`` ran on (a new row: the one --new gave)."""
    if row in NEW_RUNTIME:
        return NEW_RUNTIME[row]
    return json.loads((PUBLISHED / row / "run.json").read_text())["runtime"]


def measure(row: str, scratch: Path) -> tuple[Path | None, str]:
    """Run ``row`` into ``scratch/row`` and verify it: (the set, '') or (None, why not)."""
    out = scratch / row
    run = subprocess.run([str(MEMLAB), "-q", "run", "--sut", row, "--runtime", runtime_of(row), "--out", str(out)],
                         capture_output=True, text=True)
    if run.returncode != 0:
        return None, f"memlab run exited {run.returncode}: {run.stderr.strip()[-800:]}"
    check = subprocess.run([str(MEMLAB), "verify", str(out)], capture_output=True, text=True)
    if check.returncode != 0:
        return None, f"memlab verify exited {check.returncode}: {check.stdout.strip()[-800:]}"
    return out, ""


def put_in_place(row: str, new: Path) -> None:
    """The new set's files in place of the old at-rest set's, the lifecycle set kept."""
    target = PUBLISHED / row
    target.mkdir(exist_ok=True)
    for item in target.iterdir():
        if item.name not in KEEP:
            shutil.rmtree(item) if item.is_dir() else item.unlink()
    for item in new.iterdir():
        if item.name not in KEEP:
            (shutil.copytree if item.is_dir() else shutil.copy2)(item, target / item.name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", nargs="*", help="rows to re-measure (default: every published row)")
    parser.add_argument("--new", nargs="+", default=[], metavar="ROW[=RUNTIME]",
                        help="rows to publish for the first time (runtime local unless given)")
    args = parser.parse_args(argv)
    for spec in args.new:
        name, _, runtime = spec.partition("=")
        NEW_RUNTIME[name] = runtime or "local"
    rows = [*args.rows, *NEW_RUNTIME] if args.rows or NEW_RUNTIME else \
        sorted(p.name for p in PUBLISHED.iterdir() if (p / "run.json").is_file())
    unknown = [r for r in rows if r not in NEW_RUNTIME and not (PUBLISHED / r / "run.json").is_file()]
    if unknown:
        print(f"republish: no published set for {', '.join(unknown)} under {PUBLISHED}", file=sys.stderr)
        return 2
    failed = []
    tmp = tempfile.mkdtemp(prefix="memlab-republish-")
    for n, row in enumerate(rows, 1):
        started = time.monotonic()
        new, why = measure(row, Path(tmp))
        if new is None:
            failed.append(row)
            print(f"[{n}/{len(rows)}] {row}: NOT republished (its set: {Path(tmp) / row}): {why}", flush=True)
            continue
        put_in_place(row, new)
        shutil.rmtree(new)
        print(f"[{n}/{len(rows)}] {row} ({runtime_of(row)}): republished in {time.monotonic() - started:.1f} s",
              flush=True)
    if failed:
        print(f"republish: {len(failed)} row(s) not republished: {', '.join(failed)} (their sets under {tmp})",
              file=sys.stderr)
        return 1
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
