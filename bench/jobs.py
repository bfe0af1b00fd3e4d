"""Wall time of rows (default the reference rows) with --jobs 1 and --jobs 2 (trials side by side), medians of 3.

Runs the matrix on the local runtime, the two settings interleaved (1, 2, 1, 2, ...) so the
machine's load falls on both alike, and prints each run's seconds, the medians and their ratio;
the verdicts of every run are checked to be those of the first (a faster run that measured
something else would be no figure at all).

    python bench/jobs.py                 # reference-*, 3 runs of each
    python bench/jobs.py --runs 5 --jobs 1 --jobs 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lab.cli import configure_logging  # noqa: E402
from lab.method.engine import run_matrix  # noqa: E402
from lab.profile import load_profiles, select  # noqa: E402
from lab.runtime.local import LocalRuntime  # noqa: E402


def one_run(out: Path, pattern: str, jobs: int) -> tuple[float, dict[str, list[str]]]:
    """Seconds of one run, and its verdicts by row."""
    runtime = LocalRuntime()
    started = time.monotonic()
    try:
        rows = run_matrix(select(load_profiles(), [pattern]), runtime, out, jobs=jobs, nonce="bench").rows
    finally:
        runtime.close()
    seconds = time.monotonic() - started
    verdicts = {f"{r['row']}@{r['detection_point']}": [c["verdict"] for _, c in sorted(r["cells"].items())]
                for r in rows}
    return seconds, verdicts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sut", default="reference-*", help="rows (a glob)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each setting")
    parser.add_argument("--jobs", type=int, action="append", help="settings (default 1 and 2)")
    args = parser.parse_args()
    settings = args.jobs or [1, 2]
    configure_logging(0, quiet=True)
    seconds: dict[int, list[float]] = {j: [] for j in settings}
    first = None
    with tempfile.TemporaryDirectory(prefix="memlab-bench-jobs-") as tmp:
        rows = len(select(load_profiles(), [args.sut]))
        print(f"{args.sut}: {rows} rows, local runtime, fork server on; runs interleaved")
        for run in range(1, args.runs + 1):
            for jobs in settings:
                took, verdicts = one_run(Path(tmp) / f"jobs{jobs}-{run}", args.sut, jobs)
                first = first or verdicts
                same = "same verdicts" if verdicts == first else "VERDICTS DIFFER"
                seconds[jobs].append(took)
                print(f"  run {run}  --jobs {jobs}: {took:6.1f} s  ({same})")
    medians = {j: statistics.median(v) for j, v in seconds.items()}
    base = medians[settings[0]]
    for jobs in settings:
        print(f"median --jobs {jobs}: {medians[jobs]:6.1f} s  ({base / medians[jobs]:.2f}x of --jobs {settings[0]})")


if __name__ == "__main__":
    main()
