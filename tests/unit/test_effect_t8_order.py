"""T8 on a timestamp that is also the order key (Google ADK's events: served in the order of the
``timestamp`` column, the served time read from the JSON beside it): a relabel that moves the
record in the served order is an effect, also when the served timestamp itself did not change.
On a hand-made SQLite store, its reader a query in the test (no SUT code)."""

import json
import sqlite3

from edits.base import editor_for
from edits.layout import parse_layout
from edits.model import EditSpec
from lab.judge.effects import effect
from lab.judge.verdicts import derive_cell

LAYOUT = {"backend": "sqlite", "volume": "store", "file": "ev.db", "table": "events", "context": "session_id",
          "identity": ["id"], "order": "timestamp", "payload": {"field": "event_data", "format": "json", "path": ["text"]},
          "metadata": {"timestamp": [{"field": "event_data", "path": ["ts"]}, "timestamp"]}}
MARKERS = [f"mA{i}-abc12{i}" for i in range(5)]


def store(vol):
    db = sqlite3.connect(vol / "ev.db")
    db.execute("CREATE TABLE events (id TEXT PRIMARY KEY, session_id TEXT, timestamp TEXT, event_data TEXT)")
    for i, m in enumerate(MARKERS):
        db.execute("INSERT INTO events VALUES (?, 'A', ?, ?)", (f"e{i}", f"2026-12-03 10:00:0{i}.000000",
                                                                json.dumps({"ts": 1796292000.0 + i, "text": f"[{m}] note {i}"})))
    db.commit()
    db.close()
    return parse_layout(LAYOUT)


def read(vol):
    """The read path of the store: events in timestamp order, the time served from the JSON."""
    db = sqlite3.connect(vol / "ev.db")
    try:
        rows = db.execute("SELECT id, event_data FROM events WHERE session_id = 'A' ORDER BY timestamp, id").fetchall()
    finally:
        db.close()
    return [{"id": rid, "text": json.loads(doc)["text"], "meta": {"timestamp": json.loads(doc)["ts"]}}
            for rid, doc in rows]


def relabel(vol, variant):
    spec = EditSpec("T8", "A", MARKERS[2], meta_field="timestamp", variant=variant, op="set_meta")
    editor_for(parse_layout(LAYOUT), {"store": vol}).apply(spec)
    return {k: v for k, v in spec.to_json().items() if v is not None}


def test_the_order_key_alone_relabelled_moves_the_record_and_that_is_an_effect(tmp_path):
    store(tmp_path)
    baseline = read(tmp_path)
    intended = relabel(tmp_path, "place=timestamp")  # the column the read orders by, not the served time
    served = read(tmp_path)
    assert [r["meta"] for r in served] == [r["meta"] for r in baseline][:2] + [r["meta"] for r in baseline][3:] + \
        [baseline[2]["meta"]]  # the same times served, the relabelled record now last
    seen = effect("T8", intended, served, baseline)
    assert seen["visible"] and "served order changed" in seen["detail"], seen
    obs = {"case": "T8", "status": "measured", "intended": intended, "c3": {"ok": True, "reasons": []},
           "open": {"ok": True, "signals": []}, "read": {"ok": True, "records": served, "signals": []},
           "read_label": "A"}
    c1 = {"case": "C1", "status": "measured", "reads": {"A": {"ok": True, "records": baseline, "signals": []}}}
    assert derive_cell(obs, c1, "read", [])["verdict"] == "ACCEPTED"


def test_a_relabel_of_the_served_time_keeps_its_own_detail(tmp_path):
    store(tmp_path)
    baseline = read(tmp_path)
    intended = relabel(tmp_path, None)  # both places: the served time moves too
    seen = effect("T8", intended, read(tmp_path), baseline)
    assert seen["visible"] and seen["detail"].startswith("served timestamp: ") and "order" not in seen["detail"]


def test_an_order_served_at_random_is_no_effect(tmp_path):
    store(tmp_path)
    baseline = read(tmp_path)
    intended = relabel(tmp_path, "place=timestamp")
    seen = effect("T8", intended, read(tmp_path), baseline, ordered=False)  # a store declared unordered
    assert not seen["visible"] and "served timestamp" in seen["detail"]


def test_nothing_moved_and_nothing_changed_is_no_effect(tmp_path):
    store(tmp_path)
    baseline = read(tmp_path)
    assert not effect("T8", {"target": MARKERS[2], "meta_field": "timestamp"}, baseline, baseline)["visible"]
