"""Local backend services: started on their volume, confirmed to be ours, stopped cleanly;
a row whose service cannot run here is refused with the fix."""

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from lab.profile import load_profiles
from lab.profile.model import SERVICE_EDITORS, SERVICE_KINDS
from lab.runtime import runnable, services
from lab.runtime.local import LocalRuntime
from lab.runtime.service_kinds import KINDS
from lab.runtime.service_kinds import redis as redis_kind
from lab.runtime.service_process import wait_ready
from lab.runtime.service_queries import pg_query, redis_info
from lab.runtime.services import ServiceError, ServiceSpec, start_local


@pytest.fixture
def data():
    root = Path(tempfile.mkdtemp(prefix="memlab-test-svc-"))  # PostgreSQL runs as its own user: not under 0700
    root.chmod(0o711)
    yield root / "data"
    shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("kind", ["postgres", "redis"])
def test_a_service_keeps_its_state_in_its_volume_across_restarts(data, kind):
    spec = ServiceSpec("s", kind, "v")
    first = start_local(spec, data, data.parent / "log")
    if kind == "postgres":
        import psycopg
        with psycopg.connect(first.url) as conn:
            conn.execute("CREATE TABLE kept (x int)")
    else:
        import redis
        redis.Redis.from_url(first.url).set("kept", "1")
    first.stop()
    assert first.proc.poll() is not None  # stopped: the volume can be copied as a unit
    again = start_local(spec, data, data.parent / "log")
    try:
        if kind == "postgres":
            assert pg_query(again.url, "SELECT count(*) FROM kept") == "0"
        else:
            import redis
            assert redis.Redis.from_url(again.url).get("kept") == b"1"
        assert again.url.split("//")[1].split("@")[-1].startswith("127.0.0.1:")  # loopback only
    finally:
        again.stop()


def test_a_server_that_does_not_report_our_data_directory_is_refused(data):
    proc = subprocess.Popen(["sleep", "30"])
    try:
        with pytest.raises(ServiceError, match="not our"):
            wait_ready(proc, lambda: "/somewhere/else", str(data), data.parent / "log", seconds=5)
    finally:
        proc.kill()


def test_a_redis_slow_to_answer_is_waited_for_not_a_crash(data):
    """A server that takes the connection but does not answer in time (starved under load) is not
    up yet: waited for until the deadline, then a ServiceError, never redis' own TimeoutError."""
    import socket

    with socket.socket() as mute:
        mute.bind(("127.0.0.1", 0))
        mute.listen()
        url = redis_kind.redis_url(mute.getsockname()[1])
        proc = subprocess.Popen(["sleep", "30"])
        try:
            with pytest.raises(ServiceError, match="did not answer within 6 s"):
                wait_ready(proc, lambda: redis_info(url)[0], str(data), data.parent / "log",
                                    seconds=6)
        finally:
            proc.kill()


def test_a_row_whose_service_is_missing_is_not_runnable_with_the_fix(monkeypatch):
    row = next(p for p in load_profiles() if p.row == "reference-naive-redis")
    monkeypatch.setattr(redis_kind.shutil, "which", lambda name: None)
    ok, why = runnable(LocalRuntime(), row)
    assert not ok and "apt-get install redis-server" in why


def test_redis_stack_absent_or_unable_to_run_here_says_why_and_the_fix(tmp_path, monkeypatch):
    monkeypatch.setattr(redis_kind, "REDIS_STACK", tmp_path)
    why = services.missing_local("redis-stack")
    assert f"no Redis Stack server with RedisJSON and RediSearch at {tmp_path}" in why and "docker runtime" in why
    (tmp_path / "bin").mkdir()
    (tmp_path / "lib").mkdir()
    for module in redis_kind.REDIS_MODULES["redis-stack"]:
        (tmp_path / "lib" / module).touch()
    server = tmp_path / "bin" / "redis-server"
    server.write_text("#!/bin/sh\necho 'error while loading shared libraries: libssl.so.1.1' >&2\nexit 127\n")
    server.chmod(0o755)
    why = services.missing_local("redis-stack")
    assert "does not run here (error while loading shared libraries: libssl.so.1.1)" in why
    assert "MEMLAB_REDIS_STACK" in why
    server.write_text("#!/bin/sh\necho 'Redis server v=7.4.1'\n")
    assert services.missing_local("redis-stack") is None
    command = redis_kind.redis_command("redis-stack", "/d", 7000, stack=tmp_path)
    assert command[0] == str(server) and command[-4:] == ["--loadmodule", str(tmp_path / "lib" / "rejson.so"),
                                                          "--loadmodule", str(tmp_path / "lib" / "redisearch.so")]


def test_the_langgraph_redis_row_is_not_runnable_locally_without_redis_stack(tmp_path, monkeypatch):
    monkeypatch.setattr(redis_kind, "REDIS_STACK", tmp_path / "absent")
    row = next(p for p in load_profiles() if p.row == "langgraph-redis")
    ok, why = runnable(LocalRuntime(), row)
    assert not ok and "Redis Stack" in why and "docker runtime" in why and "MEMLAB_REDIS_STACK" in why


def test_every_kind_the_profile_schema_names_is_one_registered_kind():
    """A new kind: one module under lab/runtime/service_kinds, its entry in KINDS, its name and editor in
    the profile schema; the lists agree."""
    assert sorted(KINDS) == sorted(SERVICE_KINDS) == sorted(SERVICE_EDITORS)
    assert all(KINDS[name].name == name for name in KINDS)
