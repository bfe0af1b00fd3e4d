"""The SQLite list editor (edits.lists.ListEditor over edits.version_rows.SqlVersions): records that
are elements of a list inside a version row's MessagePack (or JSON) payload, the newest version row
of a context current; opaque payloads edited as whole version rows addressed through the versions
the SUT reported. Every case changes exactly what it should and C3 agrees; what cannot be expressed
raises EditError."""

import json
import os
import sqlite3

import pytest
from edit_stores import CONTEXTS, FACTS, TAMPERED, check, marker, selected, specs
from list_writes import list_writes

from edits.base import editor_for
from edits.layout import LayoutError, parse_layout
from edits.model import EditError, EditSpec
from edits.msgpack import Ext, pack, unpack
from edits.volumes import diff_digests, digest_tree
from lab.judge.c3 import check_edit

CASES = ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8")
LIST = ["channel_values", "messages"]


def _message(ctx, i):
    text = f"{marker(ctx, i)} note {i} in {ctx}" + (f", the code is {FACTS[ctx]}" if i == 3 else "")
    kwargs = {"content": text, "additional_kwargs": {}, "type": "human" if i % 2 else "ai",
              "name": None, "id": f"{ctx.lower()}{i:04d}-0000-4000-8000-000000000000"}
    return Ext(5, value=["msgs", "Message", kwargs, "model_validate_json"])


def build(vol, fmt="msgpack"):
    """Two contexts; each write makes an input version row (with a pending row in ``pending``)
    and a done row holding the list with the new message. Returns (layout, versions)."""
    db = sqlite3.connect(vol / "cp.db")
    db.execute("CREATE TABLE checkpoints (thread TEXT, ns TEXT, v TEXT, parent TEXT, type TEXT, blob BLOB, "
               "meta TEXT, PRIMARY KEY (thread, ns, v))")
    db.execute("CREATE TABLE pending (thread TEXT, ns TEXT, v TEXT, idx INTEGER, value BLOB)")
    versions, parent = {}, {c: None for c in CONTEXTS}
    key = os.urandom(64)
    for i, ctx, stage, _, v, messages in list_writes(_message):
        if stage == "done":
            versions[v] = marker(ctx, i)
        state = {"v": 4, "id": v, "channel_values": {"messages": messages}}
        if fmt == "msgpack":
            blob = pack(state)
        elif fmt == "json":
            state["channel_values"]["messages"] = [m.value for m in messages]
            blob = json.dumps(state)
        else:  # opaque: a keyed stream over the msgpack, plus a fake 16-byte tag
            plain = pack(state)
            blob = os.urandom(16) + bytes(b ^ key[k % 64] for k, b in enumerate(plain))
        db.execute("INSERT INTO checkpoints VALUES (?,?,?,?,?,?,?)",
                   (ctx, "", v, parent[ctx], fmt, blob, json.dumps({"step": i, "source": stage})))
        if stage == "input":
            db.execute("INSERT INTO pending VALUES (?,?,?,?,?)", (ctx, "", v, 0, b"\x90"))
        parent[ctx] = v
    db.commit()
    db.close()
    layout = parse_layout({
        "backend": "sqlite", "volume": "store", "file": "cp.db", "table": "checkpoints", "context": "thread",
        "order": "@position",
        "payload": {"field": "blob", "format": fmt, **({"path": LIST} if fmt != "opaque" else {})},
        "records": {"text": [2, "content"], "identity": [[2, "id"]], "metadata": {"role": [2, "type"]},
                    "version": "v", "cascade": [{"table": "pending", "key": ["thread", "ns", "v"]}]}})
    return layout, versions


def run(layout, vol, spec, versions):
    editor = editor_for(layout, {"store": vol}, versions=versions)
    before, digests = editor.records(), digest_tree(vol)
    applied = editor.apply(spec)
    after = editor_for(layout, {"store": vol}, versions=versions).records()
    c3 = check_edit(spec.to_json(), layout.to_json(), [r.to_json() for r in before],
                    [r.to_json() for r in after], diff_digests(digests, digest_tree(vol)))
    return before, after, applied, c3


def rows(vol, sql="SELECT thread, v FROM checkpoints ORDER BY thread, v"):
    return selected(vol / "cp.db", sql)


@pytest.mark.parametrize("fmt", ["msgpack", "json"])
@pytest.mark.parametrize("case", CASES)
def test_every_element_edit_changes_exactly_what_it_should(tmp_path, fmt, case):
    layout, versions = build(tmp_path, fmt)
    spec = specs("role")[case]
    before, after, applied, c3 = run(layout, tmp_path, spec, versions)
    check(layout, spec, before, after)
    assert c3.ok, c3.reasons
    assert applied.statements[0] == "BEGIN IMMEDIATE" and applied.statements[-1] == "COMMIT"


def test_records_are_the_elements_of_the_newest_version(tmp_path):
    layout, _ = build(tmp_path)
    records = editor_for(layout, {"store": tmp_path}).records()
    assert [r.payload[:9] for r in records if r.context == "A"] == [marker("A", i)[:9] for i in range(1, 6)]
    first = records[0]
    assert first.identity == ("a0001-0000-4000-8000-000000000000",) and first.metadata == {"role": "human"}
    assert first.fields["2.type"] == "human" and first.fields["1"] == "Message" and first.order == 0
    assert first.locator["version"] == "00000018"  # A's last done row (versions interleave A, B)


def test_t1_changes_only_the_token_bytes(tmp_path):
    layout, versions = build(tmp_path)
    old = dict(rows(tmp_path, "SELECT v, blob FROM checkpoints"))
    run(layout, tmp_path, specs()["T1"], versions)
    new = dict(rows(tmp_path, "SELECT v, blob FROM checkpoints"))
    changed = [v for v in old if old[v] != new[v]]
    assert changed == ["00000018"]
    assert new["00000018"] == old["00000018"].replace(FACTS["A"].encode(), TAMPERED.encode())


def test_t2_rolls_back_to_the_previous_writes_version_with_its_cascade(tmp_path):
    layout, versions = build(tmp_path)
    _, after, applied, c3 = run(layout, tmp_path, specs()["T2"], versions)
    assert c3.ok, c3.reasons
    assert applied.detail["kept_current"] == "00000014"  # done row of A's 4th write
    assert applied.detail["deleted_versions"] == ["00000017", "00000018"]
    assert [v for t, v in rows(tmp_path) if t == "A"][-1] == "00000014"
    assert ("A", "00000017") not in rows(tmp_path, "SELECT thread, v FROM pending")
    assert len(rows(tmp_path, "SELECT * FROM pending")) == 9
    assert any(s.startswith('DELETE FROM "pending"') for s in applied.statements)


def test_t2_without_versions_is_an_edit_error(tmp_path):
    layout, _ = build(tmp_path)
    with pytest.raises(EditError, match="version the SUT reported"):
        editor_for(layout, {"store": tmp_path}).apply(specs()["T2"])


def test_a_blob_that_does_not_reencode_exactly_is_refused(tmp_path):
    layout, versions = build(tmp_path)
    db = sqlite3.connect(tmp_path / "cp.db")
    blob = db.execute("SELECT blob FROM checkpoints WHERE v = '00000018'").fetchone()[0]
    wide = b"\xde\x00\x03" + blob[1:]  # the same map, its header widened to map16
    assert unpack(wide) == unpack(blob)
    db.execute("UPDATE checkpoints SET blob = ? WHERE v = '00000018'", (wide,))
    db.commit()
    db.close()
    with pytest.raises(EditError, match="byte for byte"):
        editor_for(layout, {"store": tmp_path}, versions=versions).apply(specs()["T3"])


# ---- opaque payloads: whole version rows ------------------------------------------------------

def state_spec(case):
    spec = specs()[case]
    return EditSpec(case, spec.context, spec.target, donor=spec.donor, unit="state", op=spec.op)


def test_opaque_rows_are_labelled_by_the_reported_versions(tmp_path):
    layout, versions = build(tmp_path, "opaque")
    records = editor_for(layout, {"store": tmp_path}, versions=versions).records()
    assert len(records) == 20 and all(r.payload == "" for r in records)
    assert [r.label for r in records if r.context == "A"][:4] == [None, marker("A", 1), None, marker("A", 2)]


@pytest.mark.parametrize("case", ["T1", "T2", "T6", "T7"])
def test_every_state_edit_lands(tmp_path, case):
    layout, versions = build(tmp_path, "opaque")
    old = dict(rows(tmp_path, "SELECT v, blob FROM checkpoints"))
    _, _, applied, c3 = run(layout, tmp_path, state_spec(case), versions)
    assert c3.ok, c3.reasons
    new = dict(rows(tmp_path, "SELECT v, blob FROM checkpoints"))
    if case == "T1":
        assert [v for v in old if old[v] != new[v]] == ["00000018"]
        assert sum(a != b for a, b in zip(old["00000018"], new["00000018"])) == 1
    elif case == "T6":
        assert new["00000020"] == old["00000018"] and [v for v in old if old[v] != new[v]] == ["00000020"]
    elif case == "T7":
        assert new["00000018"] == old["00000002"] and [v for v in old if old[v] != new[v]] == ["00000018"]
    else:
        assert sorted(set(old) - set(new)) == ["00000017", "00000018"]


@pytest.mark.parametrize("case", ["T3", "T4", "T5", "T8"])
def test_record_edits_inside_an_opaque_payload_cannot_be_expressed(tmp_path, case):
    layout, versions = build(tmp_path, "opaque")
    spec = specs("role")[case]
    with pytest.raises(EditError):
        editor_for(layout, {"store": tmp_path}, versions=versions).apply(EditSpec(**{**spec.__dict__, "unit": "state"}))
    with pytest.raises(EditError, match="opaque"):
        editor_for(layout, {"store": tmp_path}, versions=versions).apply(spec)


def test_c3_catches_a_state_edit_that_also_touches_another_row(tmp_path):
    layout, versions = build(tmp_path, "opaque")
    editor = editor_for(layout, {"store": tmp_path}, versions=versions)
    before, digests = [r.to_json() for r in editor.records()], digest_tree(tmp_path)
    editor.apply(state_spec("T1"))
    db = sqlite3.connect(tmp_path / "cp.db")
    db.execute("UPDATE checkpoints SET meta = '{}' WHERE v = '00000020'")
    db.commit()
    db.close()
    after = [r.to_json() for r in editor.records()]
    c3 = check_edit(state_spec("T1").to_json(), layout.to_json(), before, after,
                    diff_digests(digests, digest_tree(tmp_path)))
    assert not c3.ok and any("other than the edited" in r for r in c3.reasons)


# ---- layout -----------------------------------------------------------------------------------

@pytest.mark.parametrize("change, field", [
    ({"identity": ["id"]}, "store.records"),
    ({"order": "v"}, "store.order"),
    ({"payload": {"field": "blob", "format": "msgpack"}}, "store.payload"),
    ({"records": {"text": [2, "content"]}}, "store.records.version"),
    ({"records": {"text": [], "version": "v"}}, "store.records.text"),
    ({"records": {"text": ["t"], "version": "v", "cascade": [{"table": "x"}]}}, "store.records.cascade[0]"),
    ({"backend": "jsonl"}, "store.records"),
])
def test_records_layout_errors_name_the_field(change, field):
    base = {"backend": "sqlite", "volume": "store", "file": "cp.db", "table": "checkpoints", "context": "thread",
            "order": "@position", "payload": {"field": "blob", "format": "msgpack", "path": LIST},
            "records": {"text": [2, "content"], "version": "v"}}
    with pytest.raises(LayoutError) as err:
        parse_layout({**base, **change})
    assert err.value.field == field


def test_an_opaque_payload_needs_records():
    with pytest.raises(LayoutError, match="opaque"):
        parse_layout({"backend": "sqlite", "volume": "store", "file": "m.db", "table": "t", "context": "c",
                      "order": "o", "payload": {"field": "p", "format": "opaque"}})
