"""Choosing a runtime: ``docker`` says why it cannot run and what to do; ``auto`` runs the lab's own
pure-Python rows locally, contains other SUTs where an engine answers, else falls back to local;
``memlab list`` answers for the runtime its ``--runtime`` selects."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lab.runtime import RuntimeUnavailable, get_runtime

ROOT = Path(__file__).resolve().parents[2]


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


def rows(*names: str):
    from lab.profile import load_profiles

    by_row = {p.row: p for p in load_profiles()}
    return [by_row[n] for n in names]


@pytest.fixture
def engine(monkeypatch):
    """Whether a Docker engine answers, as the test says (``engine(True)``); a probe it forbids fails."""
    from lab.runtime.docker import DockerRuntime

    def set_to(answers: bool | None):
        def available(self):
            assert answers is not None, "the docker engine was probed where the choice needs no engine"
            return (True, "engine 27") if answers else (False, "no engine here")
        monkeypatch.setattr(DockerRuntime, "available", available)
    return set_to


def test_auto_runs_the_labs_own_pure_python_rows_locally_without_asking_docker(engine):
    from lab.runtime.choice import choose

    engine(None)
    choice = choose("auto", rows("reference-naive", "reference-sealed", "lifecycle-strict"))
    assert choice.runtime.name == "local" and "lab's own pure-Python" in choice.line()
    assert choice.line().startswith("runtime: local (auto: ")


@pytest.mark.parametrize("answers, name, why", [(True, "docker", "its own code or dependencies"),
                                                (False, "local", "unsandboxed: no engine here")])
def test_auto_contains_a_row_with_its_own_code_where_an_engine_answers(engine, answers, name, why):
    from lab.runtime.choice import choose

    engine(answers)
    choice = choose("auto", rows("reference-naive", "langgraph-sqlite"))
    assert (choice.runtime.name, why in choice.why) == (name, True), choice.line()


def test_asked_runtimes_are_taken_as_asked(engine):
    from lab.runtime.choice import choose

    engine(True)
    assert choose("docker", rows("reference-naive")).runtime.name == "docker"
    engine(None)
    assert choose("local", rows("langgraph-sqlite")).line() == "runtime: local (asked: SUTs as local processes, not sandboxed)"


@pytest.mark.parametrize("command", [("run", "--sut", "reference-naive", "--no-reports"),
                                     ("lifecycle", "run", "--sut", "lifecycle-strict")])
def test_every_run_says_its_runtime_and_why_first(tmp_path, command):
    done = subprocess.run([sys.executable, "-m", "lab.cli", *command, "--out", tmp_path / "set"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    first = done.stderr.splitlines()[0]
    assert first.startswith("runtime: local (auto: only the lab's own pure-Python SUTs"), done.stderr[:500]


def test_list_under_auto_answers_each_row_for_the_runtime_a_run_of_it_would_choose(engine):
    import json

    from click.testing import CliRunner

    from lab.cli import main

    engine(True)
    done = CliRunner().invoke(main, ["list", "--json"])
    assert done.exit_code == 0, done.output
    runtime = {e["row"]: e["runtime"] for e in json.loads(done.output)}
    assert runtime["reference-naive"] == runtime["lifecycle-strict"] == "local"  # the lab's own pure-Python SUTs
    assert runtime["langgraph-sqlite"] == "docker"  # a SUT with its own dependencies, contained
