"""memlab's front door beside agmi's memory-specific family on the same SUTs: seconds per row, medians, memlab/agmi.

Each run is one command per tool: ``memlab frontdoor run --sut ROW --runtime local --position live
--out DIR`` (CLI start-up, the SUT's driver started and stopped, 18 cells x 5 fixtures, 14 isolation
probes, the set pinned and its reports) and agmi's family on the matching target in the row's own venv
(bench/peer_agmi.py: ``agmi.measure.measure(target, "hash")`` in one process, 6 attacks x 3 channels x 5
fixtures, no restarts, nothing written). Runs are interleaved (agmi, memlab, row after row, round after
round); venvs are built before anything is timed. Where agmi measured nothing (its adapter raised on
every attack) the row says so: its seconds are of a run that failed fast. The figures both give are
compared in tests/frontdoor/test_frontdoor_agmi.py and docs/front-door-peer.md.

    python3 bench/frontdoor.py --runs 3
    python3 bench/frontdoor.py --row inspeximus-default --runs 1
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from peer_agmi import AGMI, FRONTDOOR_TARGETS, agmi_path, frontdoor, interpreter  # noqa: E402

TARGET_OF = {row: target for target, row in FRONTDOOR_TARGETS.items()}


def memlab_row(row: str) -> float:
    """Seconds of one ``memlab frontdoor run`` of ``row``, live position, local runtime (exit 0 or 1)."""
    with tempfile.TemporaryDirectory(prefix="bench-frontdoor-") as tmp:
        began = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "lab.cli", "-q", "frontdoor", "run", "--sut", row, "--runtime",
                               "local", "--position", "live", "--out", str(Path(tmp) / "set")], cwd=ROOT,
                              capture_output=True, text=True, timeout=3600)
        took = time.monotonic() - began
    if done.returncode not in (0, 1):
        sys.exit(f"bench/frontdoor.py: memlab frontdoor run --sut {row} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--row", action="append", choices=list(TARGET_OF),
                        help="a memlab row (repeatable). Default: every row with an agmi target")
    parser.add_argument("--runs", type=int, default=3, help="interleaved runs (median)")
    opts = parser.parse_args()
    rows = opts.row or list(TARGET_OF)
    agmi = agmi_path()
    pythons = {row: interpreter(row) for row in rows}
    print(f"load average at start: {', '.join(f'{x:.1f}' for x in os.getloadavg())}; {opts.runs} rounds, "
          f"interleaved; {AGMI}, embedder hash")
    seconds = {row: {"agmi": [], "memlab": []} for row in rows}
    failed: dict[str, str] = {}
    for run in range(opts.runs):
        for row in rows:
            took, data = frontdoor(TARGET_OF[row], pythons[row], agmi)
            seconds[row]["agmi"].append(took)
            attacks = list(data.get("attacks", {}).values())
            if "error" in data or all(a["error"] and not a["channels"] for a in attacks):
                failed[row] = data.get("error") or attacks[0]["error"]
            seconds[row]["memlab"].append(memlab_row(row))
            print(f"  round {run + 1}: {row:26} agmi {seconds[row]['agmi'][-1]:5.1f} s, "
                  f"memlab {seconds[row]['memlab'][-1]:5.1f} s", flush=True)
    print("\nper row, median seconds (agmi: one process, its family on the target; memlab: one `memlab frontdoor "
          "run --position live`)")
    print(f"{'row':26} {'agmi target':24} {'agmi':>6} {'memlab':>7} {'memlab/agmi':>12}")
    for row in rows:
        med = {tool: statistics.median(runs) for tool, runs in seconds[row].items()}
        print(f"{row:26} {TARGET_OF[row]:24} {med['agmi']:6.1f} {med['memlab']:7.1f} "
              f"{med['memlab'] / med['agmi']:12.1f}" + ("  agmi measured nothing" if row in failed else ""))
    for row, why in failed.items():
        print(f"  {row}: agmi's adapter raised on every attack: {why[:90]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
