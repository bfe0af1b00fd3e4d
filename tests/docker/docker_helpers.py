"""Helpers of the docker tests (the fixtures are in conftest.py)."""

from pathlib import Path

from lab.runtime.dockercli import docker

ROOT = Path(__file__).resolve().parents[2]


def containers(run_id: str) -> list[str]:
    """Names of the containers (running or not) labelled with ``run_id``."""
    out = docker("ps", "-a", "--filter", f"label=memlab.run={run_id}", "--format", "{{.Names}}").stdout
    return out.split()
