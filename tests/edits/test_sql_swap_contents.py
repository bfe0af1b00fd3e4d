"""T4 ``swap=contents`` on plain SQL rows (edits.sql): where the order is a column of its own, the
two rows' contents are exchanged and each keeps its identity and order key; the variant passes
T4's C3, the default (the order keys exchanged) fails the variant's C3, and a store ordered by its
identity or key (whose default already exchanges the contents) offers no variant."""

from dataclasses import replace

import pytest
from edit_stores import marker, selected, specs, sqlite_store

from edits.base import editor_for
from edits.volumes import diff_digests, digest_tree
from lab.judge.c3 import check_edit

SWAP = replace(specs()["T4"], variant="swap=contents")


def run(vol, layout, spec, judged_as=None):
    """Apply ``spec`` and return the C3 of ``judged_as`` (default: the spec) and the applied edit."""
    before, digests = editor_for(layout, {"store": vol}).records(), digest_tree(vol)
    applied = editor_for(layout, {"store": vol}).apply(spec)
    after = editor_for(layout, {"store": vol}).records()
    c3 = check_edit((judged_as or spec).to_json(), layout.to_json(), [r.to_json() for r in before],
                    [r.to_json() for r in after], diff_digests(digests, digest_tree(vol)))
    return c3, applied


def rows(vol):
    sql = "SELECT id, seq, body, role FROM memories WHERE session = 'A'"
    return {r[0]: r[1:] for r in selected(vol / "memory.db", sql)}


@pytest.mark.parametrize("kind, offered", [("text", ["swap=contents"]), ("blob", ["swap=contents"]),
                                           ("json", []), ("norowid", [])])
def test_the_variant_is_offered_where_the_order_is_a_column_of_its_own(tmp_path, kind, offered):
    layout = sqlite_store(tmp_path, kind)
    editor = editor_for(layout, {"store": tmp_path})
    assert editor.variants(specs()["T4"], editor.records()) == offered


def test_swap_contents_keeps_each_rows_identity_and_order_key(tmp_path):
    layout = sqlite_store(tmp_path, "text")
    old = rows(tmp_path)
    c3, applied = run(tmp_path, layout, SWAP)
    assert c3.ok, c3.reasons
    new = rows(tmp_path)
    a, b = (next(k for k, v in old.items() if marker("A", i) in v[1]) for i in (2, 4))
    assert new[a] == (old[a][0], *old[b][1:]) and new[b] == (old[b][0], *old[a][1:])
    assert {k: v for k, v in new.items() if k not in (a, b)} == {k: v for k, v in old.items() if k not in (a, b)}
    assert set(applied.detail["swapped"]) == {"body", "role", "source", "owner", "created_at"}


def test_the_order_keys_exchanged_fail_the_variants_c3(tmp_path):
    layout = sqlite_store(tmp_path, "text")
    c3, applied = run(tmp_path, layout, specs()["T4"], judged_as=SWAP)
    assert applied.detail["swapped"] == ["seq"]
    assert c3.reasons == ["the identities moved with the records: not an exchange of contents"]
