"""What a driver's stop costs with the interpreter's teardown and without it (the kit's os._exit), per row.

For each row, on the local runtime, plain (``python -u driver.py``) and forked from the fork
server: a driver is started on a fresh volume, opened, written to once and read, then stopped as
the lab stops it (stdin closed, ``DriverClient.stop``), timed until the process is gone; once
with ``MEMLAB_DRIVER_TEARDOWN=1`` (the interpreter's teardown, as before) and once without (the
kit's ``finish``: the SUT's close, its threads and exit hooks, then ``os._exit``), interleaved,
``--runs`` times. Prints the median stop per row and path, and what skipping the teardown saves.

    python bench/driver_stop.py                       # seven rows, 3 runs
    python bench/driver_stop.py --row mem0-qdrant-local --runs 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lab.cli import configure_logging  # noqa: E402
from lab.profile import load_profiles, select  # noqa: E402
from lab.runtime.housekeeping import RunRegistry, new_run_id  # noqa: E402
from lab.runtime.local import LocalRuntime  # noqa: E402

ROWS = ("reference-naive", "langgraph-sqlite", "openai-agents-sqlite-session", "llamaindex-memory-sqlite",
        "mem0-qdrant-local", "crewai-ltm-lancedb", "hermes-memory-md")


def one_stop(runtime: LocalRuntime, prepared, registry: RunRegistry, tmp: Path, teardown: bool) -> float:
    """Seconds of one stop of a driver that was opened, written to and read."""
    profile = prepared.profile
    volumes = {name: tmp / "volumes" / name for name in profile.volumes}
    for path in volumes.values():
        path.mkdir(parents=True)
    client = runtime.launch(prepared, volumes, tmp / "scratch", tmp / "sut.log", registry.run_id)
    if teardown:
        client.env["MEMLAB_DRIVER_TEARDOWN"] = "1"
    client.on_start, client.on_stop = registry.track, registry.untrack
    client.start()
    try:
        for op, fields in (("open", {"volumes": client.volume_paths, "config": profile.configuration}),
                           ("write", {"context": "benchctx", "text": "the harbour light is red",
                                      "meta": {"role": "user", "source": "memlab-seed"}}),
                           ("read", {"context": "benchctx"})):
            answer = client.call(op, profile.timeouts["start" if op == "open" else "op"], **fields)
            if not answer["ok"]:
                raise SystemExit(f"{profile.row}: {op} failed: {answer.get('error')} (log {tmp / 'sut.log'})")
    except BaseException:
        client.kill()
        raise
    began = time.monotonic()
    client.stop()
    return time.monotonic() - began


def bench(row: str, fork: bool, runs: int) -> dict:
    """Median stop seconds of one row on one path, with and without the teardown."""
    profile = select(load_profiles(), [row])[0]
    runtime, registry = LocalRuntime(fork_server=fork), RunRegistry(new_run_id())
    seconds: dict[bool, list[float]] = {True: [], False: []}
    try:
        prepared = runtime.prepare(profile)
        served = (prepared.detail.get("fork_server") or {}).get("used", False)
        for _ in range(runs):
            for teardown in (True, False):
                with tempfile.TemporaryDirectory(prefix="bench-stop-", dir=registry.scratch_root) as tmp:
                    seconds[teardown].append(one_stop(runtime, prepared, registry, Path(tmp), teardown))
    finally:
        runtime.close()
        registry.close()
    full, fast = statistics.median(seconds[True]), statistics.median(seconds[False])
    path = "forked" if served else ("plain" if not fork else "plain (server refused)")
    print(f"  {row} {path}: teardown {full:.3f} s, os._exit {fast:.3f} s", flush=True)
    return {"row": row, "path": path, "full": full, "fast": fast}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--row", action="append", help=f"row (repeatable). Default: {', '.join(ROWS)}")
    parser.add_argument("--runs", type=int, default=3, help="interleaved stops with and without teardown (median)")
    opts = parser.parse_args()
    configure_logging(0)
    results = [bench(row, fork, opts.runs) for row in (opts.row or ROWS) for fork in (False, True)]
    print(f"\n{'row':30} {'path':8} {'teardown s':>10} {'os._exit s':>10} {'saved s':>8}")
    for r in results:
        print(f"{r['row']:30} {r['path']:8} {r['full']:10.3f} {r['fast']:10.3f} {r['full'] - r['fast']:8.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
