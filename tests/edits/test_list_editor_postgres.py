"""List-element records on PostgreSQL, the list held in a row of another table found through a
key read from the version row's JSON (``records.payload_row``): every edit T1..T8 lands on a real
server (the lab's own service runner: conftest.py), checked like the SQLite list editor."""

import json

import psycopg
import pytest
from edit_stores import CONTEXTS, FACTS, check, marker, specs
from list_writes import list_writes

from edits.base import editor_for
from edits.layout import LayoutError, parse_layout
from edits.msgpack import Ext, pack

CASES = ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8")
LAYOUT = parse_layout({
    "backend": "postgres", "volume": "pgdata", "service": "db", "table": "cps", "context": "thread",
    "order": "@position", "payload": {"field": "blob", "format": "msgpack", "path": []},
    "records": {"text": [2, "content"], "identity": [[2, "id"]], "metadata": {"role": [2, "type"]},
                "version": "v", "cascade": [{"table": "pending", "key": ["thread", "ns", "v"]}],
                "payload_row": {"table": "blobs", "where": {"channel": "messages"},
                                "key": {"thread": "thread", "ns": "ns",
                                        "version": {"field": "cp", "path": ["versions", "messages"]}}}}})


def _message(ctx, i):
    text = f"{marker(ctx, i)} note {i} in {ctx}" + (f", the code is {FACTS[ctx]}" if i == 3 else "")
    return Ext(5, value=["msgs", "Message", {"content": text, "type": "human" if i % 2 else "ai",
                                             "id": f"{ctx.lower()}{i:04d}-0000-4000-8000-000000000000"},
                         "model_validate_json"])


def fill(url):
    """Per write an input version row (old list version, a pending row) and a done row pointing
    at a new blob version; a decoy blob of another channel shares every version. Returns versions."""
    versions, blob_version = {}, {c: None for c in CONTEXTS}
    with psycopg.connect(url) as conn:
        conn.execute("DROP TABLE IF EXISTS cps, blobs, pending")
        conn.execute("CREATE TABLE cps (thread text, ns text, v text, cp jsonb, PRIMARY KEY (thread, ns, v))")
        conn.execute("CREATE TABLE blobs (thread text, ns text, channel text, version text, blob bytea, "
                     "PRIMARY KEY (thread, ns, channel, version))")
        conn.execute("CREATE TABLE pending (thread text, ns text, v text, idx int)")
        for i, ctx, stage, n, v, messages in list_writes(_message):
            if stage == "done":
                blob_version[ctx] = f"{n:04d}.x"
                for channel, value in (("messages", messages), ("other", ["decoy"])):
                    conn.execute("INSERT INTO blobs VALUES (%s, '', %s, %s, %s)",
                                 (ctx, channel, blob_version[ctx], pack(list(value))))
                versions[v] = marker(ctx, i)
            else:
                conn.execute("INSERT INTO pending VALUES (%s, '', %s, 0)", (ctx, v))
            cp = {"versions": {"messages": blob_version[ctx]} if blob_version[ctx] else {}}
            conn.execute("INSERT INTO cps VALUES (%s, '', %s, %s)", (ctx, v, json.dumps(cp)))
    return versions


@pytest.mark.parametrize("case", CASES)
def test_every_edit_lands_in_the_payload_row(postgres, case):
    versions = fill(postgres)
    editor = editor_for(LAYOUT, {}, {"db": postgres}, versions=versions)
    before = editor.records()
    assert len(before) == 10
    spec = specs("role")[case]
    applied = editor.apply(spec)
    after = editor_for(LAYOUT, {}, {"db": postgres}, versions=versions).records()
    check(LAYOUT, spec, before, after)
    assert applied.statements[0] == "BEGIN" and applied.statements[-1] == "COMMIT"
    if case != "T2":
        assert applied.detail["payload_row"]["table"] == "blobs"
        assert all(s.startswith('UPDATE "blobs"') for s in applied.statements[1:-1])


def test_records_follow_the_key_in_the_newest_version_rows_json(postgres):
    fill(postgres)
    records = editor_for(LAYOUT, {}, {"db": postgres}).records()
    assert [r.payload[:9] for r in records if r.context == "A"] == [marker("A", i)[:9] for i in range(1, 6)]
    assert records[0].locator["pk"] == {"thread": "A", "ns": "", "v": "00000018"}


def test_a_payload_row_needs_a_table_and_a_key():
    with pytest.raises(LayoutError) as err:
        parse_layout({**LAYOUT.to_json(), "metadata": {}, "identity": [], "records": {
            "text": [2, "content"], "version": "v", "payload_row": {"table": "blobs"}}})
    assert err.value.field == "store.records.payload_row"
