"""Which host processes belong to a run (by the run id in their environment)."""

from pathlib import Path


def run_processes(run_id: str) -> list[int]:
    """Host processes (SUT drivers, servers, docker CLIs) carrying ``MEMLAB_RUN_ID=run_id``."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if f"MEMLAB_RUN_ID={run_id}".encode() in (proc / "environ").read_bytes():
                found.append(int(proc.name))
        except OSError:
            continue
    return found
