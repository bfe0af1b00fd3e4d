"""Choosing a runtime: ``docker`` says why it cannot run and what to do; ``auto`` falls back to local;
``memlab list`` answers for the runtime its ``--runtime`` selects."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lab.runtime import RuntimeUnavailable, get_runtime

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def no_engine(monkeypatch, tmp_path):
    """A docker CLI that never reaches an engine."""
    fake = tmp_path / "docker"
    fake.write_text("#!/bin/sh\necho 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. "
                    "Is the docker daemon running?' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("MEMLAB_DOCKER", str(fake))


def test_docker_without_an_engine_is_refused_with_the_fix(no_engine):
    fix = r"(?s)cannot run here: .*Cannot connect.*docker-up.*--runtime local"
    with pytest.raises(RuntimeUnavailable, match=fix) as err:
        get_runtime("docker")
    assert "running?\n  fix: start an engine" in str(err.value)  # the engine's own sentence, then the fix


def memlab_list(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lab.cli", "list", *args], cwd=ROOT, env=os.environ.copy(),
                          capture_output=True, text=True, timeout=120)


def test_list_answers_for_the_runtime_it_is_given(no_engine):
    local = memlab_list("--runtime", "local")
    assert local.returncode == 0, local.stderr
    assert "reference-naive " in local.stdout and "runnable here (local)" in local.stdout
    assert "(docker)" not in local.stdout
    docker = memlab_list("--runtime", "docker")
    assert docker.returncode == 2 and "the docker runtime cannot run here" in docker.stderr
    assert "--runtime local" in docker.stderr and docker.stdout == ""


def test_auto_without_an_engine_is_local(no_engine):
    assert get_runtime("auto").name == "local"


def test_no_docker_command_at_all(monkeypatch):
    monkeypatch.setenv("MEMLAB_DOCKER", "/nonexistent/docker")
    assert get_runtime("auto").name == "local"
    with pytest.raises(RuntimeUnavailable, match="no '/nonexistent/docker' command"):
        get_runtime("docker")
