"""The JSON document editor (backend json) on a document mapping keys to records and on a list of
records: every operation checked by C3 as the procedure runs it, the document's own formatting kept;
each operation's postcondition is the conformance suite's (test_conformance.py)."""

import json

import pytest
from edit_stores import seed, specs

from edits.base import editor_for
from edits.layout import parse_layout
from edits.volumes import diff_digests, digest_tree
from lab.judge.c3 import check_edit

CASES = ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8")


def json_store(vol, kind):
    """``keyed``: {key: record} with a seq order field; ``keyed-position``: the same ordered by
    place; ``list``: a list of records with an id field, ordered by place."""
    rows = seed()
    recs = [{"ctx": r["ctx"], "seq": r["i"] * 10, "text": r["text"], "role": r["role"], "source": r["source"],
             "sig": f"sha256:{r['uid']}"} for r in rows]
    if kind == "list":
        doc = [{"id": r["uid"], **rec} for r, rec in zip(rows, recs)]
        identity, order = ["id"], "@position"
    else:
        doc = {f"k{n:02d}": rec for n, rec in enumerate(recs)}
        identity, order = ["@key"], "seq" if kind == "keyed" else "@position"
    (vol / "store.json").write_text(json.dumps(doc, indent=2))
    return parse_layout({"backend": "json", "volume": "store", "file": "store.json", "context": "ctx",
                         "identity": identity, "order": order, "payload": "text",
                         "metadata": {"role": "role", "source": "source"}})


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("kind", ["keyed", "list"])
def test_c3_sees_every_edit_land(tmp_path, kind, case):
    layout = json_store(tmp_path, kind)
    editor = editor_for(layout, {"store": tmp_path})
    before, digests = [r.to_json() for r in editor.records()], digest_tree(tmp_path)
    spec = specs("role")[case]
    editor.apply(spec)
    after = [r.to_json() for r in editor_for(layout, {"store": tmp_path}).records()]
    result = check_edit(spec.to_json(), layout.to_json(), before, after, diff_digests(digests, digest_tree(tmp_path)))
    assert result.ok, result.reasons


def test_indentation_and_key_order_are_kept(tmp_path):
    layout = json_store(tmp_path, "keyed")
    keys = list(json.loads((tmp_path / "store.json").read_text()))
    editor_for(layout, {"store": tmp_path}).apply(specs("role")["T8"])
    text = (tmp_path / "store.json").read_text()
    assert text.startswith('{\n  "k00": {\n    "ctx"') and list(json.loads(text)) == keys
