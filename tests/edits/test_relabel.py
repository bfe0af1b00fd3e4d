"""T8 relabels a metadata field at every place the store keeps it, each in its own vocabulary
(edits.relabel): a LangChain message's role in kwargs.type and its class (and, in LangGraph's
MessagePack, the class's module), on a checkpoints.db in the langgraph-sqlite profile's layout and
in RedisJSON documents in the langgraph-redis profile's; a timestamp kept as ISO text and epoch
seconds in one SQL row. Each edit lands as it says and passes its C3; an edit that relabels one
place only fails the default's C3, and the default fails a place variant's."""

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from edit_stores import marker, specs
from langgraph_store import PROFILE, build, layout
from test_list_variants import edit, messages
from test_redis_json import STORE, fill

from edits.base import editor_for
from edits.layout import LayoutError, parse_layout
from edits.model import EditError
from edits.msgpack import unpack
from edits.volumes import diff_digests, digest_tree
from lab.judge.c3 import check_edit

NEWEST_A = "1f1ec7da-0012-6151-800b-e75989ede412"
PLACES = ["place=2.type", "place=1", "place=0"]
AI = ["langchain_core.messages.ai", "AIMessage", "ai"]


def open_newest(vol):
    """The MessagePack blob of A's newest checkpoint."""
    db = sqlite3.connect(vol / "checkpoints.db")
    try:
        return db.execute("SELECT checkpoint FROM checkpoints WHERE checkpoint_id = ?", (NEWEST_A,)).fetchone()[0]
    finally:
        db.close()


def element(vol, index=2):
    """Module, class and kwargs.type of element ``index`` (A's fact message) of A's newest checkpoint."""
    ext = unpack(open_newest(vol))["channel_values"]["messages"][index]
    return [ext.value[0], ext.value[1], ext.value[2]["type"]]


def test_the_default_relabels_kwargs_type_the_class_and_its_module(tmp_path):
    versions = build(tmp_path)
    spec = specs("role")["T8"]
    before, after, applied, c3 = edit(tmp_path, versions, spec)
    assert c3.ok, c3.reasons
    fact = next(r for r in before if marker("A", 3) in r.payload)
    assert fact.metadata == {"role": "user"} and fact.order == 2  # the word its vocabulary gives "human"
    assert element(tmp_path) == AI
    assert next(r for r in after if marker("A", 3) in r.payload).metadata == {"role": "assistant"}
    assert applied.detail["places"] == {"2.type": "ai", "1": "AIMessage", "0": "langchain_core.messages.ai"}
    assert [m["type"] for m in messages(open_newest(tmp_path))] == ["human"] * 2 + ["ai"] + ["human"] * 2


def test_each_place_alone_is_a_variant_that_passes_its_own_c3_and_fails_the_default(tmp_path):
    versions = build(tmp_path)
    editor = editor_for(layout(), {"store": tmp_path}, versions=versions)
    assert editor.variants(specs("role")["T8"], editor.records()) == PLACES
    for i, name in enumerate(PLACES):
        vol = tmp_path / name
        vol.mkdir()
        versions = build(vol)
        spec = replace(specs("role")["T8"], variant=name)
        _, _, applied, c3 = edit(vol, versions, spec)
        assert c3.ok, (name, c3.reasons)
        want = ["langchain_core.messages.human", "HumanMessage", "human"]
        want[2 - i] = AI[2 - i]
        assert element(vol) == want
        assert applied.detail["field"] == name.removeprefix("place=")
        assert not _judge(vol, spec, specs("role")["T8"]).ok, f"{name} passed as the default"


def _judge(vol, applied_spec, judged_spec):
    """C3 of ``judged_spec`` on a fresh store that took ``applied_spec``."""
    fresh = vol.with_name(vol.name + "-judged")
    fresh.mkdir()
    versions = build(fresh)
    return edit(fresh, versions, applied_spec, judged_as=judged_spec)[3]


def test_relabelling_kwargs_type_alone_is_not_the_default(tmp_path):
    """Today's edit before the vocabulary: kwargs.type set, the class left HumanMessage."""
    versions = build(tmp_path)
    c3 = edit(tmp_path, versions, replace(specs("role")["T8"], variant="place=2.type"),
              judged_as=specs("role")["T8"])[3]
    assert not c3.ok
    assert "1 holds 'HumanMessage', not 'AIMessage': the relabel is not the same at every place" in c3.reasons
    assert any(r.startswith("0 holds 'langchain_core.messages.human'") for r in c3.reasons)


def test_the_default_fails_a_place_variants_c3(tmp_path):
    versions = build(tmp_path)
    c3 = edit(tmp_path, versions, specs("role")["T8"], judged_as=replace(specs("role")["T8"], variant="place=1"))[3]
    assert not c3.ok and any("changes one place only" in r for r in c3.reasons), c3.reasons


def test_a_word_a_place_cannot_store_is_an_edit_error(tmp_path):
    versions = build(tmp_path)
    editor = editor_for(layout(), {"store": tmp_path}, versions=versions)
    with pytest.raises(EditError, match=r"2.type declares no stored value for 'tool'"):
        editor.apply(replace(specs("role")["T8"], meta_value="tool"))


def test_redis_json_messages_are_relabelled_in_kwargs_type_and_the_class_path(redis_stack_url):
    profile = yaml.safe_load(PROFILE.with_name("langgraph-redis.yaml").read_text())["store"]
    lay = parse_layout({**STORE, "records": {**STORE["records"], "metadata": profile["records"]["metadata"]}})
    client, versions = fill(redis_stack_url)
    spec = specs("role")["T8"]
    before = editor_for(lay, {}, {"stack": redis_stack_url}, versions=versions).records()
    editor = editor_for(lay, {}, {"stack": redis_stack_url}, versions=versions)
    assert editor.variants(spec, before) == ["place=kwargs.type", "place=id.3"]
    applied = editor.apply(spec)
    after = editor_for(lay, {}, {"stack": redis_stack_url}, versions=versions).records()
    c3 = check_edit(spec.to_json(), lay.to_json(), [r.to_json() for r in before], [r.to_json() for r in after],
                    {"changed": ["appendonly.aof"]})
    assert c3.ok, c3.reasons
    assert applied.detail["places"] == {"kwargs.type": "ai", "id.3": "AIMessage"}
    current = client.get("cp_latest:A:ns")
    fact = next(m for m in client.json().get(current, "$.checkpoint.channel_values.messages")[0]
                if marker("A", 3) in m["kwargs"]["content"])
    assert fact["kwargs"]["type"] == "ai" and fact["id"] == ["langchain", "schema", "messages", "AIMessage"]
    wrong = check_edit(replace(spec, variant="place=id.3").to_json(), lay.to_json(), [r.to_json() for r in before],
                       [r.to_json() for r in after], {"changed": ["appendonly.aof"]})
    assert not wrong.ok


# -- a timestamp in two formats in one SQL row -------------------------------------------------

TIMED = {"backend": "sqlite", "volume": "store", "file": "m.db", "table": "m", "context": "ctx", "identity": ["id"],
         "order": "id", "payload": "text",
         "metadata": {"timestamp": [{"field": "doc", "path": ["iso"]}, {"field": "doc", "path": ["ts"]}, "at"]}}


def timed_store(vol: Path):
    db = sqlite3.connect(vol / "m.db")
    db.execute("CREATE TABLE m (id INTEGER PRIMARY KEY, ctx TEXT, text TEXT, doc TEXT, at INTEGER)")
    for i in range(1, 6):
        for n, ctx in enumerate("AB"):
            ts = 1796015809.5 + 100 * i + n
            db.execute("INSERT INTO m (ctx, text, doc, at) VALUES (?, ?, ?, ?)",
                       (ctx, f"{marker(ctx, i)} note {i}", json.dumps({"iso": f"2026-11-30T05:{i:02d}:0{n}Z", "ts": ts}),
                        int(ts * 1000)))
    db.commit()
    db.close()


def test_a_timestamp_moves_the_same_day_in_each_of_its_formats(tmp_path):
    timed_store(tmp_path)
    lay = parse_layout(TIMED)
    spec = specs("timestamp")["T8"]
    before, digests = editor_for(lay, {"store": tmp_path}).records(), digest_tree(tmp_path)
    editor_for(lay, {"store": tmp_path}).apply(spec)
    after = editor_for(lay, {"store": tmp_path}).records()
    judge = lambda s: check_edit(s.to_json(), lay.to_json(), [r.to_json() for r in before],  # noqa: E731
                                 [r.to_json() for r in after], diff_digests(digests, digest_tree(tmp_path)))
    assert judge(spec).ok, judge(spec).reasons
    old, new = (next(r for r in recs if marker("A", 3) in r.payload) for recs in (before, after))
    assert json.loads(new.fields["doc"]) == {"iso": "2026-12-01T05:03:00Z", "ts": json.loads(old.fields["doc"])["ts"] + 86400}
    assert new.fields["at"] == old.fields["at"] + 86_400_000
    assert not judge(replace(spec, variant="place=at")).ok


def test_one_value_at_every_place_is_not_a_consistent_relabel(tmp_path):
    """The edit before per-place encodings: the ISO text written into the epoch places too."""
    timed_store(tmp_path)
    lay = parse_layout(TIMED)
    spec = specs("timestamp")["T8"]
    before, digests = editor_for(lay, {"store": tmp_path}).records(), digest_tree(tmp_path)
    old = next(r for r in before if marker("A", 3) in r.payload)
    doc = json.loads(old.fields["doc"])
    db = sqlite3.connect(tmp_path / "m.db")
    db.execute("UPDATE m SET doc = ?, at = ? WHERE id = ?",
               (json.dumps({"iso": "2026-12-01T05:03:00Z", "ts": "2026-12-01T05:03:00Z"}), "2026-12-01T05:03:00Z",
                old.fields["id"]))
    db.commit()
    db.close()
    after = editor_for(lay, {"store": tmp_path}).records()
    c3 = check_edit(spec.to_json(), lay.to_json(), [r.to_json() for r in before], [r.to_json() for r in after],
                    diff_digests(digests, digest_tree(tmp_path)))
    assert f"doc.ts holds '2026-12-01T05:03:00Z', not {doc['ts'] + 86400!r}: the relabel is not the same at every " \
           "place" in c3.reasons, c3.reasons


# -- the layout ---------------------------------------------------------------------------------

ROLE = {"path": ["kwargs", "type"], "values": {"user": "human", "assistant": "ai"}}


@pytest.mark.parametrize("meta, where, message", [
    ({"role": [ROLE, {"path": ["id", 3], "values": {"user": "HumanMessage"}}]}, "records.metadata.role[1].values",
     "differ from"),
    ({"role": {"path": ["kwargs", "type"], "values": {"user": "x", "assistant": "x"}}}, "records.metadata.role.values",
     "store the same value"),
    ({"role": {"path": ["kwargs", "type"], "values": {}}}, "records.metadata.role.values", "non-empty mapping"),
    ({"role": {"path": ["kwargs", "type"], "values": {"user": True}}}, "records.metadata.role.values.user",
     "not a non-empty string or an integer"),
    ({"role": [ROLE, {"path": ["kwargs", "type"]}]}, "records.metadata.role", "names one path twice"),
    ({"role": [ROLE, {"field": "x", "path": ["id"]}]}, "records.metadata.role[1]", "a place inside an element is"),
])
def test_bad_places_are_layout_errors_naming_the_field(meta, where, message):
    store = yaml.safe_load(PROFILE.read_text())["store"]
    store["records"]["metadata"] = meta
    with pytest.raises(LayoutError, match=message) as err:
        parse_layout(store)
    assert err.value.field == f"store.{where}"


def test_values_on_a_field_store_without_paths_are_a_layout_error():
    store = {"backend": "jsonl", "volume": "v", "file": "m.jsonl", "context": "ctx", "identity": ["id"],
             "order": "id", "payload": "text", "metadata": {"role": {"field": "role", "values": {"user": "human"}}}}
    with pytest.raises(LayoutError, match="several places and values are read by"):
        parse_layout(store)
