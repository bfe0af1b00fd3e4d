"""Metadata inside a JSON payload: a metadata entry names a field plus a path (and every place
that holds the value). T8 rewrites only the characters of the value at the path; every case
still changes exactly what it should on such a layout."""

import json
import sqlite3

import pytest
from edit_stores import check, seed, selected, specs

from edits.base import editor_for
from edits.layout import LayoutError, parse_layout
from edits.volumes import diff_digests, digest_tree
from lab.judge.c3 import check_edit

ROLE_IN_DATA = {"field": "data", "path": ["role"]}


def build(vol, role):
    """A table shaped like LlamaIndex's chat store: role both in a column and inside data."""
    db = sqlite3.connect(vol / "m.db")
    db.execute("CREATE TABLE mem (id INTEGER PRIMARY KEY, key TEXT, timestamp BIGINT, role TEXT, "
               "status TEXT, data JSON)")
    for n, r in enumerate(seed()):
        data = {"role": r["role"], "additional_kwargs": {}, "blocks": [{"block_type": "text", "text": r["text"]}]}
        db.execute("INSERT INTO mem (key, timestamp, role, status, data) VALUES (?,?,?,?,?)",
                   (r["ctx"], 1_700_000_000_000_000_000 + n, r["role"], "active", json.dumps(data)))
    db.commit()
    db.close()
    return parse_layout({"backend": "sqlite", "volume": "store", "file": "m.db", "table": "mem", "context": "key",
                         "identity": ["id"], "order": "timestamp",
                         "payload": {"field": "data", "format": "json", "path": ["blocks", "0", "text"]},
                         "metadata": {"role": role}})


def run(layout, vol, case):
    spec = specs("role")[case]
    editor = editor_for(layout, {"store": vol})
    before, digests = editor.records(), digest_tree(vol)
    applied = editor.apply(spec)
    after = editor_for(layout, {"store": vol}).records()
    check(layout, spec, before, after)
    c3 = check_edit(spec.to_json(), layout.to_json(), [r.to_json() for r in before], [r.to_json() for r in after],
                    diff_digests(digests, digest_tree(vol)))
    assert c3.ok, c3.reasons
    return before, after, applied


def rows(vol):
    return {r[0]: r[1:] for r in selected(vol / "m.db", "SELECT id, role, data FROM mem")}


@pytest.mark.parametrize("role", [ROLE_IN_DATA, [ROLE_IN_DATA, "role"]], ids=["path", "path+column"])
@pytest.mark.parametrize("case", ["T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8"])
def test_every_case_on_a_layout_with_metadata_inside_json(tmp_path, role, case):
    run(build(tmp_path, role), tmp_path, case)


def test_metadata_is_read_from_the_first_place_named(tmp_path):
    layout = build(tmp_path, [ROLE_IN_DATA, "role"])
    rec = editor_for(layout, {"store": tmp_path}).records()[0]
    assert rec.metadata["role"] == json.loads(rec.fields["data"])["role"] == rec.fields["role"]
    assert layout.metadata["role"] == "data"
    assert layout.to_json()["metadata_refs"]["role"] == [{"field": "data", "path": ["role"], "format": "json"},
                                                         {"field": "role", "path": [], "format": "json"}]


def test_t8_rewrites_only_the_value_at_the_path(tmp_path):
    layout = build(tmp_path, ROLE_IN_DATA)
    old = rows(tmp_path)
    _, _, applied = run(layout, tmp_path, "T8")
    new = rows(tmp_path)
    (rid,) = [k for k in old if old[k] != new[k]]
    assert new[rid][0] == old[rid][0]  # the role column is not a place the layout names
    was, now = json.loads(old[rid][1])["role"], json.loads(new[rid][1])["role"]
    assert new[rid][1] == old[rid][1].replace(f'"role": "{was}"', f'"role": "{now}"', 1)
    assert applied.detail["places"] == ["data.role"]


def test_t8_changes_every_place_named(tmp_path):
    layout = build(tmp_path, [ROLE_IN_DATA, "role"])
    old = rows(tmp_path)
    _, _, applied = run(layout, tmp_path, "T8")
    new = rows(tmp_path)
    (rid,) = [k for k in old if old[k] != new[k]]
    assert new[rid][0] == json.loads(new[rid][1])["role"] != old[rid][0]
    assert applied.detail["places"] == ["data.role", "role"] and applied.detail["column"] == ["data", "role"]


@pytest.mark.parametrize("role, message", [
    ({"field": "data"}, None), ({"field": "data", "path": []}, "path"), ({"path": ["role"]}, "field name"),
    ({"field": "data", "path": ["role"], "format": "xml"}, "format"), ([], "names no field")])
def test_bad_metadata_refs_are_layout_errors(tmp_path, role, message):
    if message is None:
        build(tmp_path, role)  # a field with no path is a plain column
        return
    with pytest.raises(LayoutError, match=message):
        build(tmp_path, role)


def test_paths_are_sqlite_only():
    with pytest.raises(LayoutError, match="sqlite"):
        parse_layout({"backend": "jsonl", "volume": "s", "file": "m.jsonl", "context": "c", "order": "@position",
                      "payload": "text", "metadata": {"role": ROLE_IN_DATA}})
