"""The lab's cost per case as the seeded store grows: records 5 / 100 / 1,000 / 10,000 per context.

Runs one reference row (default reference-naive: a plain SQLite store, no integrity, so the SUT's
own work per record is small and what grows is the lab's) with ``--records N`` on the local
runtime, and prints per N the seeding time and the per-case medians over T1..T10 of each phase:
copy of the seeded volumes, edit + C3 (the edit, the record-level diff, the digests), the SUT's
restart and the read. The lab's part is copy + edit+C3 (+ read, which parses what the SUT served);
the target (issue 15): from 100 records up, its cost per case within 2x of linear in N. The last
column says how far from linear each N is: (lab cost / N) over (lab cost at 100 / 100).

    python bench/records.py                       # 5, 100, 1000, 10000 on reference-naive
    python bench/records.py --records 5 --records 500 --row reference-naive-jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from per_case import measure, phases  # noqa: E402

from lab.cli import configure_logging  # noqa: E402

LAB_PHASES = ("copy", "edit_c3", "read")


def one(records: int, row: str) -> dict[str, float]:
    """A run of ``row`` with ``records`` per context: per-phase medians, seeding and wall seconds."""
    with tempfile.TemporaryDirectory(prefix="memlab-records-") as tmp:
        out = Path(tmp) / "rs"
        started = time.monotonic()
        measure(out, "local", row, jobs=1, records=records)
        wall = time.monotonic() - started
        seed = json.loads((out / "observations" / row / "seed.json").read_text())
        medians = phases(out)[row]
    lab = sum(medians.get(p, 0.0) for p in LAB_PHASES)
    return {**medians, "lab": lab, "seed": (seed.get("timings") or {}).get("total", float("nan")), "wall": wall}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, action="append", help="records per context (repeatable)")
    parser.add_argument("--row", default="reference-naive")
    args = parser.parse_args()
    configure_logging(0)
    counts = args.records or [5, 100, 1000, 10000]
    print(f"{args.row}, local runtime, jobs=1; per-case medians over T1..T10 in ms")
    print(f"{'records':>8}{'seed s':>9}{'copy':>9}{'edit+C3':>9}{'restart':>9}{'read':>9}{'lab':>9}{'case':>9}"
          f"{'wall s':>8}{'vs linear':>10}")
    base = None
    for n in counts:
        m = one(n, args.row)
        if n >= 100 and base is None:
            base = (n, m["lab"])
        ratio = (m["lab"] / n) / (base[1] / base[0]) if base and n >= 100 else float("nan")
        print(f"{n:>8}{m['seed']:>9.2f}" + "".join(f"{m.get(p, float('nan')) * 1000:>9.1f}"
                                                    for p in ("copy", "edit_c3", "restart", "read", "lab", "total"))
              + f"{m['wall']:>8.1f}{ratio:>10.2f}", flush=True)
    print("vs linear: (lab ms / records) over the same at the first count >= 100; <= 2.00 meets the target")


if __name__ == "__main__":
    main()
