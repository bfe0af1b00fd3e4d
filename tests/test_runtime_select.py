"""Choosing a runtime: ``docker`` says why it cannot run and what to do; ``auto`` falls back to local."""

import pytest

from lab.runtime import RuntimeUnavailable, get_runtime


@pytest.fixture
def no_engine(monkeypatch, tmp_path):
    """A docker CLI that never reaches an engine."""
    fake = tmp_path / "docker"
    fake.write_text("#!/bin/sh\necho 'Cannot connect to the Docker daemon' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("MEMLAB_DOCKER", str(fake))


def test_docker_without_an_engine_is_refused_with_the_fix(no_engine):
    with pytest.raises(RuntimeUnavailable, match=r"cannot run here: .*Cannot connect.*docker-up.*--runtime local"):
        get_runtime("docker")


def test_auto_without_an_engine_is_local(no_engine):
    assert get_runtime("auto").name == "local"


def test_no_docker_command_at_all(monkeypatch):
    monkeypatch.setenv("MEMLAB_DOCKER", "/nonexistent/docker")
    assert get_runtime("auto").name == "local"
    with pytest.raises(RuntimeUnavailable, match="no '/nonexistent/docker' command"):
        get_runtime("docker")
