"""Wall time of the bundled lifecycle pack on lifecycle-strict (1 seed, local runtime).

Each run is what a user waits for: prepare the SUT's environment (cached after the first),
start ONE SUT process (launch + open + describe), run every scenario of the pack, stop, and
judge (replay the ledger, judge every query, the gate).
Prints each run, the median of the runs, and the median of each phase. Target: at most
1 s on a 2-core machine.

    python bench/lifecycle.py              # 5 runs
    python bench/lifecycle.py --runs 9 --row lifecycle-naive
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
from lab.lifecycle.scenario import BUNDLED_PACK, load_pack  # noqa: E402
from lab.profile import load_profile  # noqa: E402
from lab.runtime import get_runtime  # noqa: E402
from lab.runtime.housekeeping import RunRegistry, new_run_id  # noqa: E402

PHASES = ("prepare", "start", "scenarios", "stop", "judge", "total")
#: The peer LIFECYCLE.md compares against; it is not on the registries this machine reaches.
PEER = ("memorycheck 0.1 (its reference adapter, in-process): not installable here (on neither PyPI nor npm); "
        "LIFECYCLE.md quotes 0.3-0.5 s for a whole pack on this kind of machine")


def once(profile: Any, scenarios: list) -> dict[str, float]:
    """One run; seconds per phase."""
    registry = RunRegistry(new_run_id())
    began = time.monotonic()
    adapter = DriverAdapter(profile, get_runtime("local"), registry)
    try:
        adapter.start()
        mid = time.monotonic()
        observations = run_pack(adapter, scenarios, [0])
        done = time.monotonic()
    finally:
        adapter.close()
    stopped = time.monotonic()
    meta = {"row": profile.row, "capabilities": sorted(profile.lifecycle.capabilities)}
    derive_row(meta, {s.id: s for s in scenarios}, observations, "p2")  # replay the ledger, judge, gate
    end = time.monotonic()
    registry.close()
    errors = [o["error"] for o in observations if o["error"]]
    if errors:
        raise SystemExit(f"harness errors: {errors[:3]}")
    return {"prepare": adapter.timings["prepare"], "start": adapter.timings["start"],
            "scenarios": done - mid, "stop": stopped - done, "judge": end - stopped, "total": end - began}


def main() -> None:
    """Warm up once (the cached environment), then time ``--runs`` runs and print them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--row", default="lifecycle-strict")
    args = parser.parse_args()
    configure_logging(0)
    pack = load_pack(BUNDLED_PACK)
    if pack.errors:
        raise SystemExit("the bundled pack does not load:\n" + "\n".join(str(e) for e in pack.errors))
    profile = load_profile(ROOT / "sut_profiles" / f"{args.row}.yaml")
    once(profile, pack.scenarios)  # warm-up: builds (or finds) the cached environment
    runs = [once(profile, pack.scenarios) for _ in range(args.runs)]
    steps = sum(len(s.steps) for s in pack.scenarios)
    print(f"{args.row}: {len(pack.scenarios)} scenarios, {steps} steps, 1 seed, local runtime, one SUT start")
    for i, run in enumerate(runs, 1):
        print(f"  run {i}: " + "  ".join(f"{p} {run[p]:.3f}s" for p in PHASES))
    print("  median: " + "  ".join(f"{p} {statistics.median(r[p] for r in runs):.3f}s" for p in PHASES))
    print(f"  peer: {PEER}")


if __name__ == "__main__":
    main()
