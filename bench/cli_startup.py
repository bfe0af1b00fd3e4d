"""How long ``memlab`` takes to answer --help and --version: the CLI's start-up, medians of 10 runs.

Each command line is run as a new process (``python -m lab.cli ...``, as the ``memlab`` script runs
it), output discarded, ``--runs`` times, interleaved; the median and the range are printed per
command line, and whether it is within 0.3 s (the target of ``memlab --help``: the CLI imports what
a command needs when it needs it). ``-X importtime`` for one of them shows where its time goes.

    python bench/cli_startup.py               # 10 runs each
    python bench/cli_startup.py --runs 20
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = (("--help",), ("run", "--help"), ("verify", "--help"), ("--version",))
TARGET = 0.3


def once(args: tuple[str, ...]) -> float:
    """Seconds of one ``memlab ARGS`` process, start to exit (it must exit 0)."""
    began = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "lab.cli", *args], cwd=ROOT, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    took = time.monotonic() - began
    if done.returncode != 0:
        sys.exit(f"cli_startup: memlab {' '.join(args)} exited {done.returncode}: {done.stderr[-2000:]}")
    return took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="runs per command line (default 10)")
    runs = parser.parse_args().runs
    times: dict[tuple[str, ...], list[float]] = {args: [] for args in COMMANDS}
    for _ in range(runs):
        for args in COMMANDS:
            times[args].append(once(args))
    print(f"memlab start-up, {runs} runs each, interleaved (python {sys.version.split()[0]}, "
          f"{os.cpu_count()} cores)")
    for args, seconds in times.items():
        median = statistics.median(seconds)
        verdict = "meets" if median <= TARGET else "misses"
        print(f"  memlab {' '.join(args):<16} median {median:5.2f} s  (min {min(seconds):.2f}, max {max(seconds):.2f})"
              f"  {verdict} the {TARGET} s target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
