"""JsonlEditor on three fixture layouts: @position order with interleaved
contexts and a header line, a seq order field with position identity and
compact non-ASCII lines, and an identity field that is also the order. Each operation's
postcondition on the three is the conformance suite's (test_conformance.py)."""

import json

import pytest

from edit_stores import FACTS, TAMPERED, jsonl_store, marker, open_editor, specs
from edits.jsonl import field_spans, set_fields
from edits.layout import parse_layout
from edits.model import EditError, EditSpec



def lines(vol):
    return (vol / "memory.jsonl").read_text().split("\n")


def test_position_order_is_the_line(tmp_path):
    layout = jsonl_store(tmp_path, "position")
    records = open_editor(layout, tmp_path).records()
    assert [r.order for r in records if r.context == "A"] == [2, 4, 6, 8, 10]
    assert records[0].locator == {"file": "memory.jsonl", "line": 2}


def test_t4_position_swaps_two_lines(tmp_path):
    layout = jsonl_store(tmp_path, "position")
    before = lines(tmp_path)
    applied = open_editor(layout, tmp_path).apply(specs()["T4"])
    after = lines(tmp_path)
    assert after[3] == before[7] and after[7] == before[3]
    assert applied.statements[0].startswith("memory.jsonl: swap lines 4 and 8: ")


def test_t5_position_goes_after_the_context_last_line(tmp_path):
    layout = jsonl_store(tmp_path, "position")
    open_editor(layout, tmp_path).apply(specs()["T5"])
    after = lines(tmp_path)
    assert "f0rg3d" in after[10] and marker("B", 5) in after[11]
    new, old = json.loads(after[10]), json.loads(after[9])
    assert new["id"] != old["id"] and len(new["id"]) == 36 and new["thread"] == "A"


def test_t5_field_order_appends_with_the_next_seq(tmp_path):
    layout = jsonl_store(tmp_path, "field")
    applied = open_editor(layout, tmp_path).apply(specs()["T5"])
    last = lines(tmp_path)[-2]
    assert json.loads(last)["seq"] == 6 and "f0rg3d" in last and applied.touched == ["A|5"]


def test_edits_keep_the_line_formatting(tmp_path):
    layout = jsonl_store(tmp_path, "field")
    before = lines(tmp_path)
    open_editor(layout, tmp_path).apply(EditSpec("T8", "A", marker("A", 3), meta_field="source", op="set_meta"))
    after = lines(tmp_path)
    (n,) = [n for n, (a, b) in enumerate(zip(before, after)) if a != b]
    assert after[n] == before[n].replace('"source":"chat-A"', '"source":"chat-A-tampered"')
    assert "é" in after[n]


def test_t1_changes_only_the_token_bytes(tmp_path):
    layout = jsonl_store(tmp_path, "position")
    applied = open_editor(layout, tmp_path).apply(specs()["T1"])
    assert applied.bytes_changed == 4
    assert any(TAMPERED in line for line in lines(tmp_path))
    assert not any(FACTS["A"] in line for line in lines(tmp_path))


def test_t4_identity_order_swaps_contents_keeping_n(tmp_path):
    layout = jsonl_store(tmp_path, "idorder")
    open_editor(layout, tmp_path).apply(specs()["T4"])
    objs = [json.loads(line) for line in lines(tmp_path) if line]
    assert [o["n"] for o in objs] == list(range(1, 11))
    assert marker("A", 4) in objs[2]["text"] and marker("A", 2) in objs[6]["text"]


def test_escaped_token_is_a_clear_error(tmp_path):
    """json.dumps writes \\u00e9: the decoded payload has the token, the stored bytes do not."""
    (tmp_path / "memory.jsonl").write_text(json.dumps({"ctx": "A", "text": "mA1-q caf\u00e9 FACT-\u00e9"}) + "\n")
    layout = parse_layout({"backend": "jsonl", "volume": "store", "file": "memory.jsonl", "context": "ctx",
                           "identity": [], "order": "@position", "payload": "text"})
    with pytest.raises(EditError, match="not in the stored line 1 of memory.jsonl"):
        open_editor(layout, tmp_path).apply(EditSpec("T1", "A", "mA1-q", find="FACT-\u00e9", replace="FACT-\u00e8",
                                                     op="replace"))


def test_field_spans_and_set_fields():
    line = '{"a": 1, "b": {"x": [1, "}"]}, "c": "q\\"z"}'
    spans = field_spans(line)
    assert {k: line[s:e] for k, (s, e) in spans.items()} == {"a": "1", "b": '{"x": [1, "}"]}', "c": '"q\\"z"'}
    assert set_fields(line, {"c": "2", "d": "true"}) == '{"a": 1, "b": {"x": [1, "}"]}, "c": 2, "d": true}'
    assert set_fields("{}", {"d": "1"}) == '{"d":1}'
