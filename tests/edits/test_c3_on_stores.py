"""C3 on real fixture stores: every genuine edit passes, and C3 catches edits that
did not land, did too much, hit the wrong record, or cannot be scored."""

import sqlite3

import pytest
from edit_stores import jsonl_store, markdown_store, marker, open_editor, specs, sqlite_store

from edits.model import EditSpec
from edits.volumes import diff_digests, digest_tree
from lab.judge.c3 import check_edit

CASES = ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8")


def measure(layout, vol, spec, extra=None):
    """Apply ``spec`` (then ``extra``, a raw mutation) and run C3 as the procedure does."""
    editor = open_editor(layout, vol)
    before, digests = [r.to_json() for r in editor.records()], digest_tree(vol)
    if spec is not None:
        editor.apply(spec)
    if extra:
        extra()
    after = [r.to_json() for r in open_editor(layout, vol).records()]
    files = diff_digests(digests, digest_tree(vol))
    return check_edit(intended.to_json() if (intended := spec or SPEC_OF_NOOP) else {}, layout.to_json(),
                      before, after, files)


SPEC_OF_NOOP = specs()["T1"]


def sql_on(vol, statement, *params):
    """A raw mutation for ``measure``: run one SQL statement on the store's memory.db, outside the editor."""
    def run():
        db = sqlite3.connect(vol / "memory.db")
        db.execute(statement, params)
        db.commit()
        db.close()
    return run


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("build", [lambda v: sqlite_store(v, "text"), lambda v: sqlite_store(v, "json"),
                                   lambda v: jsonl_store(v, "position"), markdown_store],
                         ids=["sqlite-text", "sqlite-json", "jsonl-position", "markdown"])
def test_every_genuine_edit_lands(tmp_path, build, case):
    layout = build(tmp_path)
    spec = specs(next(iter(layout.metadata), None))[case]
    result = measure(layout, tmp_path, spec)
    assert result.ok, result.reasons


def test_a_no_op_edit_is_caught(tmp_path):
    layout = sqlite_store(tmp_path, "text")
    result = check_edit(SPEC_OF_NOOP.to_json(), layout.to_json(),
                        [r.to_json() for r in open_editor(layout, tmp_path).records()],
                        [r.to_json() for r in open_editor(layout, tmp_path).records()], {})
    assert not result.ok and any("raw volume unchanged" in r for r in result.reasons)


def test_an_edit_that_also_touches_another_record_is_caught(tmp_path):
    layout = sqlite_store(tmp_path, "text")
    also = sql_on(tmp_path, "UPDATE memories SET role='system' WHERE body LIKE ?", f"%{marker('B', 1)}%")
    result = measure(layout, tmp_path, specs()["T1"], also)
    assert not result.ok and any("other than" in r for r in result.reasons)


def test_an_edit_of_the_wrong_kind_is_caught(tmp_path):
    layout = sqlite_store(tmp_path, "text")
    editor = open_editor(layout, tmp_path)
    before = [r.to_json() for r in editor.records()]
    digests = digest_tree(tmp_path)
    editor.apply(specs()["T3"])  # a middle deletion...
    after = [r.to_json() for r in open_editor(layout, tmp_path).records()]
    files = diff_digests(digests, digest_tree(tmp_path))
    claimed = EditSpec("T2", "A", marker("A", 3), op="rollback")  # ...claimed as a tail truncation
    result = check_edit(claimed.to_json(), layout.to_json(), before, after, files)
    assert not result.ok and any("not the most recent" in r for r in result.reasons)


def test_t8_that_touches_content_is_caught(tmp_path):
    layout = sqlite_store(tmp_path, "text")
    content = sql_on(tmp_path, "UPDATE memories SET body = body || '!' WHERE body LIKE ?", f"%{marker('A', 3)}%")
    result = measure(layout, tmp_path, specs()["T8"], content)
    assert not result.ok and "the content changed" in result.reasons


def test_t6_is_refused_when_contexts_were_seeded_with_equal_values():
    def rec(ctx, ident, text):
        return {"context": ctx, "identity": [ident], "order": ident, "payload": text, "metadata": {},
                "fields": {"body": text}}
    shared = f"{marker('A', 3)} the same value in both contexts"
    before = [rec("A", 1, shared), rec("B", 2, f"{marker('B', 3)} b's own value")]
    after = [before[0], rec("B", 2, shared)]
    layout = {"identity": ["id"], "order": "seq", "payload": {"field": "body"}, "metadata": {}}
    spec = EditSpec("T6", "B", marker("B", 3), donor=marker("A", 3), op="transplant").to_json()
    assert check_edit(spec, layout, before, after, {"changed": ["memory.db"]}).ok
    echoed = f"{marker('A', 1)} a value A and B were both seeded with"
    before_equal = [rec("A", 0, echoed), *before, rec("B", 9, echoed)]
    result = check_edit(spec, layout, before_equal, [rec("A", 0, echoed), *after, rec("B", 9, echoed)],
                        {"changed": ["memory.db"]})
    assert not result.ok and any("equal values" in r for r in result.reasons)
