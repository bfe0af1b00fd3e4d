"""T1 and T8 in one place of several (``place=`` variants, edits.places) on real SQLite and
JSON-lines stores: the editor offers one variant per place, each changes exactly its place
and passes C3; an edit of another place, of every place, or of none fails that C3."""

import json
import sqlite3

import pytest
from edit_stores import FACTS, TAMPERED, jsonl_store, open_editor, specs, sqlite_store
from place_stores import JSONL_T1, SQLITE_T1, c3_of, jsonl_places, measure, sqlite_places, t1, t8

from edits.model import EditError
from lab.judge.c3 import check_edit

STORES = {"sqlite": (sqlite_places, SQLITE_T1), "jsonl": (jsonl_places, JSONL_T1)}
PAYLOAD_PLACE = {"sqlite": "place=body", "jsonl": "place=text"}


def fresh(tmp_path, kind, name):
    vol = tmp_path / name.replace("=", "-").replace(".", "-")
    vol.mkdir()
    return STORES[kind][0](vol), vol


def fact_record(layout, vol):
    return next(r for r in open_editor(layout, vol).records() if specs()["T1"].target in r.payload)


@pytest.mark.parametrize("kind", sorted(STORES))
def test_t1_offers_one_variant_per_place_of_the_token(tmp_path, kind):
    layout, vol = fresh(tmp_path, kind, "offer")
    editor = open_editor(layout, vol)
    assert editor.variants(specs()["T1"], editor.records()) == STORES[kind][1]


@pytest.mark.parametrize("kind,variant", [(k, v) for k in sorted(STORES) for v in STORES[k][1]])
def test_each_t1_variant_changes_its_place_only_and_passes_c3(tmp_path, kind, variant):
    layout, vol = fresh(tmp_path, kind, variant)
    result, applied = measure(layout, vol, t1(variant))
    assert result.ok, result.reasons
    target = fact_record(layout, vol)
    assert str(target.fields).count(TAMPERED) == 1  # replaced at one place...
    assert str(target.fields).count(FACTS["A"]) == len(STORES[kind][1]) - 1  # ...and kept at every other
    assert (TAMPERED in target.payload) == (variant == PAYLOAD_PLACE[kind])
    assert applied.detail["place"] == variant


@pytest.mark.parametrize("kind", sorted(STORES))
def test_a_t1_variant_inside_json_keeps_every_other_byte(tmp_path, kind):
    layout, vol = fresh(tmp_path, kind, "bytes")
    old = stored_text(vol, kind)
    measure(layout, vol, t1(STORES[kind][1][-1]))
    new = stored_text(vol, kind)
    assert len(new) == len(old) and sum(a != b for a, b in zip(old, new)) == len("0000")


def stored_text(vol, kind):
    """The JSON the last variant edits, as stored: the doc column of every row, or the file."""
    if kind == "jsonl":
        return (vol / "memory.jsonl").read_text()
    db = sqlite3.connect(vol / "memory.db")
    try:
        return "\n".join(row[0] for row in db.execute("SELECT doc FROM notes ORDER BY id"))
    finally:
        db.close()


@pytest.mark.parametrize("kind", sorted(STORES))
def test_c3_of_a_t1_variant_fails_on_another_place_on_every_place_and_on_none(tmp_path, kind):
    first, second = STORES[kind][1][:2]
    layout, vol = fresh(tmp_path, kind, "other")
    other, _ = c3_of(layout, vol, t1(first), t1(second))
    assert not other.ok and f"the fact token was not replaced at {first}" in other.reasons, other.reasons
    layout, vol = fresh(tmp_path, kind, "every")
    every, _ = c3_of(layout, vol, t1(first), t1())
    assert not every.ok and any("changed too" in r for r in every.reasons), every.reasons
    layout, vol = fresh(tmp_path, kind, "none")
    none, _ = c3_of(layout, vol, t1(first), None)
    assert not none.ok and f"the fact token was not replaced at {first}" in none.reasons, none.reasons


@pytest.mark.parametrize("kind", sorted(STORES))
def test_the_default_t1_still_replaces_every_place_and_passes_its_own_c3(tmp_path, kind):
    layout, vol = fresh(tmp_path, kind, "default")
    result, applied = measure(layout, vol, t1())
    assert result.ok, result.reasons
    assert FACTS["A"] not in str(fact_record(layout, vol).fields) and "place" not in applied.detail


def test_a_variant_the_editor_did_not_offer_is_refused(tmp_path):
    layout, vol = fresh(tmp_path, "sqlite", "refused")
    with pytest.raises(EditError, match="offers no variant 'place=role'"):
        open_editor(layout, vol).apply(t1("place=role"))


@pytest.mark.parametrize("build", [lambda v: sqlite_store(v, "text"), lambda v: sqlite_store(v, "json"),
                                   lambda v: jsonl_store(v, "position")], ids=["sqlite-text", "sqlite-json", "jsonl"])
def test_one_place_offers_no_variant(tmp_path, build):
    layout = build(tmp_path)
    editor = open_editor(layout, tmp_path)
    records = editor.records()
    assert editor.variants(specs()["T1"], records) == []
    assert editor.variants(specs(next(iter(layout.metadata)))["T8"], records) == []


def test_t8_offers_one_variant_per_declared_place(tmp_path):
    layout, vol = fresh(tmp_path, "sqlite", "t8-offer")
    editor = open_editor(layout, vol)
    assert editor.variants(t8(), editor.records()) == ["place=doc.role", "place=role"]


@pytest.mark.parametrize("variant", ["place=doc.role", "place=role"])
def test_each_t8_variant_sets_its_place_only_and_passes_c3(tmp_path, variant):
    layout, vol = fresh(tmp_path, "sqlite", variant)
    before = fact_record(layout, vol)
    result, applied = measure(layout, vol, t8(variant))
    assert result.ok, result.reasons
    after = fact_record(layout, vol)
    column_changed = after.fields["role"] != before.fields["role"]
    doc_changed = after.fields["doc"] != before.fields["doc"]
    assert (column_changed, doc_changed) == (variant == "place=role", variant == "place=doc.role")
    assert applied.detail["places"] == [variant.removeprefix("place=")]


def test_c3_of_a_t8_variant_fails_on_the_other_place_and_on_both(tmp_path):
    layout, vol = fresh(tmp_path, "sqlite", "t8-other")
    other, _ = c3_of(layout, vol, t8("place=role"), t8("place=doc.role"))
    assert not other.ok and "metadata 'role' did not change at place=role" in other.reasons, other.reasons
    layout, vol = fresh(tmp_path, "sqlite", "t8-both")
    both, _ = c3_of(layout, vol, t8("place=role"), t8())
    assert not both.ok and any("changed too" in r for r in both.reasons), both.reasons


def test_the_default_t8_still_sets_every_declared_place(tmp_path):
    layout, vol = fresh(tmp_path, "sqlite", "t8-default")
    before = fact_record(layout, vol)
    result, _ = measure(layout, vol, t8())
    after = fact_record(layout, vol)
    assert result.ok, result.reasons
    assert after.fields["role"] != before.fields["role"] and after.fields["doc"] != before.fields["doc"]


def _view(doc, role="user", body="mA3-1398b3 the code is FACT-A-7Q2X"):
    return {"context": "A", "identity": [1], "order": 1, "payload": body, "metadata": {"role": role},
            "fields": {"id": 1, "body": body, "doc": doc, "role": role}}


def test_c3_of_a_place_variant_names_what_went_wrong():
    layout = {"identity": ["id"], "order": "seq", "payload": {"field": "body"}, "metadata": {"role": "role"},
              "metadata_refs": {"role": [{"field": "doc", "path": ["role"], "format": "json"},
                                         {"field": "role", "path": [], "format": "json"}]}}
    doc = {"role": "user", "text": FACTS["A"], "copy": FACTS["A"]}
    before = [_view(json.dumps(doc))]
    files = {"changed": ["memory.db"]}

    def c3(spec, new_doc, **kw):
        return check_edit(spec.to_json(), layout, before, [_view(json.dumps(new_doc), **kw)], files).reasons
    assert c3(t1("place=doc.text"), {**doc, "text": TAMPERED}) == []
    assert c3(t1("place=doc.text"), {**doc, "text": "FACT-A-1111"}) == ["place=doc.text changed beyond the fact token"]
    assert c3(t1("place=doc.nope"), doc) == ["place=doc.nope: no such place of the record holds the fact token "
                                             "before the edit"]
    assert c3(t8("place=doc.role"), {**doc, "role": "assistant"}) == []
    assert c3(t8("place=doc.role"), {**doc, "role": "assistant", "copy": "x"}) == \
        ["field 'doc' changed beyond place=doc.role"]
    assert c3(t8("place=role"), doc, role="assistant") == []
    assert c3(t8("place=role"), doc, role="user") == ["metadata 'role' did not change at place=role"]
    assert c3(t8("place=owner"), doc, role="assistant") == \
        ["place=owner: the layout declares no such place of metadata 'role'"]
