"""Wall time of the bundled lifecycle pack on a row (default lifecycle-strict; 1 seed, local runtime).

Each run is what a user waits for: prepare the SUT's environment (cached after the first),
start ONE SUT process (launch + open + describe), run every scenario of the pack, stop, and
judge (replay the ledger, judge every query, the gate). In the restarted position the SUT (and
its services) is stopped and started anew after every mutation, and each delete's volume scan
runs while it is stopped; the scan is timed apart from the restarts.
Prints each run, the median of the runs, and the median of each phase; with ``--position
restarted`` (or ``both``) each row is timed live too, and the per-restart cost (median) is
printed beside the live figure. Target (live): at most 1 s on a 2-core machine.

    python bench/lifecycle.py                                  # 5 runs, live
    python bench/lifecycle.py --runs 9 --row lifecycle-naive
    python bench/lifecycle.py --position restarted --row lifecycle-strict --row lifecycle-naive
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lab.cli import configure_logging  # noqa: E402
from lab.lifecycle.adapters.driver import DriverAdapter  # noqa: E402
from lab.lifecycle.derive import derive_row  # noqa: E402
from lab.lifecycle.runner import run_pack  # noqa: E402
from lab.lifecycle.scenario import BUNDLED_PACK  # noqa: E402
from lab.lifecycle.scenario_pack import load_pack  # noqa: E402
from lab.profile import load_profile  # noqa: E402
from lab.runtime import get_runtime  # noqa: E402
from lab.runtime.housekeeping import RunRegistry, new_run_id  # noqa: E402

PHASES = ("prepare", "start", "scenarios", "stop", "judge", "total")


def once(profile: Any, scenarios: list, position: str = "live", runtime: str = "local") -> dict[str, float]:
    """One run; seconds per phase, plus the restarts (count, median) and the erasure scans."""
    registry = RunRegistry(new_run_id())
    began = time.monotonic()
    adapter = DriverAdapter(profile, get_runtime(runtime), registry)
    try:
        adapter.start()
        mid = time.monotonic()
        observations = run_pack(adapter, scenarios, [0], position=position)
        done = time.monotonic()
    finally:
        adapter.close()
    stopped = time.monotonic()
    meta = {"row": profile.row, "position": position, "capabilities": sorted(profile.lifecycle.capabilities)}
    row = derive_row(meta, {s.id: s for s in scenarios}, observations, "p2")  # replay the ledger, judge, gate
    end = time.monotonic()
    registry.close()
    errors = [o["error"] for o in observations if o["error"]]
    if errors:
        raise SystemExit(f"harness errors: {errors[:3]}")
    scans = sum(e["erasure_at_rest"].get("seconds", 0.0) for o in observations for e in o["steps"]
                if "erasure_at_rest" in e)
    return {"prepare": adapter.timings["prepare"], "start": adapter.timings["start"],
            "scenarios": done - mid, "stop": stopped - done, "judge": end - stopped, "total": end - began,
            "restarts": row["restarts"]["count"], "restart": row["restarts"]["median_seconds"] or 0.0, "scans": scans}


def measure(profile: Any, scenarios: list, position: str, runs: int, runtime: str) -> dict[str, float]:
    """``runs`` runs of one position, each printed; the medians."""
    timed = [once(profile, scenarios, position, runtime) for _ in range(runs)]
    print(f"  {position}:")
    for i, run in enumerate(timed, 1):
        print(f"    run {i}: " + "  ".join(f"{p} {run[p]:.3f}s" for p in PHASES))
    medians = {k: statistics.median(r[k] for r in timed) for k in timed[0]}
    print("    median: " + "  ".join(f"{p} {medians[p]:.3f}s" for p in PHASES))
    return medians


def main() -> None:
    """Warm up once per row (the cached environment), then time ``--runs`` runs per position."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--row", action="append", help="a lifecycle row (repeatable; default lifecycle-strict)")
    parser.add_argument("--position", choices=("live", "restarted", "both"), default="live",
                        help="restarted (or both): time live too and print the restart cost beside it")
    parser.add_argument("--runtime", choices=("local", "docker"), default="local")
    args = parser.parse_args()
    configure_logging(0)
    pack = load_pack(BUNDLED_PACK)
    if pack.errors:
        raise SystemExit("the bundled pack does not load:\n" + "\n".join(str(e) for e in pack.errors))
    steps = sum(len(s.steps) for s in pack.scenarios)
    for name in args.row or ["lifecycle-strict"]:
        profile = load_profile(ROOT / "sut_profiles" / f"{name}.yaml")
        once(profile, pack.scenarios, runtime=args.runtime)  # warm-up: builds (or finds) the cached environment
        print(f"{name}: {len(pack.scenarios)} scenarios, {steps} steps, 1 seed, {args.runtime} runtime")
        live = measure(profile, pack.scenarios, "live", args.runs, args.runtime)
        if args.position == "live":
            continue
        again = measure(profile, pack.scenarios, "restarted", args.runs, args.runtime)
        print(f"  live {live['total']:.3f}s  |  restarted {again['total']:.3f}s: {again['restarts']:.0f} restarts, "
              f"median {again['restart']:.3f}s per restart (stop + start), erasure scans {again['scans']:.3f}s "
              f"(live {live['scans']:.3f}s)")
    print("  the peer gate memorycheck beside memlab, whole commands as a CI job runs them: bench/lifecycle_peer.py")


if __name__ == "__main__":
    main()
