"""The sidecar variants: a held sidecar volume emptied or removed with the case's edit, and their C3
on real stores (each case lands; a sidecar operation that did not happen, or happened in part, or
is not the one named, fails C3)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace

import pytest
from edit_stores import markdown_store, open_editor, specs, sqlite_store

from edits import sidecars
from edits.volumes import digest_tree
from lab.cases.sidecars import problems
from lab.cases.variants import enumerate_variants, spec_json
from lab.judge.c3 import check_edit
from lab.method.bed import merge_diffs

CASES = ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8")


def ledger_volume(root):
    """A sidecar volume as the rows keep them: a SQLite ledger, a JSON lines trace in a folder."""
    vol = root / "ledger"
    (vol / "trace").mkdir(parents=True)
    db = sqlite3.connect(vol / "ledger.db")
    db.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY, digest TEXT)")
    db.executemany("INSERT INTO events VALUES (?, ?)", [(i, f"d{i}") for i in range(5)])
    db.commit()
    db.close()
    (vol / "trace" / "A.jsonl").write_text("".join(json.dumps({"seq": i}) + "\n" for i in range(5)))
    return vol


def measure(root, build, spec, op=None, judged_as=None):
    """The edit step in small: the store's edit, then ``op`` on the ledger volume (None: no sidecar
    operation), then C3 of ``spec`` (or of ``judged_as``, the spec C3 is told was made)."""
    (root / "store").mkdir(parents=True)
    layout, ledger = build(root / "store"), ledger_volume(root)
    vols = {"store": root / "store", "ledger": ledger}
    before_digests = {n: digest_tree(p) for n, p in vols.items()}
    editor = open_editor(layout, vols["store"])
    before = [r.to_json() for r in editor.records()]
    editor.apply(replace(spec, sidecar=None))
    if op is not None:
        sidecars.apply(ledger, op)
    after = [r.to_json() for r in open_editor(layout, vols["store"]).records()]
    after_digests = {n: digest_tree(p) for n, p in vols.items()}
    intended = judged_as or spec
    evidence = {"volume": "ledger", "before": before_digests["ledger"], "after": after_digests["ledger"]}
    return check_edit(intended.to_json(), layout.to_json(), before, after,
                      merge_diffs(before_digests, after_digests), sidecar=evidence), ledger


@pytest.mark.parametrize("op", sidecars.OPS)
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("build", [lambda v: sqlite_store(v, "text"), markdown_store], ids=["sqlite", "markdown"])
def test_each_case_with_its_sidecar_emptied_or_removed_lands(tmp_path, build, case, op):
    spec = replace(specs("role")[case], sidecar=f"ledger:{op}")
    result, ledger = measure(tmp_path, build, spec, op)
    assert result.ok, result.reasons
    assert (ledger / "trace").is_dir()  # folders are kept
    left = sorted(p.name for p in ledger.rglob("*") if p.is_file())
    assert left == ([] if op == "removed" else ["A.jsonl", "ledger.db"])


def test_an_emptied_ledger_is_what_a_keyless_writer_leaves_an_empty_sqlite_database_and_log(tmp_path):
    ledger = ledger_volume(tmp_path)
    assert sidecars.apply(ledger, "emptied") == ["truncate -s 0 ledger.db", "truncate -s 0 trace/A.jsonl"]
    db = sqlite3.connect(ledger / "ledger.db")  # SQLite opens 0 bytes as an empty database
    assert db.execute("SELECT count(*) FROM sqlite_master").fetchone() == (0,)
    db.close()
    assert (ledger / "trace" / "A.jsonl").read_text().splitlines() == []


@pytest.mark.parametrize("op", sidecars.OPS)
def test_c3_fails_when_the_sidecar_operation_did_not_happen(tmp_path, op):
    spec = replace(specs()["T1"], sidecar=f"ledger:{op}")
    result, _ = measure(tmp_path, lambda v: sqlite_store(v, "text"), spec, None)
    assert not result.ok
    assert any("ledger.db" in r for r in result.reasons) and any("A.jsonl" in r for r in result.reasons)


def test_c3_fails_when_the_operation_made_is_not_the_one_named(tmp_path):
    spec = replace(specs()["T1"], sidecar="ledger:emptied")
    result, _ = measure(tmp_path, lambda v: sqlite_store(v, "text"), spec, "emptied",
                        judged_as=replace(spec, sidecar="ledger:removed"))
    assert not result.ok and any("still there" in r for r in result.reasons)


def test_c3_fails_when_one_file_is_left_or_the_diff_does_not_show_the_operation(tmp_path):
    ledger = ledger_volume(tmp_path)
    before = digest_tree(ledger)
    (ledger / "ledger.db").write_bytes(b"")  # one of two files emptied
    files = {"added": [], "removed": [], "changed": ["ledger/ledger.db"]}
    evidence = {"volume": "ledger", "before": before, "after": digest_tree(ledger)}
    assert problems("ledger:emptied", evidence, files) == ["sidecar ledger:emptied: trace/A.jsonl is not empty after the edit"]
    (ledger / "trace" / "A.jsonl").write_bytes(b"")
    assert problems("ledger:emptied", {**evidence, "after": digest_tree(ledger)}, files)[0].startswith(
        "sidecar ledger:emptied: the file-level diff of volume 'ledger'")
    assert problems("ledger:emptied", None, files)[0].endswith("(not a sidecar the adversary holds?)")
    empty = {"volume": "ledger", "before": {"trace": before["trace"]}, "after": {"trace": before["trace"]}}
    assert problems("ledger:removed", empty, files) == [
        "sidecar ledger:removed: volume 'ledger' held no file before the edit: nothing to remove"]


def test_the_sidecar_variants_are_of_the_base_spec_only_after_the_editors_own(tmp_path):
    (tmp_path / "store").mkdir()
    editor = open_editor(markdown_store(tmp_path / "store"), tmp_path / "store")
    base, other = specs("role")["T8"], specs("timestamp")["T8"]
    listed = enumerate_variants("T8", [base, other], editor, editor.records(), ["anchor", "ledger"])
    assert [v["name"] for v in listed] == ["meta_field=timestamp", "sidecar=anchor:emptied", "sidecar=anchor:removed",
                                           "sidecar=ledger:emptied", "sidecar=ledger:removed"]
    assert listed[1]["intended"] == {**spec_json(base), "sidecar": "anchor:emptied"}
    assert "sidecar" not in spec_json(base) and "op" not in spec_json(base)  # the JSON every saved set has


def test_the_derived_values_recomputed_are_also_measured_with_the_sidecar_emptied_or_removed(tmp_path):
    from test_derived_variants import chain_store
    (tmp_path / "store").mkdir()
    layout = chain_store(tmp_path / "store")
    editor = open_editor(layout, tmp_path / "store")
    base = replace(specs("role")["T1"], find="FACT-A-7Q2X")
    listed = [v["name"] for v in enumerate_variants("T1", [base], editor, editor.records(), ["ledger"])]
    assert listed == ["derived=recomputed", "sidecar=ledger:emptied", "sidecar=ledger:removed",
                      "sidecar=ledger:emptied; derived=recomputed", "sidecar=ledger:removed; derived=recomputed"]


@pytest.mark.parametrize("case", CASES)
def test_a_case_with_its_derived_values_recomputed_and_its_sidecar_removed_lands(tmp_path, case):
    from test_derived_variants import RECOMPUTED, chain_store
    spec = replace(specs("role")[case], variant=RECOMPUTED, sidecar="ledger:removed")
    result, _ = measure(tmp_path, chain_store, spec, "removed")
    assert result.ok, result.reasons
    if case != "T2":  # a chain cut at its tail is consistent as it is
        left_wrong, _ = measure(tmp_path / "again", chain_store, replace(spec, variant=None), "removed", judged_as=spec)
        assert not left_wrong.ok  # the default edit judged as the combination: the chain is left wrong
