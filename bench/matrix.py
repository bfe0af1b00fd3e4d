"""memlab beside agmi on the same rows: seconds per row, the whole matrix by --jobs, the fork server, the phases.

The peer is PyPI ``agent-memory-integrity`` (agmi, the draft's reference implementation): one
``agmi-check --adapter …`` process per row, in-process, with no real restarts. It runs with the row's
own SUT environment (the lab's cached venv; agmi is pure Python and is put on ``PYTHONPATH`` from its
wheel, so the venv is never changed). memlab runs each row as a user does: ``memlab run --sut ROW
--runtime local --jobs 1`` (CLI start-up, SUT starts, stops, the whole result set), with the fork
server on and, with ``--fork off``, off. Per run, every row is measured by each tool in turn
(interleaved), ``--runs`` times; medians. Then the whole matrix in one ``memlab run`` per ``--jobs``
value (fork server on), and the per-phase medians of memlab's cases (bench/per_case.py's split:
copy, edit + C3, restart, read) from the fork-server run. The last column compares the verdicts
where both measured a case (T1..T9; agmi has no T10).

Environments are built before anything is timed. Records 5 / 100 / 1,000 / 10,000 per context are
bench/records.py's. The issue-15 target: memlab ≤ 1.0× agmi per row.

    python bench/matrix.py                          # every mapped row, 3 runs, fork on and off, jobs 1 and 2
    python bench/matrix.py --row langgraph-sqlite --runs 1 --fork on --jobs 1
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
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from peer_agmi import AGMI, agmi_path, interpreter, run_in_sut  # noqa: E402
from per_case import phases  # noqa: E402

from lab.cli import configure_logging  # noqa: E402
from lab.resultset.results import read_json  # noqa: E402

#: memlab row -> agmi adapter measuring the same SUT configuration (agmi's own adapters).
ADAPTERS = {
    "langgraph-sqlite": "agmi.adapters.langgraph_sqlite:LangGraphSqliteAdapter",
    "langgraph-ledger": "agmi.adapters.langgraph_ledger:LangGraphLedgerAdapter",
    "openai-agents-sqlite-session": "agmi.adapters.openai_agents_session:OpenAIAgentsSessionAdapter",
    "llamaindex-memory-sqlite": "agmi.adapters.llamaindex_memory:LlamaIndexMemoryAdapter",
    "mem0-qdrant-local": "agmi.adapters.mem0_at_rest:Mem0AtRestAdapter",
    "crewai-ltm-lancedb": "agmi.adapters.crewai_lancedb:CrewAILanceDBAdapter",
    "acrf-memory-guard": "agmi.adapters.acrf_memory_guard:AcrfMemoryGuardAdapter",
    "atelya-attest-chain": "agmi.adapters.atelya_attest:AtelyaAttestChainAdapter",
    "atelya-attest-chain+anchor": "agmi.adapters.atelya_attest:AtelyaAttestAnchoredAdapter",
    "continuum-events": "agmi.adapters.continuum_events:ContinuumEventsAdapter",
    "continuum-events+attest": "agmi.adapters.continuum_events:ContinuumEventsAttestedAdapter",
    "inspeximus-default": "agmi.adapters.inspeximus_rows:InspeximusDefaultAdapter",
    "memory-blackbox-md": "agmi.adapters.memory_blackbox:MemoryBlackboxMdAdapter",
    "memory-blackbox-md+restart": "agmi.adapters.memory_blackbox:MemoryBlackboxMdRestartAdapter",
}
#: agmi-check's edit labels start with the case id ("T1 content tamper").
CASE_OF_EDIT = lambda edit: edit.split()[0]  # noqa: E731


def agmi_row(row: str, python: str, agmi: Path) -> tuple[float, dict[str, str]]:
    """Seconds of one ``agmi-check`` of ``row``'s adapter in its SUT venv, and its verdict per case."""
    with tempfile.TemporaryDirectory(prefix="bench-agmi-") as tmp:
        out = Path(tmp) / "row.json"
        began = time.monotonic()
        done = run_in_sut(python, agmi, ["-m", "agmi.check", "--adapter", ADAPTERS[row], "--fail-on", "none",
                                         "--json", str(out)], tmp)
        seconds = time.monotonic() - began
        if not out.is_file():
            return seconds, {"error": f"exit {done.returncode}: {(done.stderr or done.stdout)[-300:]}"}
        edits = json.loads(out.read_text())["edits"]
    return seconds, {CASE_OF_EDIT(e["edit"]): e["verdict"] for e in edits}


def memlab_run(rows: list[str], out: Path, fork: bool, jobs: int) -> float:
    """Seconds of one ``memlab run`` of ``rows`` on the local runtime (exit 0 or 2: rows with errors count)."""
    args = [sys.executable, "-m", "lab.cli", "-q", "run", "--runtime", "local", "--jobs", str(jobs),
            "--out", str(out), "--allow-errors", "--no-reports"] + [a for r in rows for a in ("--sut", r)]
    began = time.monotonic()
    done = subprocess.run(args + ([] if fork else ["--no-fork-server"]), cwd=ROOT, capture_output=True,
                          text=True, timeout=7200)
    if done.returncode != 0:
        sys.exit(f"bench/matrix.py: memlab run {rows} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return time.monotonic() - began


def memlab_verdicts(out: Path, row: str) -> dict[str, str]:
    """memlab's verdict per case of a row (its read-path detection point first)."""
    records = [read_json(p) for p in sorted((out / "rows").glob(f"{row}@*.json"))]
    record = next((r for r in records if r["detection_point"] == "read"), records[0])
    return {case: cell["verdict"] for case, cell in record["cells"].items()}


def agreement(ours: dict[str, str], theirs: dict[str, str]) -> str:
    """How many of the cases both measured got the same verdict, e.g. ``8/9``."""
    both = [c for c in ours if c in theirs]
    return f"{sum(ours[c] == theirs[c] for c in both)}/{len(both)}" if both else "-"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--row", action="append", help=f"a row (repeatable). Default: the {len(ADAPTERS)} mapped")
    parser.add_argument("--runs", type=int, default=3, help="interleaved runs (median)")
    parser.add_argument("--fork", default="on,off", help="fork server modes per row: on, off or on,off")
    parser.add_argument("--jobs", default="1,2", help="--jobs values for the whole matrix (fork server on)")
    opts = parser.parse_args()
    configure_logging(0)
    rows = opts.row or list(ADAPTERS)
    unknown = sorted(set(rows) - set(ADAPTERS))
    if unknown:
        parser.error(f"no agmi adapter for {unknown}: choose from {', '.join(ADAPTERS)}")
    forks = [m == "on" for m in opts.fork.split(",")]
    jobs = [int(j) for j in opts.jobs.split(",") if j]
    agmi = agmi_path()
    pythons = {row: interpreter(row) for row in rows}  # venv builds are timed by neither tool
    seconds: dict[str, dict[str, list[float]]] = {r: {} for r in rows}
    verdicts: dict[str, dict[str, dict[str, str]]] = {r: {} for r in rows}
    split: dict[str, dict[str, float]] = {}
    matrix: dict[int, list[float]] = {j: [] for j in jobs}
    for run in range(opts.runs):
        for row in rows:
            took, verdicts[row]["agmi"] = agmi_row(row, pythons[row], agmi)
            seconds[row].setdefault("agmi", []).append(took)
            for fork in forks:
                with tempfile.TemporaryDirectory(prefix="bench-matrix-") as tmp:
                    out = Path(tmp) / "rs"
                    seconds[row].setdefault(f"fork {'on' if fork else 'off'}", []).append(
                        memlab_run([row], out, fork, 1))
                    verdicts[row]["memlab"] = memlab_verdicts(out, row)
                    if fork:
                        split.update(phases(out))
            print(f"  run {run + 1}: {row}: " + ", ".join(f"{k} {v[-1]:.1f} s" for k, v in seconds[row].items()),
                  flush=True)
        for j in jobs:
            with tempfile.TemporaryDirectory(prefix="bench-matrix-") as tmp:
                matrix[j].append(memlab_run(rows, Path(tmp) / "rs", True, j))
            print(f"  run {run + 1}: whole matrix, --jobs {j}: {matrix[j][-1]:.1f} s", flush=True)
    report(rows, seconds, verdicts, split, matrix, forks)
    return 0


def report(rows, seconds, verdicts, split, matrix, forks) -> None:
    """The tables: per row (medians), the whole matrix by --jobs, and the phase split."""
    modes = [f"fork {'on' if f else 'off'}" for f in forks]
    med = {r: {k: statistics.median(v) for k, v in seconds[r].items()} for r in rows}
    print(f"\nper row, median seconds ({AGMI}: one agmi-check process; memlab: one `memlab run --jobs 1`)")
    print(f"{'row':30} {'agmi':>7}" + "".join(f"{m:>10}" for m in modes) + f"{'memlab/agmi':>12}  verdicts agree")
    for r in rows:
        ours = verdicts[r].get("memlab", {})
        theirs = verdicts[r].get("agmi", {})
        ratio = med[r][modes[0]] / med[r]["agmi"] if med[r]["agmi"] else float("nan")
        note = theirs["error"] if "error" in theirs else agreement(ours, theirs)
        print(f"{r:30} {med[r]['agmi']:7.1f}" + "".join(f"{med[r][m]:10.1f}" for m in modes)
              + f"{ratio:12.2f}  {note}")
    total_agmi = sum(med[r]["agmi"] for r in rows)
    print(f"{'sum':30} {total_agmi:7.1f}" + "".join(f"{sum(med[r][m] for r in rows):10.1f}" for m in modes)
          + f"{sum(med[r][modes[0]] for r in rows) / total_agmi:12.2f}")
    for j, runs in matrix.items():
        print(f"whole matrix in one memlab run, fork server on, --jobs {j}: median {statistics.median(runs):.1f} s "
              f"({statistics.median(runs) / total_agmi:.2f}x agmi's sum)")
    if split:
        print(f"\nmemlab per-case medians in ms (fork server on): {'copy':>8}{'edit+C3':>9}{'restart':>9}{'read':>7}"
              f"{'case':>8}")
        for r in rows:
            p = split.get(r, {})
            print(f"{r:47}" + "".join(f"{p.get(k, float('nan')) * 1000:{w}.0f}"
                                      for k, w in (("copy", 8), ("edit_c3", 9), ("restart", 9), ("read", 7),
                                                   ("total", 8))))


if __name__ == "__main__":
    sys.exit(main())
