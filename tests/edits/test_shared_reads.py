"""C3 on a read that shares its unchanged records with the read before the edit (lab.method.record_views),
as the edit step now reads: on real fixture stores, every case's C3 result and saved lists are those of two
whole reads, and the read after the edit holds as new only the records the edit changed."""

import json

import pytest
from edit_stores import jsonl_store, markdown_store, open_editor, specs, sqlite_store

from edits.volumes import diff_digests, digest_tree
from lab.judge.c3 import check_edit
from lab.judge.json_same import same
from lab.method.record_views import views

CASES = ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("build", [lambda v: sqlite_store(v, "text"), lambda v: jsonl_store(v, "position"),
                                   markdown_store], ids=["sqlite-text", "jsonl-position", "markdown"])
def test_c3_on_a_shared_read_is_c3_on_two_whole_reads(tmp_path, build, case):
    layout = build(tmp_path)
    spec = specs(next(iter(layout.metadata), None))[case]
    before, digests = views(open_editor(layout, tmp_path).records()), digest_tree(tmp_path)
    open_editor(layout, tmp_path).apply(spec)
    whole = views(open_editor(layout, tmp_path).records())
    after = views(open_editor(layout, tmp_path).records(), before)
    files = diff_digests(digests, digest_tree(tmp_path))
    results = [check_edit(spec.to_json(), layout.to_json(), before, a, files).to_json() for a in (whole, after)]
    assert results[0] == results[1] and results[0]["ok"], results[0]["reasons"]
    assert json.dumps(after, sort_keys=True) == json.dumps(whole, sort_keys=True)
    new = [r for r in after if not any(r is b for b in before)]
    assert len(new) == sum(1 for r in whole if not any(same(r, b) for b in before)) < len(before)
