"""Restore moves (T9 rollback, T10 resurrection) in composition, end to end on the high-water store
(tests/fixtures/highwater): it keeps, out of the adversary's reach, the number of records a context
held after its last genuine write and reports a read that finds fewer, so a rollback (T9) alone is
reported; but each genuine write re-bases that mark on the store as it is, unchecked, so a rollback
followed by a write is served as genuine (a finding). On the naive store the rollback already lands
alone (single-lands). A restore move is never paired with an edit, the set verifies, and a tampered
restore finding is rejected. The rule every sequence keeps is a property over any moves.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from lab.compose.moves import AUDIT, ERASE, MAX_LENGTH, RESTART, WRITE, Move, edits_of, name_of, sequences
from lab.compose.pairs import NO_RESTORE, choose, edit_pairs
from lab.compose.results import SCHEMA_RESTORES, read_row
from tests.resultsets import cache, fix_evidence_digest, load, memlab, save  # noqa: F401 (cache: fixture)
from tests.resultsets import findings_turned_held, sequences_by_name

pytestmark = pytest.mark.system  # composes rows end to end: out of the fast loop

PROFILES = Path(__file__).parents[1] / "fixtures" / "highwater"
ROW = "highwater"


@pytest.fixture(scope="module")
def composed(tmp_path_factory, cache) -> tuple[Path, object]:  # noqa: F811
    """The high-water row composed once, restore moves and pairs searched by default."""
    folder = tmp_path_factory.mktemp("compose-highwater") / "set"
    proc = memlab("compose", "--sut", ROW, "--profiles", PROFILES, "--runtime", "local", "--nonce", "tests",
                  "--out", folder, cache=cache, timeout=600)
    return folder, proc


def _row(folder: Path, row: str = ROW, point: str = "read") -> dict:
    return load(folder / "composition" / f"{row}@{point}.json")


def test_a_rollback_followed_by_a_genuine_write_is_a_finding(composed):
    folder, proc = composed
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert load(folder / "run.json")["compose"] == {"length": 2, "edits": 2, "restores": True}
    row = _row(folder)
    assert row["schema"] == SCHEMA_RESTORES and row["restores"] is True and read_row(row).to_json() == row
    assert "T9" in row["offered"] and not any(s["move"] == "T9" for s in row["skipped"])
    assert load(folder / "rows" / f"{ROW}@read.json")["cells"]["T9"]["verdict"] == "REPORTED"  # alone: caught
    seqs = sequences_by_name(row)
    seq = seqs["T9+write"]
    assert seq["verdict"] == "finding", seq
    assert [(s["move"], s["landed"]) for s in seq["singles"]] == [("T9", False), ("write", False)]
    assert "FINDING T9+write" in proc.stdout
    for name in ("write+T9", "T9+restart", "restart+T9"):  # the mark is re-based by a write only, after the rollback
        assert seqs[name]["verdict"] == "held" and "high-water mark" in seqs[name]["reason"], seqs[name]
    trial = load(folder / "observations" / ROW / "compose" / "T9+write.json")
    assert trial["case"] == "T9" and trial["c3"]["ok"] and trial["applied"]["case"] == "T9"
    assert trial["sut_op"]["ok"] and trial["intended"]["op"] == "write"  # the SUT's own write between copy and return
    written = [m["marker"] for m in trial["moves"] if m["move"] == "write"]
    assert written and written != [trial["intended"]["marker"]]  # the genuine write is another record
    served = " ".join(seq["served"])
    assert trial["intended"]["marker"] not in served and written[0] in served


def test_a_restore_move_is_never_paired(composed):
    folder, _ = composed
    row = _row(folder)
    assert {"move": "T9 in a pair", "reason": NO_RESTORE} in row["skipped"]
    pairs = [s for s in row["sequences"] if sum(m.startswith("T") for m in s["sequence"]) == 2]
    assert pairs and not any("T9" in s["sequence"] for s in pairs)


def test_the_set_verifies_and_a_tampered_restore_is_rejected(composed, cache, tmp_path):  # noqa: F811
    folder, _ = composed
    proc = memlab("verify", folder, cache=cache)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "restore moves too" in (folder / "compose.md").read_text()
    for tamper, ground in (("restored-copy", "c3-not-derivable"), ("finding-turned-held", "compose-not-derivable")):
        work = shutil.copytree(folder, tmp_path / tamper)
        if tamper == "restored-copy":  # the copy put back is no longer the pre-op store: C3 says no
            trial = f"observations/{ROW}/compose/T9+write.json"
            obs = load(work / trial)
            obs["c3"]["digests_after"]["store"]["memory.jsonl"]["sha256"] = "0" * 64
            save(work / trial, obs)
            fix_evidence_digest(work, trial)
        else:
            findings_turned_held(work, f"composition/{ROW}@read.json")
        proc = memlab("verify", "--json", work, cache=cache)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert ground in {f["ground"] for f in json.loads(proc.stdout)["findings"]}, tamper


def test_a_rollback_the_store_does_not_detect_lands_alone(cache, tmp_path):  # noqa: F811
    """The naive store detects no rollback: T9 lands alone, so each sequence holding it is single-lands."""
    folder = tmp_path / "set"
    proc = memlab("compose", "--sut", "reference-naive", "--edits", "1", "--runtime", "local", "--nonce", "tests",
                  "--out", folder, cache=cache, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr  # no finding
    seqs = sequences_by_name(_row(folder, "reference-naive"))
    for restore in ("T9", "T10"):
        holding = {n: s for n, s in seqs.items() if restore in s["sequence"]}
        assert holding and {s["verdict"] for s in holding.values()} <= {"single-lands", "inconclusive"}, holding
        assert seqs[f"{restore}+write"]["verdict"] == "single-lands"
        alone = seqs[f"{restore}+write"]["singles"][0]
        assert alone["move"] == restore and alone["landed"] is True, alone
    assert memlab("verify", folder, cache=cache).returncode == 0


MOVES = [Move(n, "edit", case=n.split(".")[0], trial=n) for n in ("T3", "T5", "T5.v1")] + \
    [Move(n, "restore", case=n, trial=n) for n in ("T9", "T10")]


@given(st.lists(st.sampled_from(MOVES), min_size=1, unique=True),
       st.lists(st.sampled_from([WRITE, RESTART, ERASE, AUDIT]), unique=True), st.integers(2, MAX_LENGTH))
def test_every_sequence_holds_exactly_one_edit_or_restore_and_restores_are_never_paired(edits, suts, length):
    held = {e: ["read"] for e in edits}
    pairs, _ = choose([e for e in edits if e.kind == "edit"], {e: held[e] for e in edits if e.kind == "edit"})
    single = sequences(edits, suts, length) if suts else []
    for seq in single:
        assert len(edits_of(seq)) == 1 and 2 <= len(seq) <= length, name_of(seq)
    assert len(single) == len(set(single))  # none repeats
    for seq in sequences([], suts, length, pairs):
        made = edits_of(seq)
        assert len(made) == 2 and made[0] != made[1] and all(m.kind == "edit" for m in made), name_of(seq)


def test_edit_pairs_leaves_every_restore_out_with_why():
    pairs, skipped = edit_pairs({}, {"detection_points": ["read"]}, MOVES[3:])
    assert pairs == [] and skipped == [{"move": f"{m} in a pair", "reason": NO_RESTORE} for m in ("T9", "T10")]


def test_a_restore_on_a_process_alive_row_is_made_while_the_sut_runs(cache, tmp_path):  # noqa: F811
    """The digest watcher (tests/fixtures/alive) runs the restore's own write or erasure in its held process,
    which re-takes its digest, so the copy put back is reported alone; any SUT move after it re-takes the
    digest again and launders it (a finding), a move before it does not (held)."""
    folder = tmp_path / "set"
    proc = memlab("compose", "--sut", "watcher-alive", "--profiles", Path(__file__).parents[1] / "fixtures" / "alive",
                  "--edits", "1", "--runtime", "local", "--nonce", "tests", "--out", folder, cache=cache, timeout=600)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    seqs = sequences_by_name(_row(folder, "watcher-alive"))
    for restore in ("T9", "T10"):
        assert seqs[f"{restore}+write"]["verdict"] == seqs[f"{restore}+restart"]["verdict"] == "finding"
        assert seqs[f"{restore}+write"]["singles"][0]["reason"].startswith("REPORTED at rest")
        assert seqs[f"write+{restore}"]["verdict"] == "held", seqs[f"write+{restore}"]
    assert memlab("verify", folder, cache=cache).returncode == 0
