"""A context made of several fields (Google ADK's events: the primary key (id, app_name, user_id,
session_id), the context an app, a user and a session): every edit keeps the victim's whole
scope, and C3 checks all of it. On a hand-made SQLite store; a context of one field is unchanged."""

import json
import sqlite3

import pytest
from edit_stores import marker, seed, specs

from edits.base import editor_for
from edits.layout import LayoutError, parse_layout
from edits.model import EditSpec
from edits.plan import SWAP_CONTENTS
from edits.volumes import diff_digests, digest_tree
from lab.judge.c3 import check_edit

CASES = ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8")
SCOPE = {"A": ("app-a", "alice"), "B": ("app-b", "bob")}  # every context in an app and user of its own
LAYOUT = {"backend": "sqlite", "volume": "store", "file": "adk.db", "table": "events",
          "context": ["session_id", "app_name", "user_id"], "identity": ["id", {"field": "event_data", "path": ["id"]}],
          "order": "timestamp", "payload": {"field": "event_data", "format": "json", "path": ["text"]},
          "metadata": {"role": {"field": "event_data", "path": ["role"]}}}


def store(vol, **changes):
    """An events table keyed by (id, app_name, user_id, session_id), the text inside event_data;
    a row of another app and user under session A's id besides (a session id is not unique alone)."""
    db = sqlite3.connect(vol / "adk.db")
    db.execute("CREATE TABLE events (id TEXT, app_name TEXT, user_id TEXT, session_id TEXT, timestamp TEXT, "
               "event_data TEXT, PRIMARY KEY (id, app_name, user_id, session_id))")
    rows = [(r["uid"], *SCOPE[r["ctx"]], r["ctx"], r["ts"].replace("T", " ").rstrip("Z"),
             json.dumps({"id": r["uid"], "role": r["role"], "text": r["text"]})) for r in seed()]
    rows.append(("other-1", "app-z", "zed", "A", "2024-05-01 09:00:00", json.dumps({"id": "other-1", "text": "z"})))
    db.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)", rows)
    db.commit()
    db.close()
    return parse_layout({**LAYOUT, **changes})


def raw_rows(vol):
    db = sqlite3.connect(vol / "adk.db")
    try:
        return {json.loads(doc).get("text", ""): (rid, app, user, session)
                for rid, app, user, session, doc in db.execute("SELECT id, app_name, user_id, session_id, event_data "
                                                                "FROM events")}
    finally:
        db.close()


def row_of(vol, text_marker):
    [found] = [v for k, v in raw_rows(vol).items() if text_marker in k]
    return found


def measure(layout, vol, spec, after_edit=None):
    editor = editor_for(layout, {"store": vol})
    before, digests = [r.to_json() for r in editor.records()], digest_tree(vol)
    editor.apply(spec)
    if after_edit:
        after_edit()
    after = [r.to_json() for r in editor_for(layout, {"store": vol}).records()]
    return check_edit(spec.to_json(), layout.to_json(), before, after, diff_digests(digests, digest_tree(vol)))


def test_the_layout_declares_the_context_and_its_scope(tmp_path):
    layout = store(tmp_path)
    assert layout.context == "session_id" and [r.field for r in layout.scope] == ["app_name", "user_id"]
    assert layout.to_json()["scope"] == [{"field": "app_name", "path": []}, {"field": "user_id", "path": []}]
    records = editor_for(layout, {"store": tmp_path}).records()
    assert {r.whole_context() for r in records} == {("A", "app-a", "alice"), ("B", "app-b", "bob"),
                                                   ("A", "app-z", "zed")}


def test_a_context_of_one_field_is_as_it_was(tmp_path):
    layout = store(tmp_path, context="session_id")
    assert layout.scope == () and "scope" not in layout.to_json()
    assert all(r.scope == () and "scope" not in r.to_json() for r in editor_for(layout, {"store": tmp_path}).records())


@pytest.mark.parametrize("case", CASES)
def test_every_edit_lands_in_the_victims_whole_scope(tmp_path, case):
    layout = store(tmp_path)
    spec = specs("role")[case]
    scope_of = lambda: {row[0]: row[1:] for row in raw_rows(tmp_path).values()}  # noqa: E731  id -> scope
    before = scope_of()
    result = measure(layout, tmp_path, spec)
    assert result.ok, result.reasons
    after = scope_of()
    assert all(after[rid] == before[rid] for rid in set(before) & set(after)), "a row left its app, user or session"
    if case == "T5":
        [new] = set(after) - set(before)
        assert after[new] == (*SCOPE["A"], "A")


def test_a_forged_row_carries_the_victims_app_and_user(tmp_path):
    layout = store(tmp_path)
    template, forged_marker = row_of(tmp_path, marker("A", 5)), specs()["T5"].replace
    measure(layout, tmp_path, specs()["T5"])
    forged = row_of(tmp_path, forged_marker)
    assert forged[1:] == template[1:] and forged[0] != template[0]  # a fresh id, the template's whole scope


@pytest.mark.parametrize("case, update, text, reason", [
    # a forgery as the editor wrote it before the fix: fresh values in the other key columns
    ("T5", "UPDATE events SET app_name = 'app-x', user_id = 'mallory' WHERE event_data LIKE ?",
     specs()["T5"].replace, "not in the target context"),
    # a replay whose victim slot (B's, now holding A's text) moved to A's user
    ("T6", "UPDATE events SET user_id = 'alice' WHERE user_id = 'bob' AND event_data LIKE ?",
     marker("A", 3), "victim slot is gone"),
], ids=["forgery-in-another-app-and-user", "replay-moved-to-the-donors-user"])
def test_c3_refuses_an_edit_that_left_the_victims_scope(tmp_path, case, update, text, reason):
    layout = store(tmp_path)

    def moved():
        db = sqlite3.connect(tmp_path / "adk.db")
        db.execute(update, (f"%{text}%",))
        db.commit()
        db.close()

    result = measure(layout, tmp_path, specs()[case], moved)
    assert not result.ok and any(reason in r for r in result.reasons), result.reasons


def test_swapped_contents_keep_each_rows_scope(tmp_path):
    layout = store(tmp_path)
    spec = EditSpec("T4", "A", marker("A", 2), second=marker("A", 4), variant=SWAP_CONTENTS, op="swap")
    editor = editor_for(layout, {"store": tmp_path})
    assert SWAP_CONTENTS in editor.variants(specs()["T4"], editor.records())
    before = {row[0]: row[1:] for row in raw_rows(tmp_path).values()}
    result = measure(layout, tmp_path, spec)
    assert result.ok, result.reasons
    assert {row[0]: row[1:] for row in raw_rows(tmp_path).values()} == before


def test_a_scope_field_inside_a_json_column_is_kept(tmp_path):
    """A scope entry at a path inside a field: T6 keeps the victim's, T5 the template's."""
    db_layout = {**LAYOUT, "context": ["session_id", "app_name", {"field": "event_data", "path": ["owner"]}]}
    layout = store(tmp_path, **{k: v for k, v in db_layout.items() if k == "context"})
    db = sqlite3.connect(tmp_path / "adk.db")
    db.execute("UPDATE events SET event_data = json_set(event_data, '$.owner', user_id)")
    db.commit()
    db.close()
    for case in ("T6", "T5"):
        result = measure(layout, tmp_path, specs("role")[case])
        assert result.ok, (case, result.reasons)
    docs = {json.loads(d)["text"]: json.loads(d) for (d,) in sqlite3.connect(tmp_path / "adk.db").execute(
        "SELECT event_data FROM events")}
    victim = next(d for t, d in docs.items() if marker("A", 3) in t and d["id"] == next(
        r["uid"] for r in seed() if r["ctx"] == "B" and r["i"] == 3))
    assert victim["owner"] == "bob"  # B's slot holds A's text, its owner still B's
    forged = next(d for t, d in docs.items() if specs()["T5"].replace in t)
    assert forged["owner"] == "alice"


@pytest.mark.parametrize("context, why", [
    (["session_id"], "at least two"),
    (["session_id", "session_id"], "twice"),
    (["session_id", "id"], "twice, or one the identity names"),
    (["session_id", {"field": "event_data"}], "path inside the field"),
])
def test_a_bad_context_of_several_fields_is_refused(context, why):
    with pytest.raises(LayoutError, match=why):
        parse_layout({**LAYOUT, "context": context})


def test_a_context_of_several_fields_is_read_by_the_sql_editors_only():
    with pytest.raises(LayoutError, match="sqlite"):
        parse_layout({"backend": "jsonl", "volume": "store", "file": "m.jsonl", "context": ["a", "b"],
                      "identity": ["id"], "order": "@position", "payload": "text"})
