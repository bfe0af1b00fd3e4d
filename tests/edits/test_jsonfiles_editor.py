"""JsonFilesEditor (backend json-files): one JSON document per context, named by the percent-encoded
context, its records the elements of the list at payload.path (as AutoGen's saved AssistantAgentState
keeps a conversation's messages in llm_context.messages). Every case T1-T8 changes exactly what it
should in the file, in the file's own formatting and in place, says so in words, and C3 agrees;
what cannot be read raises EditError."""

import dataclasses
import json
import os
from urllib.parse import quote

import pytest
from edit_stores import FACTS, TAMPERED, marker, specs

from edits.base import editor_for
from edits.confine import StoreEscape
from edits.layout import LayoutError, parse_layout
from edits.model import EditError, EditSpec
from edits.volumes import diff_digests, digest_tree
from lab.judge.c3 import check_edit

CTX = {"A": "acme/alice", "B": "acme/bob"}  # the lab's folded contexts: a '/' percent-encoded in the name
ROLES = {"user": ("UserMessage", "user"), "assistant": ("AssistantMessage", "agent")}
STORE = {"backend": "json-files", "volume": "store", "file": "{context}.json", "context_encoding": "percent",
         "order": "@position", "payload": {"field": "state", "format": "json", "path": ["llm_context", "messages"]},
         "records": {"text": ["content"], "metadata": {"role": [
             {"path": ["type"], "values": {"user": "UserMessage", "assistant": "AssistantMessage"}},
             {"path": ["source"], "values": {"user": "user", "assistant": "agent"}}]}}}


def messages(ctx):
    out = []
    for i in range(1, 6):
        kind, source = ROLES["user" if i % 2 else "assistant"]
        text = f"{marker(ctx, i)} note {i} in {ctx}" + (f", the code is {FACTS[ctx]}" if i == 3 else "")
        out.append({"content": text, "source": source, "type": kind})
    return out


def name(ctx):
    return quote(CTX[ctx], safe="") + ".json"


def build(vol, dump=json.dumps):
    for ctx in CTX:
        state = {"type": "AssistantAgentState", "version": "1.0.0", "llm_context": {"messages": messages(ctx)}}
        (vol / name(ctx)).write_text(dump(state))
    return editor_for(parse_layout(STORE), {"store": vol})


def listed(vol, ctx):
    return json.loads((vol / name(ctx)).read_text())["llm_context"]["messages"]


def spec_of(case, variant=None):
    spec = specs("role")[case]
    return dataclasses.replace(spec, context=CTX[spec.context], variant=variant)


def test_records_are_the_list_elements_of_each_context_file(tmp_path):
    recs = build(tmp_path).records()
    assert [r.context for r in recs] == [CTX["A"]] * 5 + [CTX["B"]] * 5
    assert [r.order for r in recs[:5]] == [0, 1, 2, 3, 4]
    assert [r.payload for r in recs[:5]] == [m["content"] for m in messages("A")]
    assert [r.metadata["role"] for r in recs[:5]] == ["user", "assistant", "user", "assistant", "user"]
    assert recs[2].key() == "acme/alice|2" and recs[2].locator == {"file": "acme%2Falice.json", "index": 2}


# what each case leaves in A's (B's for T6) list, from the genuine one; and the statement it makes
def _t4(m):
    m[1], m[3] = m[3], m[1]
    return m


EXPECTED = {
    "T1": ("A", lambda m: [*m[:2], {**m[2], "content": m[2]["content"].replace(FACTS["A"], TAMPERED)}, *m[3:]],
           f"replace {FACTS['A']} by {TAMPERED} in element 2 of llm_context.messages"),
    "T2": ("A", lambda m: m[:4], "remove element 4 of llm_context.messages"),
    "T3": ("A", lambda m: m[:2] + m[3:], "remove element 2 of llm_context.messages"),
    "T4": ("A", _t4, "exchange elements 1 and 3 of llm_context.messages"),
    "T5": ("A", lambda m: [*m, {**m[4], "content": m[4]["content"].replace(marker("A", 5),
                                                                           marker("A", 5)[:-6] + "f0rg3d")}],
           "append a copy of element 4 with fresh identity acme/alice|5 to llm_context.messages"),
    "T6": ("B", lambda m: [*m[:2], messages("A")[2], *m[3:]],
           "copy element 2 of acme%2Falice.json over element 2, keeping its identity"),
    "T7": ("A", lambda m: [*m[:4], m[0]], "copy element 0 of acme%2Falice.json over element 4, keeping its identity"),
    "T8": ("A", lambda m: [*m[:2], {**m[2], "type": "AssistantMessage", "source": "agent"}, *m[3:]],
           "set type to 'AssistantMessage', source to 'agent' of element 2"),
}


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_each_case_changes_exactly_its_elements_in_place_and_c3_agrees(tmp_path, case):
    editor = build(tmp_path)
    ctx, want, words = EXPECTED[case]
    other = "A" if ctx == "B" else "B"
    before, digests = [r.to_json() for r in editor.records()], digest_tree(tmp_path)
    stat = os.stat(tmp_path / name(ctx))
    untouched = (tmp_path / name(other)).read_bytes()
    done = editor.apply(spec_of(case))
    assert done.statements == [f"{name(ctx)}: {words}"]
    assert listed(tmp_path, ctx) == want(messages(ctx))
    assert (tmp_path / name(other)).read_bytes() == untouched
    doc = json.loads((tmp_path / name(ctx)).read_text())
    assert (tmp_path / name(ctx)).read_text() == json.dumps(doc)  # the driver's json.dump formatting
    assert list(doc) == ["type", "version", "llm_context"]
    now = os.stat(tmp_path / name(ctx))
    assert (now.st_ino, now.st_mode, now.st_uid) == (stat.st_ino, stat.st_mode, stat.st_uid)
    after = [r.to_json() for r in editor.records()]
    c3 = check_edit(spec_of(case).to_json(), editor.layout.to_json(), before, after,
                    diff_digests(digests, digest_tree(tmp_path)))
    assert c3.ok, c3.reasons


@pytest.mark.parametrize("case, variant, want", [
    ("T4", "swap=contents", lambda m: [m[0], {**m[1], "content": m[3]["content"]}, m[2],
                                       {**m[3], "content": m[1]["content"]}, m[4]]),
    ("T8", "place=type", lambda m: [*m[:2], {**m[2], "type": "AssistantMessage"}, *m[3:]]),
    ("T8", "place=source", lambda m: [*m[:2], {**m[2], "source": "agent"}, *m[3:]]),
])
def test_variants_edit_one_part_and_c3_agrees(tmp_path, case, variant, want):
    editor = build(tmp_path)
    assert variant in editor.variants(spec_of(case), editor.records())
    before, digests = [r.to_json() for r in editor.records()], digest_tree(tmp_path)
    editor.apply(spec_of(case, variant))
    assert listed(tmp_path, "A") == want(messages("A"))
    c3 = check_edit(spec_of(case, variant).to_json(), editor.layout.to_json(), before,
                    [r.to_json() for r in editor.records()], diff_digests(digests, digest_tree(tmp_path)))
    assert c3.ok, c3.reasons


def test_no_other_variants_are_offered(tmp_path):
    editor = build(tmp_path)
    recs = editor.records()
    assert {c: editor.variants(spec_of(c), recs) for c in ("T1", "T2", "T3", "T5", "T6", "T7")} == \
        dict.fromkeys(("T1", "T2", "T3", "T5", "T6", "T7"), [])
    with pytest.raises(EditError, match="offers no variant 'element'"):
        editor.apply(spec_of("T2", "element"))


def test_an_indented_document_keeps_its_indentation_key_order_and_final_newline(tmp_path):
    editor = build(tmp_path, lambda s: json.dumps(s, indent=4, ensure_ascii=False) + "\n")
    editor.apply(spec_of("T3"))
    text = (tmp_path / name("A")).read_text()
    doc = json.loads(text)
    assert text == json.dumps(doc, indent=4) + "\n" and len(doc["llm_context"]["messages"]) == 4


def test_a_formatting_no_dump_reproduces_keeps_every_byte_outside_the_list(tmp_path):
    editor = build(tmp_path, lambda s: json.dumps(s).replace('{"type"', '{  "type"', 1))
    old = (tmp_path / name("A")).read_text()
    editor.apply(spec_of("T2"))
    new = (tmp_path / name("A")).read_text()
    start = old.index('"messages": ') + len('"messages": ')
    assert new.startswith(old[:start]) and new.endswith("]}}") and len(listed(tmp_path, "A")) == 4


def test_a_context_that_decodes_to_a_path_is_edited_in_its_own_file_in_the_volume(tmp_path):
    vol = tmp_path / "vol"
    vol.mkdir()
    editor = build(vol)
    state = {"llm_context": {"messages": [{"content": "mZ1-aaaaaa escape", "type": "UserMessage", "source": "user"},
                                          {"content": "mZ2-aaaaaa", "type": "UserMessage", "source": "user"}]}}
    (vol / "..%2Fescape.json").write_text(json.dumps(state))
    assert {r.context for r in editor.records()} == {"../escape", *CTX.values()}
    editor.apply(EditSpec("T3", "../escape", "mZ1-aaaaaa", op="delete"))
    assert [m["content"] for m in json.loads((vol / "..%2Fescape.json").read_text())["llm_context"]["messages"]] == \
        ["mZ2-aaaaaa"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["vol"]


def test_a_symlink_out_of_the_volume_is_refused(tmp_path):
    vol = tmp_path / "vol"
    vol.mkdir()
    editor = build(vol)
    (tmp_path / "outside.json").write_text("{}")
    (vol / "C.json").symlink_to(tmp_path / "outside.json")
    with pytest.raises(StoreEscape):
        editor.records()


@pytest.mark.parametrize("file, text, message", [
    ("acme%2Falice.json", "{not json", "acme%2Falice.json: not a JSON document"),
    ("acme%2Falice.json", '{"llm_context": {"messages": {"0": {}}}}', "is not a list"),
    ("%FF.json", "{}", "does not percent-decode"),
    ("acme%2falice.json", "{}", "not a percent-encoded context name"),
    ("a b.json", "{}", "not a percent-encoded context name"),
])
def test_a_store_it_cannot_read_is_a_clear_edit_error(tmp_path, file, text, message):
    editor = build(tmp_path)
    (tmp_path / file).write_text(text)
    with pytest.raises(EditError, match=message):
        editor.records()


def test_a_list_not_there_yet_holds_no_records(tmp_path):
    editor = build(tmp_path)
    (tmp_path / "C.json").write_text('{"type": "AssistantAgentState"}')
    assert "C" not in {r.context for r in editor.records()}


def test_without_percent_decoding_the_name_is_the_context(tmp_path):
    build(tmp_path)
    editor = editor_for(parse_layout({**STORE, "context_encoding": "none"}), {"store": tmp_path})
    assert {r.context for r in editor.records()} == {"acme%2Falice", "acme%2Fbob"}


@pytest.mark.parametrize("change, field", [
    ({"file": "states.json"}, "store.file"),
    ({"context_encoding": "base64"}, "store.context_encoding"),
    ({"records": {"text": ["content"], "version": "v"}}, "store.records.version"),
    ({"records": None}, "store.records"),
    ({"order": "seq"}, "store.order"),
])
def test_layout_errors_name_the_field(change, field):
    with pytest.raises(LayoutError) as err:
        parse_layout({**STORE, **change})
    assert err.value.field == field


def test_the_layout_as_json_has_no_version_and_keeps_the_encoding():
    layout = parse_layout(STORE)
    data = layout.to_json()
    assert "version" not in data["records"] and data["options"] == {"context_encoding": "percent"}
