"""Servers for the editor tests of service backends: PostgreSQL and Redis, each started by the
lab's own service runner on loopback, one per test module that asks for it."""

import shutil
import tempfile
from pathlib import Path

import pytest

from lab.runtime.services import ServiceSpec, start_local


@pytest.fixture(scope="module")
def postgres():
    """The URL of a fresh PostgreSQL server."""
    root = Path(tempfile.mkdtemp(prefix="memlab-test-pg-"))  # PostgreSQL runs as its own user: not under 0700
    root.chmod(0o711)
    svc = start_local(ServiceSpec("db", "postgres", "pgdata"), root / "data", root / "pg.log")
    yield svc.url
    svc.stop()
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    """The URL of a fresh Redis server."""
    root = tmp_path_factory.mktemp("redis")
    svc = start_local(ServiceSpec("cache", "redis", "data"), root / "data", root / "redis.log")
    yield svc.url
    svc.stop()
