"""A context and identity held inside a JSON column (inspeximus: records(id, ord, doc) with the
owner at doc.meta.uid and the id repeated at doc.id): T6/T7 keep the victim's values at those
paths, T5 gives the forged record one fresh id in both places, and every case passes C3."""

import json
import sqlite3

import pytest
from edit_stores import run_case, seed, selected, specs

from edits.base import editor_for
from edits.layout import LayoutError, parse_layout
from edits.volumes import diff_digests, digest_tree
from lab.judge.c3 import check_edit

CASES = ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8")
LAYOUT = {"backend": "sqlite", "volume": "store", "file": "mem.db", "table": "records",
          "context": {"field": "doc", "path": ["meta", "uid"]},
          "identity": ["id", {"field": "doc", "path": ["id"]}], "order": "ord",
          "payload": {"field": "doc", "format": "json", "path": ["text"]},
          "metadata": {"role": {"field": "doc", "path": ["meta", "role"]}, "timestamp": {"field": "doc", "path": ["iso"]}}}


def store(vol):
    db = sqlite3.connect(vol / "mem.db")
    db.execute("CREATE TABLE records (id TEXT PRIMARY KEY, ord INTEGER NOT NULL, doc TEXT NOT NULL)")
    for n, r in enumerate(seed()):
        rid = r["uid"][:10]
        doc = {"id": rid, "iso": r["ts"], "meta": {"role": r["role"], "uid": r["ctx"]}, "text": r["text"]}
        db.execute("INSERT INTO records VALUES (?, ?, ?)", (rid, n, json.dumps(doc)))
    db.commit()
    db.close()
    return parse_layout(LAYOUT)


def docs(vol):
    return {rid: json.loads(doc) for rid, doc in selected(vol / "mem.db", "SELECT id, doc FROM records")}


@pytest.mark.parametrize("case", CASES)
def test_each_edit_lands_and_keeps_the_slot(tmp_path, case):
    layout = store(tmp_path)
    editor = editor_for(layout, {"store": tmp_path})
    before, digests = [r.to_json() for r in editor.records()], digest_tree(tmp_path)
    if case in ("T6", "T7"):  # run_case's field check takes the whole doc column as the donor's
        editor.apply(specs("role")[case])
        after = editor_for(layout, {"store": tmp_path}).records()
    else:
        _, after, _ = run_case(layout, tmp_path, case)
    result = check_edit(specs("role")[case].to_json(), layout.to_json(), before,
                        [r.to_json() for r in after], diff_digests(digests, digest_tree(tmp_path)))
    assert result.ok, result.reasons
    for rid, doc in docs(tmp_path).items():  # the id inside the document still names its row
        assert doc["id"] == rid


def test_a_replayed_record_keeps_the_victims_owner_inside_the_document(tmp_path):
    layout = store(tmp_path)
    target = next(r for r in editor_for(layout, {"store": tmp_path}).records() if specs()["T6"].target in r.payload)
    editor_for(layout, {"store": tmp_path}).apply(specs("role")["T6"])
    victim = next(r for r in editor_for(layout, {"store": tmp_path}).records() if r.identity == target.identity)
    assert specs()["T6"].donor in victim.payload and victim.context == "B"
    assert json.loads(victim.fields["doc"])["meta"]["uid"] == "B"


def test_paths_for_context_or_identity_are_sqlite_only(tmp_path):
    with pytest.raises(LayoutError, match="sqlite"):
        parse_layout({**LAYOUT, "backend": "jsonl", "file": "m.jsonl", "metadata": {}})
