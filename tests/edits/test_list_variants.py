"""The variants of list-element records (edits.lists): T2 ``element``, T3 and T5 ``version=new``, T4
``swap=contents``, on a checkpoints.db in the langgraph-sqlite profile's layout and on RedisJSON
documents. Each variant lands as it says, the case's C3 passes on it, and C3 fails on the default
edit judged as the variant (the edit did not land the variant's way)."""

import sqlite3
from dataclasses import replace

import pytest
import yaml
from edit_stores import marker, specs
from langgraph_store import PROFILE, build, checkpoint_id, layout, table

from edits.base import editor_for
from edits.layout import LayoutError, parse_layout
from edits.model import EditError, EditSpec
from edits.msgpack import unpack
from edits.values import next_version
from edits.volumes import diff_digests, digest_tree
from lab.judge.c3 import check_edit

VARIANTS = {"T2": "element", "T3": "version=new", "T4": "swap=contents", "T5": "version=new"}
NEWEST_A = checkpoint_id(18)  # A's last done checkpoint (the writes of A and B interleave)
WHY = {"T2": "the records of the context moved from version row(s)",
       "T3": "the records sit in version row", "T4": "the identities moved with the records",
       "T5": "the records sit in version row"}
ROWS = "SELECT thread_id, checkpoint_id, parent_checkpoint_id, checkpoint, metadata FROM checkpoints"


def open_editor(vol, versions, lay=None):
    return editor_for(lay or layout(), {"store": vol}, versions=versions)


def edit(vol, versions, spec, judged_as=None, lay=None):
    """Apply ``spec``, then C3 of ``judged_as`` (default: the spec) on the records before and after."""
    lay = lay or layout()
    before, digests = open_editor(vol, versions, lay).records(), digest_tree(vol)
    applied = open_editor(vol, versions, lay).apply(spec)
    after = open_editor(vol, versions, lay).records()
    c3 = check_edit((judged_as or spec).to_json(), lay.to_json(), [r.to_json() for r in before],
                    [r.to_json() for r in after], diff_digests(digests, digest_tree(vol)))
    return before, after, applied, c3


def messages(blob):
    return [m.value[2] for m in unpack(blob)["channel_values"]["messages"]]


def test_the_editor_offers_each_variant_of_its_case_only(tmp_path):
    versions = build(tmp_path)
    editor = open_editor(tmp_path, versions)
    records = editor.records()
    offered = {case: editor.variants(spec, records) for case, spec in specs("role").items()}
    assert offered == {"T1": [], "T2": ["element"], "T3": ["version=new"], "T4": ["swap=contents"],
                       "T5": ["version=new"], "T6": [], "T7": [],
                       "T8": ["place=2.type", "place=1", "place=0"]}  # the role kept in three places
    with pytest.raises(EditError, match="offers no variant 'swap=contents'"):
        editor.apply(replace(specs()["T3"], variant="swap=contents"))


def test_a_payload_in_another_tables_row_offers_no_new_version():
    """LangGraph's PostgresSaver keeps the messages in a checkpoint_blobs row (records.payload_row)."""
    store = yaml.safe_load(PROFILE.with_name("langgraph-postgres.yaml").read_text())["store"]
    editor = editor_for(parse_layout(store), {}, {"db": "postgresql://127.0.0.1:1/none"}, versions={})
    assert [editor.variants(specs()[c], []) for c in ("T2", "T3", "T4", "T5")] == \
        [["element"], [], ["swap=contents"], []]


def test_t2_element_removes_the_last_message_inside_the_newest_checkpoint(tmp_path):
    versions = build(tmp_path)
    old = {r[1]: r for r in table(tmp_path, ROWS)}
    before, after, applied, c3 = edit(tmp_path, versions, replace(specs()["T2"], variant="element"))
    assert c3.ok, c3.reasons
    new = {r[1]: r for r in table(tmp_path, ROWS)}
    assert set(new) == set(old) and [v for v in old if old[v] != new[v]] == [NEWEST_A]
    assert [m["content"][:9] for m in messages(new[NEWEST_A][3])] == [marker("A", i)[:9] for i in range(1, 5)]
    assert applied.detail["operation"] == "remove element 4 of channel_values.messages"


@pytest.mark.parametrize("case", ["T3", "T5"])
def test_version_new_adds_a_newest_checkpoint_on_top_of_the_genuine_ones(tmp_path, case):
    versions = build(tmp_path)
    old = {r[1]: r for r in table(tmp_path, ROWS)}
    writes = table(tmp_path, "SELECT * FROM writes")
    _, after, applied, c3 = edit(tmp_path, versions, replace(specs()[case], variant="version=new"))
    assert c3.ok, c3.reasons
    new = {r[1]: r for r in table(tmp_path, ROWS)}
    fresh = "1f1ec7da-0012-6151-800b-e75989ede413"  # A's newest, counted up by one
    assert applied.detail["new_version"] == fresh and applied.detail["parent"] == NEWEST_A
    assert {v: new[v] for v in old} == old and set(new) - set(old) == {fresh}  # the genuine rows untouched
    thread, _, parent, blob, meta = new[fresh]
    assert (thread, parent, meta) == ("A", NEWEST_A, old[NEWEST_A][4])
    state, genuine = unpack(blob), unpack(old[NEWEST_A][3])
    assert state["id"] == fresh and state["ts"] == genuine["ts"]
    texts = [m["content"] for m in messages(blob)]
    genuine_texts = [m["content"] for m in messages(old[NEWEST_A][3])]
    if case == "T3":
        assert texts == genuine_texts[:2] + genuine_texts[3:]
    else:
        assert texts[:-1] == genuine_texts and marker("A", 5)[:-6] + "f0rg3d" in texts[-1]
    assert table(tmp_path, "SELECT * FROM writes") == writes
    assert {r.locator["version"] for r in after if r.context == "A"} == {fresh}


def test_t4_swap_contents_keeps_each_messages_id_in_its_place(tmp_path):
    versions = build(tmp_path)
    old = dict(table(tmp_path, "SELECT checkpoint_id, checkpoint FROM checkpoints"))
    _, _, applied, c3 = edit(tmp_path, versions, replace(specs()["T4"], variant="swap=contents"))
    assert c3.ok, c3.reasons
    new = dict(table(tmp_path, "SELECT checkpoint_id, checkpoint FROM checkpoints"))
    was, now = messages(old[NEWEST_A]), messages(new[NEWEST_A])
    assert [m["id"] for m in now] == [m["id"] for m in was]
    assert [m["content"] for m in now] == [was[k]["content"] for k in (0, 3, 2, 1, 4)]
    assert [v for v in old if old[v] != new[v]] == [NEWEST_A]
    assert applied.detail["operation"] == "exchange the 2.content of elements 1 and 3 of channel_values.messages"


@pytest.mark.parametrize("case", sorted(VARIANTS))
def test_c3_of_a_variant_fails_on_the_default_edit(tmp_path, case):
    """The default expression changes the records much as the variant does; C3 judged as the
    variant must still see that the edit did not land the variant's way."""
    versions = build(tmp_path)
    spec = specs()[case]
    before, after, _, c3 = edit(tmp_path, versions, spec, judged_as=replace(spec, variant=VARIANTS[case]))
    assert not c3.ok
    assert c3.reasons == [WHY[case]] or c3.reasons[0].startswith(WHY[case]), c3.reasons
    default = check_edit(spec.to_json(), layout().to_json(), [r.to_json() for r in before],
                         [r.to_json() for r in after], {"changed": ["store/checkpoints.db"]})
    assert default.ok, default.reasons  # the same edit judged as itself landed


def test_c3_of_version_new_fails_when_the_parent_link_is_not_the_genuine_newest(tmp_path):
    versions = build(tmp_path)
    lay = layout()
    editor = open_editor(tmp_path, versions, lay)
    before, digests = [r.to_json() for r in editor.records()], digest_tree(tmp_path)
    spec = replace(specs()["T5"], variant="version=new")
    fresh = editor.apply(spec).detail["new_version"]
    db = sqlite3.connect(tmp_path / "checkpoints.db")
    db.execute("UPDATE checkpoints SET parent_checkpoint_id = ? WHERE checkpoint_id = ?", (checkpoint_id(17), fresh))
    db.commit()
    db.close()
    after = [r.to_json() for r in open_editor(tmp_path, versions, lay).records()]
    c3 = check_edit(spec.to_json(), lay.to_json(), before, after, diff_digests(digests, digest_tree(tmp_path)))
    assert not c3.ok and any("parent" in r for r in c3.reasons), c3.reasons


def test_version_new_without_a_parent_link_copies_the_row_as_it_is(tmp_path):
    versions = build(tmp_path)
    lay = layout(parent=False)
    _, _, applied, c3 = edit(tmp_path, versions, replace(specs()["T5"], variant="version=new"), lay=lay)
    assert c3.ok, c3.reasons
    assert "parent" not in applied.detail
    fresh = applied.detail["new_version"]
    assert table(tmp_path, f"SELECT parent_checkpoint_id FROM checkpoints WHERE checkpoint_id = '{fresh}'") == \
        [(checkpoint_id(17),)]  # the genuine newest's own parent


def test_variants_on_an_opaque_payload_are_none(tmp_path):
    versions = build(tmp_path)
    lay = layout()
    opaque = replace(lay, payload=replace(lay.payload, format="opaque", path=()))
    editor = open_editor(tmp_path, versions, opaque)
    assert all(editor.variants(replace(s, unit="state"), []) == [] for s in specs().values())


@pytest.mark.parametrize("newest, taken, fresh", [
    ("1f1ec7da-0012-6151-800b-e75989ede4ff", [], "1f1ec7da-0012-6151-800b-e75989ede500"),
    ("1F1EC7DA-00FF", ["1F1EC7DA-0100"], "1F1EC7DA-0101"),
    ("0099", [], "0100"),
    (41, [42], 43),
    ("ff", [], "ff~"),
])
def test_next_version_counts_up_in_the_values_own_shape(newest, taken, fresh):
    assert next_version(newest, taken) == fresh


def test_next_version_refuses_a_value_it_cannot_count():
    with pytest.raises(ValueError, match="bytes"):
        next_version(b"\x01", [])


def test_a_variant_spec_is_refused_by_a_plain_editor(tmp_path):
    versions = build(tmp_path)
    with pytest.raises(EditError, match="offers no variant"):
        open_editor(tmp_path, versions).apply(EditSpec("T1", "A", marker("A", 3), find="x", replace="y",
                                                       variant="element", op="replace"))


# ---- RedisJSON documents (LangGraph's RedisSaver layout) --------------------------------------

@pytest.mark.parametrize("case", sorted(VARIANTS))
def test_each_variant_lands_on_redis_json_documents(redis_stack_url, case):
    from test_redis_json import LAYOUT, fill

    client, versions = fill(redis_stack_url)
    genuine = client.json().get("cp:A:ns:00000018")
    before = editor_for(LAYOUT, {}, {"stack": redis_stack_url}, versions=versions).records()
    spec = replace(specs()[case], variant=VARIANTS[case])
    applied = editor_for(LAYOUT, {}, {"stack": redis_stack_url}, versions=versions).apply(spec)
    after = editor_for(LAYOUT, {}, {"stack": redis_stack_url}, versions=versions).records()
    c3 = check_edit(spec.to_json(), LAYOUT.to_json(), [r.to_json() for r in before], [r.to_json() for r in after],
                    {"changed": ["redisdata/appendonly.aof"]})
    assert c3.ok, c3.reasons
    if VARIANTS[case] == "version=new":
        assert applied.statements[1:] == [applied.statements[1], "SET cp_latest:A:ns cp:A:ns:00000019", "EXEC"]
        forged = client.json().get("cp:A:ns:00000019")
        assert list(forged) == list(genuine) and forged["checkpoint_id"] == forged["checkpoint"]["id"] == "00000019"
        assert client.json().get("cp:A:ns:00000018") == genuine  # the genuine newest untouched
    else:
        assert client.get("cp_latest:A:ns") == "cp:A:ns:00000018"


def test_a_parent_that_is_no_column_name_is_a_layout_error_and_a_missing_column_an_edit_error(tmp_path):
    store = yaml.safe_load(PROFILE.read_text())["store"]
    store["records"]["parent"] = ["parent_checkpoint_id"]
    with pytest.raises(LayoutError) as err:
        parse_layout(store)
    assert err.value.field == "store.records.parent"
    store["records"]["parent"] = "parent_id"
    versions = build(tmp_path)
    with pytest.raises(EditError, match=r"no column\(s\) \['parent_id'\]"):
        open_editor(tmp_path, versions, parse_layout(store)).records()
