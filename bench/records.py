"""The lab's cost per case as the seeded store grows: records 5 / 100 / 1,000 / 10,000 per context.

Runs one reference row (default reference-naive: a plain SQLite store, no integrity, so the SUT's
own work per record is small and what grows is the lab's) with ``--records N`` on the local
runtime, and prints per N the seeding time and the per-case medians over T1..T10 of each phase:
copy of the seeded volumes, edit + C3 (the edit, the record-level diff, the digests), the SUT's
restart and the read. The lab's part is copy + edit+C3 (+ read, which parses what the SUT served);
the target (issue 15): from 100 records up, its cost per case within 2x of linear in N. The last
column says how far from linear each N is: (lab cost / N) over (lab cost at 100 / 100). Each N is one
``memlab run`` process of its own, whose peak resident memory (the lab's, or a SUT process's where that
is larger) and result-set size are printed beside it (issue 29's bounds at 10,000 records: 300 MB and
3x the seeded store plus what the trials changed).

    python bench/records.py                       # 5, 100, 1000, 10000 on reference-naive
    python bench/records.py --records 5 --records 500 --row reference-naive-jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from per_case import phases  # noqa: E402

LAB_PHASES = ("copy", "edit_c3", "read")


def one(records: int, row: str) -> dict[str, float]:
    """A ``memlab run`` of ``row`` with ``records`` per context: per-phase medians, seeding and wall
    seconds, the process's peak memory (MB) and the result set's size (MB)."""
    with tempfile.TemporaryDirectory(prefix="memlab-records-") as tmp:
        out = Path(tmp) / "rs"
        cmd = [sys.executable, "-m", "lab.cli", "run", "--sut", row, "--runtime", "local", "--jobs", "1",
               "--records", str(records), "--nonce", "bench", "--no-reports", "--out", str(out)]
        started = time.monotonic()
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)  # this run's own peak, not the bench's
        wall = time.monotonic() - started
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"memlab run --records {records} failed:\n{proc.stderr.read().decode()[-2000:]}")
        seed = json.loads((out / "observations" / row / "seed.json").read_text())
        medians = phases(out)[row]
        size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    lab = sum(medians.get(p, 0.0) for p in LAB_PHASES)
    return {**medians, "lab": lab, "seed": (seed.get("timings") or {}).get("total", float("nan")), "wall": wall,
            "peak": usage.ru_maxrss / 1024, "set": size / 1e6}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, action="append", help="records per context (repeatable)")
    parser.add_argument("--row", default="reference-naive")
    args = parser.parse_args()
    counts = args.records or [5, 100, 1000, 10000]
    print(f"{args.row}, local runtime, jobs=1; per-case medians over T1..T10 in ms")
    print(f"{'records':>8}{'seed s':>9}{'copy':>9}{'edit+C3':>9}{'restart':>9}{'read':>9}{'lab':>9}{'case':>9}"
          f"{'wall s':>8}{'vs linear':>10}{'peak MB':>9}{'set MB':>9}")
    base = None
    for n in counts:
        m = one(n, args.row)
        if n >= 100 and base is None:
            base = (n, m["lab"])
        ratio = (m["lab"] / n) / (base[1] / base[0]) if base and n >= 100 else float("nan")
        print(f"{n:>8}{m['seed']:>9.2f}" + "".join(f"{m.get(p, float('nan')) * 1000:>9.1f}"
                                                    for p in ("copy", "edit_c3", "restart", "read", "lab", "total"))
              + f"{m['wall']:>8.1f}{ratio:>10.2f}{m['peak']:>9.0f}{m['set']:>9.1f}", flush=True)
    print("vs linear: (lab ms / records) over the same at the first count >= 100; <= 2.00 meets the target")


if __name__ == "__main__":
    main()
