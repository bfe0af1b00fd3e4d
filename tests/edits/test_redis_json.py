"""List-element records in RedisJSON documents (``backend: redis`` with ``records:``) on a real Redis
Stack server (the lab's own service runner: conftest.py): the current version is the one a pointer
key names, and a rollback deletes the newer documents with their pending-write keys and sorted sets
and points the pointer back. Each operation's postcondition is the conformance suite's."""

import pytest
import redis
from edit_stores import CONTEXTS, FACTS, marker, specs
from list_writes import list_writes

from edits.base import editor_for
from edits.layout import LayoutError, parse_layout

STORE = {"backend": "redis", "volume": "data", "service": "stack", "key": "cp:{context}:ns:{id}",
         "latest": "cp_latest:{context}:ns", "order": "@position",
         "cascade_keys": ["cpw:{context}:ns:{version}:*", "wz:{context}:ns:{version}"],
         "payload": {"field": "checkpoint", "format": "json", "path": ["channel_values", "messages"]},
         "records": {"text": ["kwargs", "content"], "identity": [["kwargs", "id"]],
                     "metadata": {"role": ["kwargs", "type"]}, "version": "checkpoint_id"}}
LAYOUT = parse_layout(STORE)


def _message(ctx, i):
    text = f"{marker(ctx, i)} note {i} in {ctx}" + (f", the code is {FACTS[ctx]}" if i == 3 else "")
    return {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "HumanMessage"],
            "kwargs": {"content": text, "type": "human" if i % 2 else "ai",
                       "id": f"{ctx.lower()}{i:04d}-0000-4000-8000-000000000000"}}


def fill(url):
    """Per write an input document (the old list, a pending write and its sorted set) and a done
    document with the message appended; the pointer names each context's last. Returns versions."""
    client = redis.Redis.from_url(url, decode_responses=True)
    client.flushall()
    versions = {}
    for i, ctx, stage, n, v, messages in list_writes(_message):
        doc = {"thread_id": ctx, "checkpoint_id": v, "has_writes": stage == "input",
               "checkpoint": {"v": 4, "id": v, "channel_values": {"messages": messages} if messages else {}}}
        client.json().set(f"cp:{ctx}:ns:{v}", "$", doc)
        if stage == "input":
            client.json().set(f"cpw:{ctx}:ns:{v}:task:0", "$", {"channel": "messages", "blob": "e30="})
            client.zadd(f"wz:{ctx}:ns:{v}", {f"cpw:{ctx}:ns:{v}:task:0": 0})
        else:
            versions[v] = marker(ctx, i)
        client.set(f"cp_latest:{ctx}:ns", f"cp:{ctx}:ns:{v}")
    return client, versions


def test_t2_drops_the_newer_documents_their_write_keys_and_points_back(redis_stack_url):
    client, versions = fill(redis_stack_url)
    editor = editor_for(LAYOUT, {}, {"stack": redis_stack_url}, versions=versions)
    applied = editor.apply(specs("role")["T2"])
    kept = applied.detail["kept_current"]
    assert client.get("cp_latest:A:ns") == f"cp:A:ns:{kept}"
    doomed = applied.detail["deleted_versions"]
    assert doomed and all(v > kept for v in doomed)
    assert not [k for v in doomed for k in client.keys(f"*:A:ns:{v}*")]  # documents, writes, sorted sets
    assert {k for k in client.keys("wz:B:*")} and client.get("cp_latest:B:ns")  # the other context untouched


def test_the_pointer_not_the_greatest_version_decides_what_is_current(redis_stack_url):
    client, versions = fill(redis_stack_url)
    first = min(v for v in versions if client.json().get(f"cp:A:ns:{v}"))
    client.set("cp_latest:A:ns", f"cp:A:ns:{first}")
    records = editor_for(LAYOUT, {}, {"stack": redis_stack_url}).records()
    assert [r.payload[:9] for r in records if r.context == "A"] == [marker("A", 1)[:9]]
    assert {r.context for r in records} == set(CONTEXTS)


@pytest.mark.parametrize("change, field", [
    ({"latest": "cp_latest:ns"}, "store.latest"),
    ({"cascade_keys": ["cpw:{context}:*"]}, "store.cascade_keys"),
    ({"cascade_keys": "cpw:{context}:{version}"}, "store.cascade_keys"),
    ({"records": None}, "store.latest"),
])
def test_the_pointer_and_cascade_fields_are_checked(change, field):
    with pytest.raises(LayoutError) as err:
        parse_layout({**STORE, **change})
    assert str(err.value).startswith(field)
