"""QdrantEditor: points of a Qdrant local-mode folder edited through qdrant_client (no SUT code);
what an edit carries besides the payload (a point's vector) and what is refused; each operation's
postcondition is the conformance suite's (test_conformance.py)."""

import pytest
from edit_stores import qdrant_points, specs
from qdrant_client import QdrantClient

from edits.base import editor_for
from edits.layout import LayoutError, parse_layout
from edits.model import EditError

LAYOUT = parse_layout({"backend": "qdrant", "volume": "store", "file": "qdrant", "collection": "mem",
                       "context": "user_id", "order": "created_at", "payload": "data",
                       "metadata": {"role": "role", "source": "source"}})


def build(vol):
    """The ten seed records as points (payload fields as Mem0 writes them, a 4-dim vector each)."""
    qdrant_points(vol, lambda r: {"data": r["text"], "user_id": r["ctx"], "role": r["role"], "source": r["source"],
                                  "created_at": r["ts"]})


def test_replays_carry_the_donors_vector_to_the_victims_id(tmp_path):
    build(tmp_path)
    editor = editor_for(LAYOUT, {"store": tmp_path})
    before = {r.payload[:9]: r for r in editor.records()}
    editor.apply(specs()["T6"])
    client = QdrantClient(path=str(tmp_path / "qdrant"))
    try:
        victim = before[specs()["T6"].target[:9]].locator["id"]
        point = client.retrieve("mem", ids=[victim], with_vectors=True)[0]
        assert point.payload["user_id"] == "B" and point.vector[3] > 0.5  # A's vector, B's slot
    finally:
        client.close()


def test_a_locked_store_is_an_edit_error(tmp_path):
    build(tmp_path)
    holder = QdrantClient(path=str(tmp_path / "qdrant"))  # a live process holds the folder
    try:
        with pytest.raises(EditError, match="is the SUT stopped"):
            editor_for(LAYOUT, {"store": tmp_path}).records()
    finally:
        holder.close()


def test_the_qdrant_layout_needs_a_collection():
    with pytest.raises(LayoutError) as err:
        parse_layout({**{k: v for k, v in LAYOUT.to_json().items() if k not in ("collection", "table")},
                      "metadata": {}})
    assert err.value.field == "store.collection"
