"""Per-case wall time of the reference rows, split by phase.

Runs the matrix on the local runtime (or reads a saved result set) and prints,
per row, the median seconds of each phase over the ten cases: copy of the
seeded volumes, edit + C3, SUT restart (launch + open), read (+ audit). T9/T10
put a SUT start and the whole-store copy/restore inside "edit + C3"; "case" is the
whole trial, stop included.

    python bench/per_case.py                    # runs reference-* into a temp folder
    python bench/per_case.py --from results/X   # reads a saved result set
    python bench/per_case.py --runtime docker   # the same on another runtime
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lab.cases import CASE_IDS  # noqa: E402
from lab.cases.seedplan import RECORDS_PER_CONTEXT  # noqa: E402
from lab.cli import configure_logging  # noqa: E402
from lab.method.engine import run_matrix  # noqa: E402
from lab.profile import load_profiles, select  # noqa: E402
from lab.runtime import get_runtime  # noqa: E402

PHASES = ("copy", "edit_c3", "restart", "read", "total")


def measure(out: Path, runtime: str, pattern: str, jobs: int, records: int = RECORDS_PER_CONTEXT) -> float:
    """Run the rows once (``records`` seeded per context); wall seconds of the whole run."""
    started = time.monotonic()
    run_matrix(select(load_profiles(), [pattern]), get_runtime(runtime), out, jobs=jobs, nonce="bench",
               records=records)
    return time.monotonic() - started


def phases(result: Path) -> dict[str, dict[str, float]]:
    """Median seconds per phase for each row of a result set."""
    table = {}
    for row_dir in sorted((result / "observations").iterdir()):
        samples: dict[str, list[float]] = {p: [] for p in PHASES}
        for cid in CASE_IDS:
            path = row_dir / f"{cid}.json"
            timings = json.loads(path.read_text()).get("timings", {}) if path.exists() else {}
            for phase in PHASES:
                if phase in timings:
                    samples[phase].append(timings[phase])
        table[row_dir.name] = {p: statistics.median(v) for p, v in samples.items() if v}
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="source", type=Path, help="a saved result set to read instead of running")
    parser.add_argument("--runtime", default="local")
    parser.add_argument("--sut", default="reference-*")
    parser.add_argument("--jobs", type=int, default=1, help="rows side by side (1 = cleanest per-case figures)")
    args = parser.parse_args()
    configure_logging(0)
    if args.source:
        result, wall = args.source, None
    else:
        result = Path(tempfile.mkdtemp(prefix="memlab-bench-"))
        wall = measure(result, args.runtime, args.sut, args.jobs)
    table = phases(result)
    print(f"per-case medians in ms over T1..T10 ({result})")
    print(f"{'row':26}" + "".join(f"{p:>10}" for p in ("copy", "edit+C3", "restart", "read", "case")))
    for row, med in table.items():
        print(f"{row:26}" + "".join(f"{med.get(p, float('nan')) * 1000:10.1f}" for p in PHASES))
    totals = [m["total"] for m in table.values() if "total" in m]
    restarts = [m["restart"] / m["total"] for m in table.values() if "restart" in m and m.get("total")]
    if totals:
        print(f"median case: {statistics.median(totals) * 1000:.1f} ms; restart share of a case: "
              f"{statistics.median(restarts):.0%}")
    if wall is not None:
        print(f"whole run: {wall:.2f} s for {len(table)} rows ({args.runtime} runtime, jobs={args.jobs})")


if __name__ == "__main__":
    main()
