"""A sidecar folder the profile declares inside a held volume (``sidecars: [{volume: store, path:
trace}]``, a trace ledger beside the store's database in its own volume): the sidecar variants empty
or remove that folder's files only, the store's file is left to the case's edit, and C3 reads the
folder's digests (the variant lands; an operation not made fails C3)."""

from __future__ import annotations

import json
from dataclasses import replace
from types import SimpleNamespace

import pytest
from edit_stores import open_editor, specs, sqlite_store

from edits import sidecars
from edits.volumes import digest_tree
from lab.cases.sidecars import problems
from lab.cases.variants import enumerate_variants
from lab.judge.c3 import check_edit
from lab.method import sidecar_step
from lab.method.bed import merge_diffs
from lab.method.sessions import StageError

CASES = ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8")
TARGET = "store/trace"


def row(declared=(TARGET,)):
    """What the sidecar step reads of a row: the store's volume held, the declared sidecar folders."""
    profile = SimpleNamespace(store=SimpleNamespace(volume="store"), services=(), sidecars=tuple(declared))
    return SimpleNamespace(bed=SimpleNamespace(holders={"store": True}), profile=profile)


def store_with_trace(vol):
    """A SQLite store with a keyless trace folder beside its database, as langgraph-ledger keeps it."""
    layout = sqlite_store(vol, "text")
    (vol / "trace" / "old").mkdir(parents=True)
    for thread in ("A", "B"):
        (vol / "trace" / f"{thread}.jsonl").write_text("".join(json.dumps({"seq": i}) + "\n" for i in range(4)))
    return layout


def measure(root, spec, op):
    """The edit step in small: the store's edit, then ``op`` on the trace folder through the sidecar
    step (None: not made), then C3 of ``spec``."""
    vol = root / "store"
    vol.mkdir(parents=True)
    layout = store_with_trace(vol)
    vols, applied = {"store": vol}, {}
    digests_before = {"store": digest_tree(vol)}
    before = [r.to_json() for r in open_editor(layout, vol).records()]
    open_editor(layout, vol).apply(replace(spec, sidecar=None))
    if op is not None:
        sidecar_step.apply(row(), replace(spec, sidecar=sidecars.name(TARGET, op)), vols, applied)
    after = [r.to_json() for r in open_editor(layout, vol).records()]
    digests_after = {"store": digest_tree(vol)}
    evidence = sidecar_step.evidence(spec, digests_before, digests_after)
    return check_edit(spec.to_json(), layout.to_json(), before, after, merge_diffs(digests_before, digests_after),
                      sidecar=evidence), applied, vol


@pytest.mark.parametrize("op", sidecars.OPS)
@pytest.mark.parametrize("case", CASES)
def test_each_case_with_the_trace_folder_emptied_or_removed_lands_and_leaves_the_store_file(tmp_path, case, op):
    spec = replace(specs("role")[case], sidecar=sidecars.name(TARGET, op))
    result, applied, vol = measure(tmp_path, spec, op)
    assert result.ok, result.reasons
    assert (vol / "memory.db").stat().st_size > 0  # the store's own file: the case's edit only
    left = sorted(p.name for p in (vol / "trace").rglob("*") if p.is_file())
    assert left == ([] if op == "removed" else ["A.jsonl", "B.jsonl"])
    assert (vol / "trace" / "old").is_dir()
    word = "rm" if op == "removed" else "truncate -s 0"
    assert applied["statements"] == [f"store/trace/: {word} A.jsonl", f"store/trace/: {word} B.jsonl"]
    assert applied["detail"]["sidecar"] == {"volume": TARGET, "op": op, "files": 2}


@pytest.mark.parametrize("op", sidecars.OPS)
def test_c3_fails_when_the_trace_folder_was_not_emptied_or_removed(tmp_path, op):
    spec = replace(specs()["T1"], sidecar=sidecars.name(TARGET, op))
    result, _, _ = measure(tmp_path, spec, None)
    assert not result.ok
    assert any("A.jsonl" in r for r in result.reasons) and any("B.jsonl" in r for r in result.reasons)


def test_c3_fails_when_only_one_trace_file_was_emptied(tmp_path):
    vol = tmp_path / "store"
    vol.mkdir()
    store_with_trace(vol)
    before = {"store": digest_tree(vol)}
    (vol / "trace" / "A.jsonl").write_bytes(b"")
    spec = replace(specs()["T1"], sidecar=sidecars.name(TARGET, "emptied"))
    evidence = sidecar_step.evidence(spec, before, {"store": digest_tree(vol)})
    assert set(evidence["before"]) == {"A.jsonl", "B.jsonl", "old"}  # the folder's files, not the store's
    assert problems(spec.sidecar, evidence, {"added": [], "removed": [], "changed": ["store/trace/A.jsonl"]}) == [
        "sidecar store/trace:emptied: B.jsonl is not empty after the edit"]


def test_the_declared_folder_is_a_sidecar_target_only_where_it_holds_a_file(tmp_path):
    vol = tmp_path / "store"
    vol.mkdir()
    layout = store_with_trace(vol)
    assert sidecar_step.volumes(row(), {"store": vol}) == [TARGET]
    assert sidecar_step.volumes(row(()), {"store": vol}) == []  # the store's volume as a whole never is
    editor = open_editor(layout, vol)
    names = [v["name"] for v in enumerate_variants("T1", [specs()["T1"]], editor, editor.records(), [TARGET])]
    assert names == ["sidecar=store/trace:emptied", "sidecar=store/trace:removed"]
    for p in (vol / "trace").glob("*.jsonl"):
        p.unlink()
    assert sidecar_step.volumes(row(), {"store": vol}) == []


def test_a_folder_the_profile_does_not_declare_is_refused(tmp_path):
    vol = tmp_path / "store"
    vol.mkdir()
    store_with_trace(vol)
    spec = replace(specs()["T1"], sidecar=sidecars.name(TARGET, "emptied"))
    with pytest.raises(StageError, match="not a sidecar folder the profile declares"):
        sidecar_step.apply(row(()), spec, {"store": vol}, {})
    assert (vol / "trace" / "A.jsonl").stat().st_size > 0
