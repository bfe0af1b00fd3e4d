"""Servers for the editor tests of service backends: PostgreSQL, Redis and Redis Stack (JSON and
search modules), each started by the lab's own service runner on loopback, one per test module
that asks for it. A spec names its operation (``EditSpec("T3", ..., op="delete")``): nothing has to be
imported first for it to have one."""

import shutil
import tempfile
from pathlib import Path

import pytest

from lab.runtime.services import ServiceSpec, missing_local, start_local


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


@pytest.fixture(scope="module")
def redis_stack_url(tmp_path_factory):
    """The URL of a fresh Redis Stack server: a local one where it runs here, else a container of
    memlab/redis-stack:7.4 (Debian's redis-server has no JSON module). Neither: the test fails, with why."""
    root = tmp_path_factory.mktemp("redis-stack")
    spec = ServiceSpec("stack", "redis-stack", "data")
    why = missing_local("redis-stack")
    if why is None:
        svc = start_local(spec, root / "data", root / "redis.log")
    else:
        from lab.runtime.dockercli import engine
        from lab.runtime.docker_services import start_container

        ok, no_engine = engine()
        if not ok:
            pytest.fail(f"no Redis Stack server: {why}; and no Docker engine ({no_engine}): run .ci/docker-up",
                        pytrace=False)
        svc = start_container(spec, root / "data", root / "redis.log", "edits-test")
    yield svc.url
    svc.stop()
