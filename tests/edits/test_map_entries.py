"""A keyed state map (Google ADK's user_states: one row per (app_name, user_id), the state a JSON
object in it): every entry is a record keyed by (context, key), the generic SQLite editor edits
one entry in place, C3 checks it, and the cases a map can express are the ones its capabilities
say. On a hand-made SQLite store."""

import json
import sqlite3

import pytest
from edit_stores import FACTS, marker, specs
from profile_text import sqlite_profile

from edits.base import editor_for
from edits.layout import LayoutError, parse_layout
from edits.model import EditError, EditSpec
from edits.volumes import diff_digests, digest_tree
from lab.cases import BY_ID, not_applicable
from lab.judge.c3 import check_edit
from lab.profile import ProfileError, load_profile
from lab.profile.model import Capabilities

LAYOUT = {"backend": "sqlite", "volume": "store", "file": "s.db", "table": "user_states",
          "context": ["user_id", "app_name"], "identity": ["@key"], "order": "@position",
          "payload": {"field": "state", "format": "json"}, "map": {"text": []}}
USERS = {"A": "app-a", "B": "app-b"}


def entries(ctx, shape=str):
    """Five entries of context ``ctx`` (the fact in the third), in the order written."""
    out = {}
    for i in range(1, 6):
        text = f"{marker(ctx, i)} note {i} of {ctx}" + (f", the code is {FACTS[ctx]}" if i == 3 else "")
        out[f"note-{ctx.lower()}{i}"] = text if shape is str else {"text": text, "role": "user", "at": f"2024-05-0{i}"}
    return out


def store(vol, shape=str, **changes):
    db = sqlite3.connect(vol / "s.db")
    db.execute("CREATE TABLE user_states (app_name TEXT, user_id TEXT, state TEXT NOT NULL, update_time TEXT, "
               "PRIMARY KEY (app_name, user_id))")
    for ctx, app in USERS.items():
        db.execute("INSERT INTO user_states VALUES (?, ?, ?, '2024-05-01 10:00:00')",
                   (app, ctx, json.dumps(entries(ctx, shape))))
    db.execute("INSERT INTO user_states VALUES ('app-z', 'A', '{}', NULL)")  # user A in another app: empty map
    db.commit()
    db.close()
    return parse_layout({**LAYOUT, **changes})


def raw_state(vol, ctx):
    db = sqlite3.connect(vol / "s.db")
    try:
        return db.execute("SELECT state FROM user_states WHERE user_id = ? AND app_name = ?",
                          (ctx, USERS[ctx])).fetchone()[0]
    finally:
        db.close()


def measure(layout, vol, spec):
    editor = editor_for(layout, {"store": vol})
    before, digests = [r.to_json() for r in editor.records()], digest_tree(vol)
    editor.apply(spec)
    after = [r.to_json() for r in editor_for(layout, {"store": vol}).records()]
    return check_edit(spec.to_json(), layout.to_json(), before, after, diff_digests(digests, digest_tree(vol)))


def test_every_entry_is_a_record_keyed_by_its_context_and_key(tmp_path):
    layout = store(tmp_path)
    records = editor_for(layout, {"store": tmp_path}).records()
    assert [(r.whole_context(), r.key(), r.order) for r in records if r.context == "A"] == \
           [(("A", "app-a"), f"note-a{i}", i - 1) for i in range(1, 6)]
    assert records[2].payload == entries("A")[records[2].key()] and records[2].metadata == {}
    assert layout.to_json()["map"] == {"text": [], "metadata": {}}


@pytest.mark.parametrize("case", ["T1", "T2", "T3", "T4", "T5", "T6", "T7"])
def test_each_edit_lands_on_one_entry_and_passes_c3(tmp_path, case):
    layout = store(tmp_path)
    result = measure(layout, tmp_path, specs()[case])
    assert result.ok, result.reasons


def test_t1_changes_the_token_in_the_value_and_no_other_byte(tmp_path):
    layout = store(tmp_path)
    before = raw_state(tmp_path, "A")
    measure(layout, tmp_path, specs()["T1"])
    assert raw_state(tmp_path, "A") == before.replace(FACTS["A"], specs()["T1"].replace)


def test_a_forged_entry_gets_a_fresh_key_after_the_others_and_the_map_keeps_the_sut_s_encoding(tmp_path):
    layout = store(tmp_path)
    measure(layout, tmp_path, specs()["T5"])
    state = json.loads(raw_state(tmp_path, "A"))
    new = [k for k in state if k not in entries("A")]
    assert len(new) == 1 and list(state)[-1] == new[0]
    assert state[new[0]] == entries("A")["note-a5"].replace(marker("A", 5), specs()["T5"].replace)
    assert raw_state(tmp_path, "A") == json.dumps(state)  # the separators json.dumps writes, as the SUT did


def test_a_replayed_value_sits_under_the_victims_key_in_the_victims_row(tmp_path):
    layout = store(tmp_path)
    measure(layout, tmp_path, specs()["T6"])
    b = json.loads(raw_state(tmp_path, "B"))
    assert list(b) == list(entries("B")) and b["note-b3"] == entries("A")["note-a3"]
    assert json.loads(raw_state(tmp_path, "A")) == entries("A")


def test_metadata_inside_object_values_is_relabelled_by_t8(tmp_path):
    layout = store(tmp_path, shape=dict, map={"text": ["text"], "metadata": {"role": ["role"], "timestamp": ["at"]}})
    result = measure(layout, tmp_path, specs("role")["T8"])
    assert result.ok, result.reasons
    assert json.loads(raw_state(tmp_path, "A"))["note-a3"]["role"] == "assistant"


def test_a_map_without_metadata_refuses_t8(tmp_path):
    layout = store(tmp_path)
    with pytest.raises(EditError, match="no metadata field"):
        editor_for(layout, {"store": tmp_path}).apply(EditSpec("T8", "A", marker("A", 3), meta_field="role",
                                                               op="set_meta"))


def test_which_cases_an_unordered_map_without_metadata_expresses():
    """A map read by key (order: false) whose values hold no metadata: T2, T4 and T8 have nothing to
    act on (docs/method.md); the rest are measured."""
    caps = Capabilities(erasure="none", order=False, metadata=False)
    na = {c: not_applicable(BY_ID[c], caps) for c in ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8", "T9", "T10")}
    assert {c for c, why in na.items() if why} == {"T2", "T4", "T8", "T10"}
    assert all("no metadata layer" in na[c] for c in ("T2", "T4", "T8"))


@pytest.mark.parametrize("changes, field", [
    ({"identity": ["id"]}, "store.identity"),
    ({"order": "update_time"}, "store.order"),
    ({"metadata": {"role": "role"}}, "store.metadata"),
    ({"payload": "state"}, "store.payload.format"),
    ({"map": {"text": [], "where": 1}}, "store.map"),
])
def test_a_bad_map_layout_is_refused(changes, field):
    with pytest.raises(LayoutError) as err:
        parse_layout({**LAYOUT, **changes})
    assert err.value.field == field


def test_a_map_is_edited_by_the_sql_editors_only():
    with pytest.raises(LayoutError, match="sqlite"):
        parse_layout({"backend": "jsonl", "volume": "store", "file": "m.jsonl", "context": "c", "identity": ["@key"],
                      "order": "@position", "payload": {"field": "state", "format": "json"}, "map": {}})


def test_a_profile_says_what_a_map_expresses(tmp_path):
    """A map row's capabilities are checked against its layout: metadata only where map.metadata
    declares some."""
    store_text = """\
        file: s.db
        table: user_states
        context: [user_id, app_name]
        identity: ["@key"]
        order: "@position"
        payload: {field: state, format: json}
        map: {text: []}
        """
    good = tmp_path / "good.yaml"
    good.write_text(sqlite_profile("map-row", "{package: x, version: '1'}", store_text,
                                   "{erasure: none, order: false, metadata: false}"))
    assert load_profile(good).store.map is not None
    bad = tmp_path / "bad.yaml"
    bad.write_text(sqlite_profile("map-row", "{package: x, version: '1'}", store_text,
                                  "{erasure: none, order: false, metadata: true}"))
    with pytest.raises(ProfileError, match="capabilities.metadata"):
        load_profile(bad)
