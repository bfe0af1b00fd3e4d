"""Helpers of the docker tests (the fixtures are in conftest.py)."""

from pathlib import Path

from lab.runtime.dockercli import docker

ROOT = Path(__file__).resolve().parents[2]


def containers(run_id: str) -> list[str]:
    """Names of the containers (running or not) labelled with ``run_id``."""
    out = docker("ps", "-a", "--filter", f"label=memlab.run={run_id}", "--format", "{{.Names}}").stdout
    return out.split()


def run_processes(run_id: str) -> list[int]:
    """Host processes (docker CLIs, container processes) carrying ``MEMLAB_RUN_ID=run_id``."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if f"MEMLAB_RUN_ID={run_id}".encode() in (proc / "environ").read_bytes():
                found.append(int(proc.name))
        except OSError:
            continue
    return found
