"""LanceDBEditor: rows of a LanceDB table edited through the lancedb library (no SUT code); on a
table shaped as CrewAI's memory writes it (scope paths, ISO created_at, a vector column); each
operation's postcondition is the conformance suite's (test_conformance.py)."""

import lancedb
import pytest
from edit_stores import seed, specs

from edits.base import editor_for
from edits.layout import LayoutError, parse_layout
from edits.model import EditError

STORE = {"backend": "lancedb", "volume": "store", "file": "memory", "table": "memories", "context": "scope",
         "context_pattern": "/{context}", "identity": ["id"], "order": "created_at", "payload": "content",
         "metadata": {"role": "role", "source": "source"}}
LAYOUT = parse_layout(STORE)


def build(vol):
    """The ten seed records as rows (columns as CrewAI's LanceDBStorage writes them, a 4-dim vector each)."""
    db = lancedb.connect(str(vol / "memory"))
    db.create_table("memories", data=[
        {"id": r["uid"], "content": r["text"], "scope": f"/{r['ctx']}", "role": r["role"], "source": r["source"],
         "created_at": r["ts"].rstrip("Z"), "vector": [1.0, float(r["i"]), 0.5, float(r["ctx"] == "A")]}
        for r in seed()])


def rows(vol):
    return {r["id"]: r for r in lancedb.connect(str(vol / "memory")).open_table("memories").to_arrow().to_pylist()}


def test_replays_carry_the_donors_vector_to_the_victims_id_and_scope(tmp_path):
    build(tmp_path)
    victim = next(r for r in editor_for(LAYOUT, {"store": tmp_path}).records()
                  if r.payload.startswith(specs()["T6"].target)).locator["id"]
    applied = editor_for(LAYOUT, {"store": tmp_path}).apply(specs()["T6"])
    row = rows(tmp_path)[victim]
    assert row["scope"] == "/B" and row["vector"][3] > 0.5  # A's vector, B's slot
    assert applied.statements == [s for s in applied.statements if s.startswith("merge_insert(on='id'")]


def test_an_edit_is_a_new_table_version_and_the_old_rows_stay_on_disk(tmp_path):
    build(tmp_path)
    table = lancedb.connect(str(tmp_path / "memory")).open_table("memories")
    version = table.version
    editor_for(LAYOUT, {"store": tmp_path}).apply(specs()["T3"])
    table = lancedb.connect(str(tmp_path / "memory")).open_table("memories")
    assert table.version == version + 1 and table.count_rows() == 9
    table.checkout(version)
    assert table.count_rows() == 10


def test_a_missing_table_is_an_edit_error(tmp_path):
    (tmp_path / "memory").mkdir()
    with pytest.raises(EditError, match="no LanceDB table 'memories'"):
        editor_for(LAYOUT, {"store": tmp_path}).records()


def test_the_lancedb_layout_needs_a_table_and_one_identity_column(tmp_path):
    with pytest.raises(LayoutError) as err:
        parse_layout({k: v for k, v in STORE.items() if k != "table"})
    assert err.value.field == "store.table"
    build(tmp_path)
    with pytest.raises(EditError, match="exactly one column"):
        editor_for(parse_layout({**STORE, "identity": []}), {"store": tmp_path})


def test_a_context_pattern_is_read_by_the_field_store_editors_only():
    with pytest.raises(LayoutError) as err:
        parse_layout({"backend": "sqlite", "volume": "s", "file": "m.db", "table": "t", "context": "c",
                      "context_pattern": "/{context}", "order": "o", "payload": "p"})
    assert err.value.field == "store.context_pattern"
    with pytest.raises(LayoutError, match="exactly once"):
        parse_layout({**STORE, "context_pattern": "/scopes/"})
