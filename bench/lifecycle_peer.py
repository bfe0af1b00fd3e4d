"""A whole lifecycle pack as a user runs it, memlab beside the peer gate memorycheck: medians and ratios.

Each run is one command, as a CI job runs it: ``memorycheck run PACK --adapter SPEC`` and ``memlab
lifecycle run PACK --adapter SPEC --runtime local`` (memlab also writes and pins its result set and
its reports). The cases: memorycheck's own pack and memlab's bundled pack (exported in the peer's
shape, which both read) on the reference modes, and on a shim in the peer's contract (standard
library, a correct keyed store, on loopback). Runs are interleaved (peer, memlab, case after case,
round after round); each case prints every run, both medians and memlab/peer. The peer is
installed by ``scripts/test.d/40-peers.sh``. On the shim both drive the same store, so their gate
verdicts must agree (the run stops if they differ); a reference mode is each tool's own
implementation (the peer's in-process one also filters what it serves by the prompt's words, so
on memlab's pack its ``strict`` misses facts and fails), so there the verdicts are only shown.
memlab's Python code (lab/, edits/, images/) is compiled to bytecode before the rounds, as the peer's
install compiled its own: with PYTHONDONTWRITEBYTECODE set and no bytecode, every memlab run would
compile its modules anew (~0.15 s) and the peer's would not.

    python3 bench/lifecycle_peer.py            # 5 rounds
    python3 bench/lifecycle_peer.py --runs 9
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "lifecycle")]

from peer_gate import PEER, SOURCE  # noqa: E402  (where the tests find the peer and its source)
from shims import peer as shims  # noqa: E402  (the peer-contract shims of the tests)

MEMLAB = [sys.executable, "-m", "lab.cli", "lifecycle"]


def once(tool: str, pack: Path, spec: str, scratch: Path) -> tuple[float, str]:
    """One whole command: (seconds, gate verdict from its --report-json)."""
    report = scratch / f"{tool}-{time.monotonic_ns()}.json"
    cmd = ([str(PEER), "run"] if tool == "peer" else [*MEMLAB, "run", "--runtime", "local", "--out",
                                                      str(scratch / f"set-{time.monotonic_ns()}")])
    started = time.perf_counter()
    done = subprocess.run([*cmd, str(pack), "--adapter", spec, "--report-json", str(report)], cwd=ROOT,
                          capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"{tool} exited {done.returncode} on {pack.name} {spec}:\n{done.stderr[-2000:]}")
    return seconds, json.loads(report.read_text())["gate"]["verdict"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if not PEER.is_file():
        raise SystemExit(f"the peer is not installed at {PEER}: run bash scripts/test.d/40-peers.sh")
    subprocess.run([sys.executable, "-m", "compileall", "-q", "lab", "edits", "images"], cwd=ROOT, check=True,
                   capture_output=True)
    scratch = Path(tempfile.mkdtemp(prefix="memlab-bench-lifecycle-peer-"))
    exported = scratch / "memlab-pack"
    subprocess.run([*MEMLAB, "export", "--to", str(exported)], cwd=ROOT, check=True, capture_output=True)
    packs = {"memorycheck's pack": SOURCE / "scenarios", "memlab's pack": exported}
    with shims.serve("correct") as (url, _):
        config = shims.config(scratch, url)
        cases = [(name, pack, spec) for name, pack in packs.items()
                 for spec in ("reference:naive", "reference:strict", f"http:{config}")]
        times: dict[tuple, dict[str, list[float]]] = {c[:1] + c[2:]: {"peer": [], "memlab": []} for c in cases}
        print(f"load average at start: {', '.join(f'{x:.1f}' for x in os.getloadavg())}; {args.runs} rounds, "
              "interleaved")
        for r in range(1, args.runs + 1):
            for name, pack, spec in cases:
                verdicts = {}
                for tool in ("peer", "memlab"):
                    seconds, verdicts[tool] = once(tool, pack, spec, scratch)
                    times[(name, spec)][tool].append(seconds)
                if spec.startswith("http:") and verdicts["peer"] != verdicts["memlab"]:
                    raise SystemExit(f"the gates differ on {name} {spec}: {verdicts}")
                shown = "http shim" if spec.startswith("http:") else spec
                print(f"  round {r}: {name:<18} {shown:<17} peer {times[(name, spec)]['peer'][-1]:.2f} s "
                      f"({verdicts['peer']}), memlab {times[(name, spec)]['memlab'][-1]:.2f} s ({verdicts['memlab']})",
                      flush=True)
    print(f"load average at end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print("\nwhole command, median seconds (memorycheck 0.1.0 from its source; memlab lifecycle run, local runtime, "
          "its result set and reports written)")
    print(f"{'pack':<20}{'adapter':<18}{'peer':>7}{'memlab':>8}{'memlab/peer':>13}")
    for (name, spec), runs in times.items():
        p, m = statistics.median(runs["peer"]), statistics.median(runs["memlab"])
        shown = "http shim" if spec.startswith("http:") else spec
        print(f"{name:<20}{shown:<18}{p:>7.2f}{m:>8.2f}{m / p:>13.2f}")


if __name__ == "__main__":
    main()
