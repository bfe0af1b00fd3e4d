"""Derive every published lifecycle set's rows again from its own evidence, under the lab's current rules.

The evidence (run.json, the scenarios, every acknowledgement and served answer, the logs) is
kept byte for byte; the rows, the summary, the reports and the manifest are derived anew, as
``memlab verify`` derives them, so the sets verify under the rules a change of the judge or the
counting brought (the manifest's ``decision_rules`` say which). Nothing is measured again: a
change of what a SUT does needs ``scripts/republish.py`` or a new lifecycle run. A set that does
not verify afterwards is named and the script exits 1.

    python scripts/rederive_lifecycle.py                 # every results/published/*/lifecycle
    python scripts/rederive_lifecycle.py mem0-qdrant-local
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lab.lifecycle.results import load_scenarios, rederive, row_key, summary_json, write_manifest  # noqa: E402
from lab.lifecycle.verify import verify_lifecycle  # noqa: E402
from lab.report.lifecycle_files import write_lifecycle_reports  # noqa: E402
from lab.resultset.results import read_json, write_json  # noqa: E402

PUBLISHED = ROOT / "results" / "published"


def rederive_set(root: Path) -> list[str]:
    """Rows, summary, reports and manifest of one set derived again; the problems verify then finds."""
    run, scenarios = read_json(root / "run.json"), load_scenarios(root)
    rows = []
    for meta in run["rows"]:
        row = rederive(root, meta, run["fail_on"], scenarios)
        write_json(root / "rows" / f"{row_key(meta)}.json", row)
        rows.append(row)
    write_lifecycle_reports(root, rows, run)
    if (root / "summary.json").exists():
        write_json(root / "summary.json", summary_json(rows, run))
    write_manifest(root, run)
    result = verify_lifecycle(root)
    return [f"{f.ground} {f.file}: {f.detail}" for f in result.findings]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", nargs="*", help="published rows (default: every one with a lifecycle set)")
    args = parser.parse_args()
    sets = [PUBLISHED / r / "lifecycle" for r in args.rows] or sorted(PUBLISHED.glob("*/lifecycle"))
    failed = []
    for root in sets:
        problems = rederive_set(root)
        print(f"{'VERIFIED' if not problems else 'REJECTED'} {root.relative_to(ROOT)}", flush=True)
        for line in problems:
            print(f"  {line}")
        failed += [root] if problems else []
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
