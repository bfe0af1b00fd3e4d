"""Erasure at rest, the scan and its attribution, on real files (no SUT): needles, offsets across
read chunks, what is skipped, the rules that decide which deleted values are looked for, and the
summary's check of saved scans against their own hits."""

import json
import os

import pytest

from lab.lifecycle import residue
from lab.lifecycle.residue import ErasureProbe, needles, scan_volumes, summarise
from test_runner import scenario

VALUE = "cashew allergy code AL-93"


def test_needles_are_the_utf8_bytes_and_the_json_escaped_form_where_it_differs():
    assert needles(VALUE) == {"utf-8": VALUE.encode()}
    assert needles("café Łódź") == {"utf-8": "café Łódź".encode(), "json-escaped": b"caf\\u00e9 \\u0141\\u00f3d\\u017a"}
    assert needles('say "hi"')["json-escaped"] == b'say \\"hi\\"'


def test_every_hit_is_found_once_at_its_offset_even_across_read_chunks(tmp_path, monkeypatch):
    monkeypatch.setattr(residue, "CHUNK", 7)  # the value straddles many chunk boundaries
    vol = tmp_path / "store"
    (vol / "sub").mkdir(parents=True)
    body = b"x" * 5 + VALUE.encode() + b"yy" + VALUE.encode() + b"z"
    (vol / "sub" / "pages.bin").write_bytes(body)
    (vol / "other.json").write_text(json.dumps({"t": "Łódź " + VALUE}))
    found = scan_volumes({"store": vol}, [VALUE, "Łódź"])
    hits = {(v["value"], h["file"], h["offset"], h["encoding"]) for v in found["values"] for h in v["hits"]}
    escaped = (vol / "other.json").read_bytes()
    assert hits == {(VALUE, "sub/pages.bin", 5, "utf-8"), (VALUE, "sub/pages.bin", body.find(VALUE.encode(), 6), "utf-8"),
                    (VALUE, "other.json", escaped.find(VALUE.encode()), "utf-8"),
                    ("Łódź", "other.json", 7, "json-escaped")}
    for value, file, offset, encoding in hits:  # each offset really holds the bytes
        needle = needles(value)[encoding]
        assert (vol / file).read_bytes()[offset:offset + len(needle)] == needle
    assert found["scanned"]["files"] == 2 and found["scanned"]["bytes"] == len(body) + (vol / "other.json").stat().st_size


def test_large_files_are_skipped_and_said_links_are_not_followed(tmp_path):
    vol, outside = tmp_path / "store", tmp_path / "outside.txt"
    vol.mkdir()
    outside.write_text(VALUE)
    os.symlink(outside, vol / "link")
    (vol / "big.bin").write_bytes(b"\0" * 64 + VALUE.encode())
    found = scan_volumes({"store": vol}, [VALUE], max_file=32)
    assert found["values"][0]["status"] == "not_found" and found["scanned"]["files"] == 0
    assert found["scanned"]["skipped"] == [{"volume": "store", "file": "big.bin", "size": 64 + len(VALUE),
                                            "reason": "over 0 MiB: not scanned"}]


def test_attribution_looks_only_for_values_a_hit_can_be_blamed_on_this_delete(tmp_path):
    mine = scenario(("write", {"key": "k", "value": VALUE}), sid="mine")
    other = scenario(("write", {"key": "k", "value": "badge BX-1 " + "shared-9Q"}), sid="other")
    probe = ErasureProbe([mine, other], {"store": tmp_path}, "restarted")
    probe.begin("mine")
    plan = probe.plan("mine", [VALUE, "still-here", "shared-9Q", "moved-7"], held=["note: still-here", "moved-7"],
                      moved="moved-7")
    reasons = {p["value"]: p["reason"] for p in plan}
    assert reasons[VALUE] is None
    assert reasons["still-here"].startswith("still held undeleted in this scenario")
    assert reasons["shared-9Q"] == "written by other scenarios of the pack too (other)"
    assert reasons["moved-7"].startswith("moved by the rescope")
    probe.begin("mine")  # a second seed of the same scenario on the same store
    assert probe.plan("mine", [VALUE], held=[])[0]["reason"].startswith("this scenario already ran on this store")


def test_a_scan_record_says_when_what_and_never_proven_gone(tmp_path):
    (tmp_path / "db").write_bytes(b"..." + VALUE.encode())
    probe = ErasureProbe([], {"store": tmp_path}, "live")
    present = probe.scan([{"value": VALUE, "reason": None}, {"value": "x-1", "reason": "because"}])
    assert present["status"] == "present" and present["when"] == residue.WHEN["live"]
    assert [v["status"] for v in present["values"]] == ["present", "not_attributable"]
    gone = probe.scan([{"value": "pescatarian plan PX-12", "reason": None}])
    assert gone["status"] == "not_found" and "not decoded" in gone["note"] and gone["scanned"]["files"] == 1
    assert probe.scan([{"value": VALUE, "reason": "because"}])["scanned"] is None  # nothing looked for: no walk
    none = ErasureProbe([], {}, "live").scan([{"value": VALUE, "reason": None}])
    assert none["status"] == "not_measured" and "no volumes" in none["reason"]


def test_the_summary_counts_the_saved_scans_and_names_a_status_its_hits_contradict(tmp_path):
    (tmp_path / "db").write_bytes(VALUE.encode())
    probe = ErasureProbe([], {"store": tmp_path}, "live")
    scans = [probe.scan([{"value": VALUE, "reason": None}]), probe.scan([{"value": "gone-1", "reason": None}]),
             probe.scan([{"value": "x", "reason": "because"}])]
    obs = {"scenario": "s", "seed": 0, "skipped": [{"index": 9, "op": "delete", "applied": False, "reason": "r"}],
           "steps": [{"index": i, "op": "delete", "key": "k", "erasure_at_rest": r} for i, r in enumerate(scans)]}
    summary = summarise([obs])
    assert {k: summary[k] for k in ("deletes", "scanned", "present", "not_found", "not_attributable", "not_applied")} \
        == {"deletes": 3, "scanned": 2, "present": 1, "not_found": 1, "not_attributable": 1, "not_applied": 1}
    assert summary["evidence"][0]["hits"][0]["offset"] == 0 and summary["problems"] == []
    scans[0]["status"] = scans[0]["values"][0]["status"] = "not_found"  # tampered: the hits still say present
    problems = summarise([obs])["problems"]
    assert [p["message"] for p in problems] == ["saved status 'not_found', its values give 'present'",
                                                f"value {VALUE!r}: status 'not_found' with 1 hit(s)"]


@pytest.mark.parametrize("encoded", ["utf-8", "json-escaped"])
def test_a_value_stored_escaped_or_raw_is_found(tmp_path, encoded):
    value = "Ponte Dom Luís I"
    text = json.dumps({"v": value}, ensure_ascii=encoded == "json-escaped")
    (tmp_path / "s.json").write_text(text, encoding="utf-8")
    hit = scan_volumes({"store": tmp_path}, [value])["values"][0]["hits"][0]
    assert hit["encoding"] == encoded and hit["offset"] == text.encode().find(needles(value)[encoded])
