"""Published rows re-measured with a runtime's fork server off and on (local or docker): seconds and cells.

For each at-rest row: ``run_matrix`` on the local runtime (``--jobs 1``) once with
``LocalRuntime(fork_server=False)`` (every start a plain interpreter) and once with it on,
interleaved, ``--runs`` times; with ``--runtime docker`` the same with ``DockerRuntime`` (off:
every start a new container; on: forked in the row's fork-server container). For each lifecycle
row (``--lifecycle ROW``): ``memlab lifecycle run --position both`` (live, then restarted) with and
without ``--no-fork-server`` on that runtime, and the restarted position's own seconds (its run.json). Every run is compared with the
committed set under ``results/published/`` the way the row tests compare it (cells, C1/C2 and
position; lifecycle: checks, accuracy, errors). Prints per row the median seconds off and on,
the ratio (off / on), whether the fork server served, and whether every run matched.

    python bench/fork_server.py                                   # the four framework rows, 1 run
    python bench/fork_server.py --row langgraph-sqlite --runs 3
    python bench/fork_server.py --row none --lifecycle crewai-ltm-lancedb
    python bench/fork_server.py --row mem0-qdrant-local --row crewai-ltm-lancedb --row hermes-memory-md \
        --lifecycle mem0-qdrant-local --lifecycle crewai-ltm-lancedb --lifecycle hermes-memory-md
    python bench/fork_server.py --runtime docker --row langgraph-sqlite --row openai-agents-sqlite-session
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "rows")]

from integrity_rows import published, summary  # noqa: E402  (what the row tests compare)
from lab.cli import configure_logging  # noqa: E402
from lab.method.engine import run_matrix  # noqa: E402
from lab.profile import load_profiles, select  # noqa: E402
from lab.resultset.results import read_json  # noqa: E402
from lab.runtime.docker import DockerRuntime  # noqa: E402
from lab.runtime.local import LocalRuntime  # noqa: E402

RUNTIMES = {"local": LocalRuntime, "docker": DockerRuntime}

ROWS = ("langgraph-sqlite", "openai-agents-sqlite-session", "llamaindex-memory-sqlite", "mem0-qdrant-local")


def at_rest(row: str, fork: bool, out: Path, runtime_name: str) -> tuple[float, bool, str]:
    """Seconds of one run of ``row``, whether it equals the published row, and the server's note."""
    runtime = RUNTIMES[runtime_name](fork_server=fork)
    began = time.monotonic()
    try:
        rows = run_matrix(select(load_profiles(), [row]), runtime, out, jobs=1).rows
    finally:
        runtime.close()
    seconds = time.monotonic() - began
    then = published(row)
    same = {r["detection_point"]: summary(r) for r in rows} == {p: summary(r) for p, r in then.items()}
    note = read_json(out / "observations" / row / "environment.json")["detail"].get("fork_server", {})
    return seconds, same, "served" if note.get("used") else f"plain ({note.get('reason')})"


def lifecycle(row: str, fork: bool, out: Path, runtime_name: str) -> tuple[float, bool, str]:
    """Seconds of the restarted position of one lifecycle run of ``row`` (the CLI, live and
    restarted), and whether both positions match the published rows."""
    from test_lifecycle_rows import published as lifecycle_published, summary as lifecycle_summary

    args = [sys.executable, "-m", "lab.cli", "lifecycle", "run", "--sut", row, "--runtime", runtime_name,
            "--position", "both", "--out", str(out)] + ([] if fork else ["--no-fork-server"])
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=3600)
    paths = {position: out / "rows" / f"{row}@{position}.json" for position in ("live", "restarted")}
    if done.returncode not in (0, 1) or not all(p.is_file() for p in paths.values()):
        return float("nan"), False, f"exit {done.returncode}: {done.stderr[-300:]}"
    records = {position: json.loads(path.read_text()) for position, path in paths.items()}
    same = all(lifecycle_summary(r) == lifecycle_summary(lifecycle_published(row, p)) for p, r in records.items())
    seconds = next(t["seconds"] for t in json.loads((out / "run.json").read_text())["rows"]
                   if t["position"] == "restarted")
    note = records["restarted"]["describe"].get("fork_server") or {}
    return seconds, same, "served" if note.get("used") else f"plain ({note.get('reason')})"


def bench(name: str, measure, runs: int, runtime_name: str, label: str = "") -> dict:
    """Interleaved off/on runs of one row: medians, the ratio, and whether every run matched."""
    RUNTIMES[runtime_name](fork_server=False).prepare(select(load_profiles(), [name])[0])  # a venv or image
    # build is timed by neither
    seconds: dict[bool, list[float]] = {False: [], True: []}
    matched, notes = True, set()
    for _ in range(runs):
        for fork in (False, True):
            with tempfile.TemporaryDirectory(prefix="bench-fork-") as tmp:
                took, same, note = measure(name, fork, Path(tmp) / "out", runtime_name)
            seconds[fork].append(took)
            matched &= same
            if fork:
                notes.add(note)
            print(f"  {name} fork server {'on ' if fork else 'off'}: {took:7.1f} s  "
                  f"{'matches' if same else 'DIFFERS from'} results/published/{name}", flush=True)
    off, on = statistics.median(seconds[False]), statistics.median(seconds[True])
    return {"row": name + label, "off": off, "on": on, "ratio": off / on if on else float("nan"),
            "matched": matched, "server": "; ".join(sorted(notes))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--row", action="append", help=f"at-rest row (repeatable; 'none' for none). "
                                                       f"Default: {', '.join(ROWS)}")
    parser.add_argument("--lifecycle", action="append", default=[],
                        help="lifecycle row, live and restarted; the restarted position timed (repeatable)")
    parser.add_argument("--runs", type=int, default=1, help="interleaved off/on runs per row (median)")
    parser.add_argument("--runtime", choices=sorted(RUNTIMES), default="local", help="the runtime (default local)")
    opts = parser.parse_args()
    configure_logging(0)
    rows = [r for r in (opts.row or ROWS) if r != "none"]
    results = [bench(r, at_rest, opts.runs, opts.runtime) for r in rows]
    results += [bench(r, lifecycle, opts.runs, opts.runtime, " (lifecycle, restarted)")
                for r in opts.lifecycle]  # live: same cells
    print(f"\n{opts.runtime} runtime")
    print(f"{'row':52} {'off s':>8} {'on s':>8} {'off/on':>7}  cells   fork server")
    for r in results:
        print(f"{r['row']:52} {r['off']:8.1f} {r['on']:8.1f} {r['ratio']:7.2f}  "
              f"{'same' if r['matched'] else 'DIFFER'}    {r['server']}")
    return 0 if all(r["matched"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
