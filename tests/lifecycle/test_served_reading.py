"""Everything that reached the agent is read (issue 37 item 2): every member name, string and number
of an answer, a memory, a retrieved item or a driver's record, in document order, without recursion."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from lab.lifecycle.adapters import Served
from lab.lifecycle.adapters.driver import DriverAdapter
from lab.lifecycle.adapters.http_contract import read_answer
from lab.lifecycle.adapters.http_transport import HttpError
from lab.lifecycle.adapters.leaves import leaves, record_text
from lab.lifecycle.matching import served_uses
from lab.lifecycle.scenario import Scope
from lab.profile import load_profile

ROOT = Path(__file__).resolve().parents[2]
PIN = {"key": "pin", "value": 4242}


def test_every_name_string_and_number_is_read_in_document_order():
    value = {"b": [1, -7, 0.5, 1e21, True, None, "x"], "a": {"deep": [{"k": "v"}]}, "": False}
    assert leaves(value) == ["b", "1", "-7", "0.5", "1e+21", "x", "a", "deep", "k", "v", ""]
    assert leaves("plain") == ["plain"] and leaves(None) == [] and leaves(4242) == ["4242"]


def test_a_value_nested_100k_deep_is_read_without_recursion():
    value: object = "4242"
    for level in range(100_000):
        value = [value] if level % 2 else {"n": value}
    assert leaves(value) == ["n"] * 50_000 + ["4242"]


def test_a_record_is_read_text_first_then_the_fields_named_then_the_rest():
    record = {"id": "7", "meta": {"key": "office"}, "text": "Porto"}
    assert record_text(record).splitlines() == ["Porto", "id", "7", "meta", "key", "office"]
    assert record_text(record, ("text", "meta")).splitlines() == ["Porto", "key", "office", "id", "7"]


def test_memlab_without_an_answer_judges_every_field_of_every_memory():
    payload = {"memories": [{"key": "pin", "old": {"values": ["1111", 4242]}, "text": "Your PIN is on file."},
                            {"text": "Porto", "tags": [["home"]]}]}
    reading = read_answer("memlab", payload)
    assert reading.text.splitlines() == ["Your PIN is on file.", "key", "pin", "old", "values", "1111", "4242",
                                         "Porto", "tags", "home"]
    assert served_uses("4242", reading.text) and served_uses("1111", reading.text)
    assert reading.retrieved is None
    assert reading.records[0] == {"text": "Your PIN is on file.", "meta": {"key": "pin", "old": {"values": ["1111", 4242]}}}


def test_memlab_with_an_answer_reads_each_memory_whole_as_one_retrieved_item():
    payload = {"answer": "I cannot say.", "memories": [{"text": "PIN", **PIN}, {"text": "Porto"}]}
    reading = read_answer("memlab", payload)
    assert reading.text == "I cannot say."
    assert reading.retrieved == ["PIN\nkey\npin\nvalue\n4242", "Porto"]
    assert [r["text"] for r in reading.records] == ["I cannot say.", "PIN", "Porto"]  # the display form


def test_the_peer_contract_reads_a_pin_served_as_a_number_in_retrieved():
    reading = read_answer("memorycheck", {"answer": "On file.", "retrieved": [PIN, "note", [{"n": [0.5]}], False]})
    assert reading.retrieved == ["key\npin\nvalue\n4242", "note", "n\n0.5", ""]
    assert served_uses("4242", reading.retrieved[0])
    assert reading.records == [{"text": "On file.", "meta": {"kind": "answer"}}]


@pytest.mark.parametrize("contract, answer", [("memlab", 4242), ("memorycheck", ["Porto"]), ("memorycheck", None)])
def test_an_answer_that_is_not_a_string_is_still_a_shape_error(contract, answer):
    with pytest.raises(HttpError, match='"answer" is') as err:
        read_answer(contract, {"answer": answer, "retrieved": []})
    assert err.value.kind == "shape"


def test_served_keeps_the_body_only_when_there_is_one():
    base = Served([], "", {}, 0.1)
    assert "body" not in base.to_json()
    assert Served([], "", {}, 0.1, body='{"memories": []}').to_json()["body"] == '{"memories": []}'


class _Reads:
    """A driver process stub: every ``read`` answers ``records``."""

    def __init__(self, records: list[dict]):
        self.records, self.calls = records, []

    def call(self, op: str, **fields):
        self.calls.append((op, fields))
        return {"ok": True, "records": self.records, "seconds": 0.001}


def test_the_driver_judges_each_record_text_then_meta_then_other_fields(tmp_path):
    adapter = DriverAdapter(load_profile(ROOT / "sut_profiles" / "lifecycle-strict.yaml"), None,
                            SimpleNamespace(scratch_root=tmp_path))
    adapter.sut = _Reads([{"id": "7", "text": "Porto", "meta": {"key": "office", "pin": 4242, "old": ["Lisbon"]},
                           "score": 0.5}, {"id": "8", "text": "Miso", "meta": {}}])
    adapter.begin("t")
    served = adapter.query(Scope("acme", "ann"), "Where?")
    assert served.text.splitlines() == ["Porto", "key", "office", "pin", "4242", "old", "Lisbon", "id", "7",
                                        "score", "0.5", "Miso", "id", "8"]
    assert served_uses("Lisbon", served.text) and served_uses("4242", served.text)
    assert [r["text"] for r in served.records] == ["Porto", "Miso"] and served.body is None
    assert adapter.sut.calls[0][0] == "read"
