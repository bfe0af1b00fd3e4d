"""How long ``memlab`` takes to answer --help and --version: the CLI's start-up, medians of 10 runs.

Each command line is run as a new process (``python -m lab.cli ...``, as the ``memlab`` script runs
it), output discarded, ``--runs`` times, interleaved; the median and the range are printed per
command line, and whether it is within 0.3 s (the target of ``memlab --help``: the CLI imports what
a command needs when it needs it). ``--against REV`` times the same command lines on the tree of an
older commit too (extracted with ``git archive``, the same interpreter and packages), interleaved
with this tree's, so that a change of the start-up is measured under the same load.

    python bench/cli_startup.py                     # 10 runs each
    python bench/cli_startup.py --against e0b0fdf   # and the same on commit e0b0fdf's tree
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = (("--help",), ("run", "--help"), ("verify", "--help"), ("--version",))
TARGET = 0.3


def once(tree: Path, args: tuple[str, ...]) -> float:
    """Seconds of one ``memlab ARGS`` process run on the lab in ``tree``, start to exit (it must exit 0)."""
    began = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "lab.cli", *args], cwd=tree, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    took = time.monotonic() - began
    if done.returncode != 0:
        sys.exit(f"cli_startup: memlab {' '.join(args)} in {tree} exited {done.returncode}: {done.stderr[-2000:]}")
    return took


def lab_of(tree: Path) -> str:
    """Where ``python -m lab.cli`` run in ``tree`` takes the lab from (it must be that tree's)."""
    return subprocess.run([sys.executable, "-c", "import lab; print(lab.__file__)"], cwd=tree, check=True,
                          capture_output=True, text=True).stdout.strip()


def extract(rev: str, into: Path) -> Path:
    """The tree of commit ``rev`` (lab/ and what it reads), written under ``into``."""
    archive = subprocess.run(["git", "archive", "--format=tar", rev], cwd=ROOT, check=True, capture_output=True)
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")
    return into


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="runs per command line (default 10)")
    parser.add_argument("--against", metavar="REV", default=None, help="also time the tree of this commit")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memlab-cli-startup-") as tmp:
        trees = {"this tree": ROOT}
        if args.against:
            trees[args.against] = extract(args.against, Path(tmp))
        for name, tree in trees.items():
            if not lab_of(tree).startswith(str(tree.resolve())):
                sys.exit(f"cli_startup: python in {tree} imports the lab from {lab_of(tree)}, not from {name}")
        times = {(name, cmd): [] for name in trees for cmd in COMMANDS}
        for _ in range(args.runs):
            for (name, cmd), seconds in times.items():
                seconds.append(once(trees[name], cmd))
    print(f"memlab start-up, {args.runs} runs each, interleaved (python {sys.version.split()[0]})")
    for (name, cmd), seconds in times.items():
        median = statistics.median(seconds)
        print(f"  {name:<10} memlab {' '.join(cmd):<14} median {median:5.2f} s  (min {min(seconds):.2f}, "
              f"max {max(seconds):.2f})  {'within' if median <= TARGET else 'over'} {TARGET} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
