"""What composition costs: sequences tried, trials and seconds per row, beside the at-rest run alone and agmi's composition engine.

Per row, interleaved round after round: ``memlab run --sut ROW`` (the at-rest trials alone), ``memlab compose
--sut ROW`` (the same trials, then every sequence of 2 moves around each edit and each SUT move alone, on the
same seeded store and fork server) and, where agmi has a composition target for the row, ``python -m
agmi.agent --target T --compose`` in the row's own venv (bench/peer_agmi.py). All on the local runtime, each
command whole (start-up, the set written and pinned, no reports). Medians of ``--runs``; the sequences and
trials are those of the last composition.

    python3 bench/compose.py                       # the calibration rows and agmi's targets
    python3 bench/compose.py --row reference-audit --runs 1
    python3 bench/compose.py --row reference-audit --edits 1 --edits 2 --no-agmi   # what pairs of edits add

``--edits`` (repeatable) composes with sequences of one edit (1) or pairs too (2, the default), each in
turn, and prints the sequences tried, trials and seconds of each. ``--restores`` composes each of those
both without and with the restore moves (``--no-restores``, then the default): what T9 and T10 as moves add.

    python3 bench/compose.py --row reference-sealed --edits 1 --restores --no-agmi
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
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from peer_agmi import AGMI, COMPOSE_TARGETS, agmi_path, compose, interpreter  # noqa: E402

REFERENCE = ["reference-naive", "reference-sealed", "reference-audit"]
TARGET_OF = {row: target for target, row in COMPOSE_TARGETS.items()}


def memlab(command: str, row: str, *extra: str) -> tuple[float, dict]:
    """Seconds of one whole ``memlab run`` or ``memlab compose`` of ``row`` and what its set holds."""
    with tempfile.TemporaryDirectory(prefix="bench-compose-") as tmp:
        out = Path(tmp) / "set"
        began = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "lab.cli", "-q", command, "--sut", row, "--runtime", "local",
                               "--no-reports", "--out", str(out), *extra], cwd=ROOT, capture_output=True, text=True,
                              timeout=7200)
        took = time.monotonic() - began
        if done.returncode not in (0, 1):
            sys.exit(f"bench/compose.py: memlab {command} --sut {row} exited {done.returncode}:\n{done.stderr[-2000:]}")
        folder = out / "observations" / row
        trials = sum(1 for p in folder.rglob("*.json") if "dumps" not in p.relative_to(folder).parts) - 2  # profile, environment
        rows = [json.loads(p.read_text()) for p in sorted((out / "composition").glob("*.json"))]
    return took, {"trials": trials, "sequences": len(rows[0]["sequences"]) if rows else 0,
                  "findings": sum(len(r["findings"]) for r in rows)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--row", action="append", help="a memlab row (repeatable). Default: the calibration rows "
                                                       "and every row with an agmi composition target")
    parser.add_argument("--runs", type=int, default=3, help="interleaved runs (median)")
    parser.add_argument("--edits", type=int, choices=(1, 2), action="append",
                        help="edits a sequence may hold, as memlab compose --edits (repeatable). Default: 2")
    parser.add_argument("--profiles", help="the profiles folder, as memlab compose --profiles (a fixture's)")
    parser.add_argument("--restores", action="store_true",
                        help="compose without and with the restore moves (--no-restores, then the default)")
    parser.add_argument("--no-agmi", action="store_true", help="leave agmi's engine out")
    opts = parser.parse_args()
    rows = opts.row or REFERENCE + list(TARGET_OF)
    if len(opts.edits or [2]) > 1 or opts.no_agmi or opts.restores:
        variants = {f"--edits {e}{' ' + r if r else ''}": ["--edits", str(e), *([r] if r else [])]
                    for e in opts.edits or [2] for r in (["--no-restores", ""] if opts.restores else [""])}
        return pairs_beside(rows, opts.runs, variants, ["--profiles", opts.profiles] if opts.profiles else [])
    agmi = agmi_path() if any(r in TARGET_OF for r in rows) else None
    pythons = {row: interpreter(row) for row in rows if row in TARGET_OF}
    print(f"load average at start: {', '.join(f'{x:.1f}' for x in os.getloadavg())}; {opts.runs} rounds, "
          f"interleaved; local runtime, fork server on; {AGMI}")
    seconds = {row: {"run": [], "compose": [], "agmi": []} for row in rows}
    facts: dict[str, dict] = {}
    for number in range(opts.runs):
        for row in rows:
            if row in TARGET_OF:
                took, data = compose(TARGET_OF[row], pythons[row], agmi)
                if "error" in data:
                    sys.exit(f"bench/compose.py: agmi on {TARGET_OF[row]}: {data['error']}")
                seconds[row]["agmi"].append(took)
            seconds[row]["run"].append(memlab("run", row)[0])
            took, facts[row] = memlab("compose", row)
            seconds[row]["compose"].append(took)
            print(f"  round {number + 1}: {row:30} run {seconds[row]['run'][-1]:6.1f} s, compose "
                  f"{took:6.1f} s" + (f", agmi {seconds[row]['agmi'][-1]:5.1f} s" if seconds[row]["agmi"] else ""),
                  flush=True)
    print("\nper row, median seconds (run: the at-rest trials alone; compose: the same and every sequence of 2 moves; "
          "agmi: its composition engine)")
    print(f"{'row':30} {'sequences':>9} {'trials':>7} {'run':>6} {'compose':>8} {'ratio':>6} {'s/trial':>8} "
          f"{'agmi':>6} {'findings':>8}")
    total = {"run": 0.0, "compose": 0.0}
    for row in rows:
        med = {k: statistics.median(v) for k, v in seconds[row].items() if v}
        total["run"] += med["run"]
        total["compose"] += med["compose"]
        agmi_s = f"{med['agmi']:6.1f}" if "agmi" in med else f"{'-':>6}"
        print(f"{row:30} {facts[row]['sequences']:9} {facts[row]['trials']:7} {med['run']:6.1f} {med['compose']:8.1f} "
              f"{med['compose'] / med['run']:6.1f} {med['compose'] / facts[row]['trials']:8.2f} {agmi_s} "
              f"{facts[row]['findings']:8}")
    print(f"{'all rows, one after another':30} {'':9} {'':7} {total['run']:6.1f} {total['compose']:8.1f} "
          f"{total['compose'] / total['run']:6.1f}")
    return 0


def pairs_beside(rows: list[str], runs: int, variants: dict[str, list[str]], extra: list[str]) -> int:
    """Per row, interleaved: ``memlab compose`` with each variant's options (by its name); median seconds,
    sequences and trials."""
    print(f"load average at start: {', '.join(f'{x:.1f}' for x in os.getloadavg())}; {runs} rounds, interleaved; "
          "local runtime, fork server on")
    seconds: dict[tuple[str, str], list[float]] = {(row, v): [] for row in rows for v in variants}
    facts: dict[tuple[str, str], dict] = {}
    for number in range(runs):
        for row in rows:
            for v, options in variants.items():
                took, facts[row, v] = memlab("compose", row, *options, *extra)
                seconds[row, v].append(took)
                print(f"  round {number + 1}: {row:30} {v}: {took:6.1f} s", flush=True)
    print(f"\n{'row':30} {'options':>25} {'sequences':>9} {'trials':>7} {'seconds':>8} {'s/trial':>8} {'findings':>8}")
    for (row, v), values in seconds.items():
        med, fact = statistics.median(values), facts[row, v]
        print(f"{row:30} {v:>25} {fact['sequences']:9} {fact['trials']:7} {med:8.1f} {med / fact['trials']:8.2f} "
              f"{fact['findings']:8}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
