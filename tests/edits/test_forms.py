"""The form=<name> variants on a sealed store: another form the reader accepts (edits.forms), the
case's C3 on it (lab.cases.forms), the layout's forms validated, and the n/a rule."""

import sqlite3
from dataclasses import replace

import pytest
from form_stores import form_spec, measure, profile, seeded

from edits import msgpack
from edits.base import editor_for
from edits.layout import parse_layout
from edits.layout_fields import LayoutError
from edits.model import EditError, EditSpec
from lab.cases import BY_ID, not_applicable, spec_for
from lab.profile.model import Capabilities

FORM_CASES = ("T1", "T3", "T4", "T5", "T8")


def test_the_form_is_t1s_variant_and_the_own_spec_of_the_cases_with_no_sealed_expression(tmp_path):
    layout, vol, plan, versions = seeded(tmp_path)
    editor = editor_for(layout, {"store": vol}, versions=versions)
    recs = editor.records()
    specs = {c: spec_for(BY_ID[c], plan, layout) for c in BY_ID if BY_ID[c].build}
    assert {c: s.variant for c, s in specs.items()} == {c: ("form=plain-msgpack" if c in FORM_CASES[1:] else None)
                                                         for c in specs}
    offered = {c: editor.variants(s, recs) for c, s in specs.items()}
    assert offered == {c: (["form=plain-msgpack"] if c == "T1" else []) for c in offered}
    assert editor.variants(replace(specs["T3"], variant=None), recs) == ["form=plain-msgpack"]
    bare = replace(specs["T3"], seeded=None, variant=None)
    assert editor.variants(bare, recs) == []  # nothing known to author


@pytest.mark.parametrize("case", FORM_CASES)
def test_every_form_variant_lands_and_passes_its_c3(tmp_path, case):
    layout, vol, plan, versions = seeded(tmp_path)
    result = measure(layout, vol, versions, form_spec(case, plan, layout))
    assert result.ok, result.reasons
    db = sqlite3.connect(vol / "checkpoints.db")
    rows = db.execute("SELECT thread_id, type, checkpoint FROM checkpoints "
                      "ORDER BY thread_id, checkpoint_id").fetchall()
    db.close()
    plain = [r for r in rows if r[1] == "msgpack"]
    assert len(plain) == 1 and plain[0][0] == plan.contexts["A"]  # one row: A's newest, now plain
    assert rows[len(rows) // 2 - 1] == plain[0]  # the newest of A (A's rows sort first)
    doc = msgpack.unpack(plain[0][2])
    assert msgpack.pack(doc) == plain[0][2] and doc["v"] == 4
    texts = [m.value[2]["content"] for m in doc["channel_values"]["messages"]]
    seeded_a = [r.text for r in plan.of("A")]
    fact, facts = plan.of("A")[2], plan.facts["A"]
    want = {"T1": [t.replace(facts, plan.tampered_fact) for t in seeded_a],
            "T3": [t for t in seeded_a if t != fact.text],
            "T4": [seeded_a[i] for i in (0, 3, 2, 1, 4)],
            "T5": seeded_a + [seeded_a[-1].replace(plan.of("A")[-1].marker, plan.forged_marker)],
            "T8": seeded_a}[case]
    assert texts == want
    roles = [(m.value[0].rsplit(".", 1)[1], m.value[1], m.value[2]["type"]) for m in doc["channel_values"]["messages"]]
    human, ai = ("human", "HumanMessage", "human"), ("ai", "AIMessage", "ai")  # the role in its every encoding
    assert roles == ([human, human, ai, human, human] if case == "T8" else [human] * len(want))


def test_the_records_of_a_form_row_are_its_elements_the_rest_stay_sealed(tmp_path):
    layout, vol, plan, versions = seeded(tmp_path)
    editor = editor_for(layout, {"store": vol}, versions=versions)
    before = editor.records()
    editor.apply(form_spec("T1", plan, layout))
    after = editor.records()
    in_form = [r for r in after if r.locator.get("form")]
    assert [r.payload for r in in_form] == [r.text.replace(plan.facts["A"], plan.tampered_fact) for r in plan.of("A")]
    assert {r.context for r in in_form} == {plan.contexts["A"]}
    assert len(after) == len(before) - 1 + len(in_form)


def test_a_form_row_that_does_not_hold_what_the_case_intends_fails_c3(tmp_path):
    layout, vol, plan, versions = seeded(tmp_path)
    spec = form_spec("T1", plan, layout)

    def drop_a_record():  # the plain row loses its first message, outside the editor
        db = sqlite3.connect(vol / "checkpoints.db")
        (blob, cid), = db.execute("SELECT checkpoint, checkpoint_id FROM checkpoints WHERE type = 'msgpack'").fetchall()
        doc = msgpack.unpack(blob)
        del doc["channel_values"]["messages"][0]
        db.execute("UPDATE checkpoints SET checkpoint = ? WHERE checkpoint_id = ?", (msgpack.pack(doc), cid))
        db.commit()
        db.close()
    result = measure(layout, vol, versions, spec, drop_a_record)
    assert not result.ok and any("other than" in r for r in result.reasons), result.reasons


def test_a_form_edit_claimed_as_another_case_fails_c3(tmp_path):
    layout, vol, plan, versions = seeded(tmp_path)
    result = measure(layout, vol, versions, form_spec("T1", plan, layout), claimed=form_spec("T3", plan, layout))
    assert not result.ok and any("still present" in r for r in result.reasons), result.reasons


def test_a_form_written_over_an_older_row_fails_c3(tmp_path):
    layout, vol, plan, versions = seeded(tmp_path)

    def also_an_old_row():  # a second row put in the form: not only the current one changed
        db = sqlite3.connect(vol / "checkpoints.db")
        blob, = db.execute("SELECT checkpoint FROM checkpoints WHERE type = 'msgpack'").fetchone()
        db.execute("UPDATE checkpoints SET type = 'msgpack', checkpoint = ? WHERE checkpoint_id = "
                   "(SELECT min(checkpoint_id) FROM checkpoints)", (blob,))
        db.commit()
        db.close()
    result = measure(layout, vol, versions, form_spec("T4", plan, layout), also_an_old_row)
    assert not result.ok and any("outside the current version row" in r for r in result.reasons), result.reasons


def test_a_record_case_on_a_sealed_state_has_no_expression_but_its_forms(tmp_path):
    layout, vol, plan, versions = seeded(tmp_path)
    editor = editor_for(layout, {"store": vol}, versions=versions)
    sealed = replace(spec_for(BY_ID["T3"], plan, layout), variant=None)
    with pytest.raises(EditError, match="opaque payload"):
        editor.apply(sealed)
    assert "no default expression" in BY_ID["T3"].state_rule(None, sealed.to_json(), [], [])[0]


def test_a_variant_not_offered_is_refused(tmp_path):
    layout, vol, plan, versions = seeded(tmp_path)
    editor = editor_for(layout, {"store": vol}, versions=versions)
    with pytest.raises(EditError, match="offers no variant 'form=plain-json'"):
        editor.apply(replace(spec_for(BY_ID["T3"], plan, layout), variant="form=plain-json"))
    with pytest.raises(EditError, match="offers no variant"):
        editor.apply(replace(spec_for(BY_ID["T2"], plan, layout), variant="form=plain-msgpack"))


def test_the_default_t1_keeps_its_bit_flip_and_its_effect(tmp_path):
    layout, vol, plan, versions = seeded(tmp_path)
    spec = spec_for(BY_ID["T1"], plan, layout)
    assert spec.unit == "state" and spec.variant is None
    result = measure(layout, vol, versions, spec)
    assert result.ok, result.reasons


def test_not_applicable_only_when_no_form_is_declared():
    sealed = Capabilities(erasure="context", sealed=True)
    assert "forms tried: none" in not_applicable(BY_ID["T3"], sealed)
    with_form = Capabilities(erasure="context", sealed=True, forms=("plain-msgpack",))
    assert not any(not_applicable(BY_ID[c], with_form) for c in FORM_CASES)
    assert profile().capabilities.forms == ("plain-msgpack",)


def _layout(**form):
    good = {"name": "plain-msgpack", "format": "msgpack", "path": ["m"], "set": {"type": "msgpack"},
            "template": "langgraph-checkpoint-v4"}
    return {"backend": "sqlite", "volume": "store", "file": "cp.db", "table": "cp", "context": "t",
            "order": "@position", "payload": {"field": "blob", "format": form.pop("fmt", "opaque"),
                                              "forms": [{**good, **form}]},
            "records": {"text": ["text"], "version": "v"}}


@pytest.mark.parametrize("bad, field, says", [
    ({"fmt": "msgpack", "path": ["m"]}, "store.payload.forms", "forms are other forms of an opaque payload"),
    ({"template": "nope"}, "store.payload.forms[0].template", "names no template"),
    ({"set": {}}, "store.payload.forms[0].set", "must map the columns"),
    ({"set": {"blob": "x"}}, "store.payload.forms[0].set", "not the payload field"),
    ({"format": "yaml"}, "store.payload.forms[0].format", "unknown format"),
    ({"name": "Plain Form"}, "store.payload.forms[0].name", "not a unique short name"),
    ({"path": "m"}, "store.payload.forms[0].path", "must be the path"),
    ({"extra": 1}, "store.payload.forms[0]", "a form is exactly"),
])
def test_a_bad_form_is_refused_with_its_field_and_a_fix(bad, field, says):
    with pytest.raises(LayoutError) as err:
        parse_layout(_layout(**bad))
    assert err.value.field == field and says in err.value.message and err.value.fix


def test_a_layout_without_forms_writes_its_json_as_before():
    data = _layout()
    del data["payload"]["forms"]
    assert "forms" not in parse_layout(data).to_json()["payload"]
    assert parse_layout(_layout()).to_json()["payload"]["forms"][0]["set"] == {"type": "msgpack"}


def test_the_spec_carries_the_seeded_texts_only_where_a_form_is_declared(tmp_path):
    layout, _, plan, _ = seeded(tmp_path)
    spec = spec_for(BY_ID["T4"], plan, layout)
    assert spec.seeded == tuple(r.text for r in plan.of("A"))
    plain = parse_layout({**_layout(), "payload": {"field": "blob", "format": "opaque"}})
    assert "seeded" not in spec_for(BY_ID["T4"], plan, plain).to_json()
    assert EditSpec.from_json(spec.to_json()).seeded == list(spec.seeded)
