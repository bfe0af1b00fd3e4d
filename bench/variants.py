"""What the variants of the cases cost, row by row: trials and seconds with and without them.

Reads result sets (by default every published one) and prints, per row, how many trials its
cases took (the base trials T1..T10 and the variant trials), the seconds they took (the sum of
each trial's ``timings.total``; trials run one after the other in a case, side by side across
cases with --jobs), the median seconds of one base trial and of one variant trial, and the
ratio of the cases' time with the variants to their time without.

    python bench/variants.py                          # results/published/*
    python bench/variants.py --from results/X ...     # other sets
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lab.cases import CASE_IDS  # noqa: E402
from lab.cases.variants import is_variant  # noqa: E402


def trial_seconds(obs_dir: Path) -> tuple[list[float], list[float]]:
    """Seconds of each measured base case trial and of each variant trial in one row's folder."""
    base, variants = [], []
    for path in sorted(obs_dir.glob("T*.json")):
        name = path.stem
        if name not in CASE_IDS and not is_variant(name):
            continue
        seconds = (json.loads(path.read_text()).get("timings") or {}).get("total")
        if seconds is not None:
            (variants if is_variant(name) else base).append(float(seconds))
    return base, variants


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="sets", nargs="+", type=Path,
                        default=sorted((ROOT / "results" / "published").glob("*/")))
    args = parser.parse_args(argv)
    print(f"{'row':34} {'base':>5} {'var':>4} {'base s':>8} {'var s':>8} {'med base':>9} {'med var':>8} {'ratio':>6}")
    all_base = all_var = 0.0
    for root in args.sets:
        for obs_dir in sorted((root / "observations").glob("*/")):
            base, variants = trial_seconds(obs_dir)
            if not base:
                continue
            b, v = sum(base), sum(variants)
            all_base, all_var = all_base + b, all_var + v
            med_v = f"{statistics.median(variants):8.3f}" if variants else f"{'-':>8}"
            print(f"{obs_dir.name:34} {len(base):5d} {len(variants):4d} {b:8.2f} {v:8.2f} "
                  f"{statistics.median(base):9.3f} {med_v} {(b + v) / b:6.2f}")
    if all_base:
        print(f"{'all rows':34} {'':5} {'':4} {all_base:8.2f} {all_var:8.2f} {'':9} {'':8} "
              f"{(all_base + all_var) / all_base:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
