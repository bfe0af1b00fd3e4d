"""The default rows on the local and the docker runtime, interleaved: seconds, medians and their ratio.

Each round runs the rows (default ``reference-*``, what ``memlab run`` runs) with ``--jobs 2`` on
the local runtime, on the docker runtime as it is (a row's service starts ``docker exec`` in its
service host) and, with ``--per-start``, on the docker runtime with a container of its own per
service start (as before the hosts), one after the other so that the machine's load falls on all
alike. Every run's verdicts are checked to be the first run's: a faster run that measured something
else is no figure. Prints each run, the medians and the ratio to the local runtime, with the load.

    python bench/runtimes.py                     # reference-*, 3 rounds
    python bench/runtimes.py --runs 1 --per-start --sut 'reference-naive*'
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lab.cli import configure_logging  # noqa: E402
from lab.method.engine import run_matrix  # noqa: E402
from lab.profile import load_profiles, select  # noqa: E402
from lab.runtime.docker import DockerRuntime  # noqa: E402
from lab.runtime.docker_services import start_container  # noqa: E402
from lab.runtime.local import LocalRuntime  # noqa: E402


class PerStartDocker(DockerRuntime):
    """The docker runtime with a container of its own for every service start (no service host)."""

    def start_service(self, spec, data, log_path, run_id, on_spawn=None):
        return start_container(spec, data, log_path, run_id)


RUNTIMES = {"local": LocalRuntime, "docker": DockerRuntime, "docker, a container per service start": PerStartDocker}


def one_run(make, out: Path, pattern: str) -> tuple[float, dict[str, list[str]]]:
    """Seconds of one run, and its verdicts by row."""
    runtime = make()
    started = time.monotonic()
    try:
        rows = run_matrix(select(load_profiles(), [pattern]), runtime, out, jobs=2, nonce="bench").rows
    finally:
        runtime.close()
    verdicts = {f"{r['row']}@{r['detection_point']}": [c["verdict"] for _, c in sorted(r["cells"].items())]
                for r in rows}
    return time.monotonic() - started, verdicts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sut", default="reference-*", help="rows (a glob)")
    parser.add_argument("--runs", type=int, default=3, help="rounds")
    parser.add_argument("--per-start", action="store_true", help="also docker with a container per service start")
    args = parser.parse_args()
    names = [name for name in RUNTIMES if args.per_start or "per service" not in name]
    configure_logging(0, quiet=True)
    seconds: dict[str, list[float]] = {name: [] for name in names}
    loads, first, differ = [], None, False
    with tempfile.TemporaryDirectory(prefix="memlab-bench-runtimes-") as tmp:
        rows = len(select(load_profiles(), [args.sut]))
        print(f"{args.sut}: {rows} rows, --jobs 2, fork server on; runtimes interleaved")
        for run in range(1, args.runs + 1):
            for i, name in enumerate(names):
                took, verdicts = one_run(RUNTIMES[name], Path(tmp) / f"{i}-{run}", args.sut)
                first = first or verdicts
                loads.append(os.getloadavg()[0])
                same = "same verdicts" if verdicts == first else "VERDICTS DIFFER"
                differ |= verdicts != first
                seconds[name].append(took)
                print(f"  run {run}  {name:<40} {took:7.1f} s  ({same}, load {loads[-1]:.1f})", flush=True)
    local = statistics.median(seconds["local"])
    for name in names:
        median = statistics.median(seconds[name])
        print(f"median {name:<40} {median:7.1f} s  ({median / local:.2f}x of local)")
    print(f"load during the runs: {min(loads):.1f}-{max(loads):.1f}")
    if differ:
        sys.exit(1)


if __name__ == "__main__":
    main()
