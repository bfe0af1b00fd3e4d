"""Pairs of edits in one sequence, end to end on the counted store (tests/fixtures/counted): it keeps
its record count beside the store, out of the adversary's reach, so a middle deletion (T3) alone and
a forged insertion (T5) alone are reported at the read, while the two together keep the count and
are served as genuine (a finding, in either order). Its audit checks nothing, so at the audit point
every edit lands alone and the same pairs are never findings. Pairs whose edit lands alone at every
point are left out and listed; the set verifies, and every way of tampering with a pair is rejected.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from lab.compose.moves import MAX_LENGTH, Move, edits_of, sequences
from lab.compose.pairs import choose
from lab.compose.results import SCHEMA, SCHEMA_PAIRS, read_row
from tests.resultsets import cache, fix_evidence_digest, load, memlab, save  # noqa: F401 (cache: fixture)
from tests.resultsets import findings_turned_held, sequences_by_name

pytestmark = pytest.mark.system  # composes or runs rows end to end: out of the fast loop

PROFILES = Path(__file__).parents[1] / "fixtures" / "counted"
ROW = "counted"


@pytest.fixture(scope="module")
def composed(tmp_path_factory, cache) -> tuple[Path, object]:  # noqa: F811
    """The counted row composed once, pairs searched by default: its set and the finished command."""
    folder = tmp_path_factory.mktemp("compose-counted") / "set"
    proc = memlab("compose", "--sut", ROW, "--no-restores", "--profiles", PROFILES, "--runtime", "local",
                  "--nonce", "tests", "--out", folder, cache=cache, timeout=600)
    return folder, proc


def _row(folder: Path, point: str) -> dict:
    return load(folder / "composition" / f"{ROW}@{point}.json")


def test_a_deletion_and_a_forgery_that_keep_the_count_are_a_finding(composed):
    folder, proc = composed
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert load(folder / "run.json")["compose"] == {"length": 2, "edits": 2}
    row = _row(folder, "read")
    assert row["schema"] == SCHEMA_PAIRS and row["edits"] == 2
    seqs = sequences_by_name(row)
    at_rest = load(folder / "rows" / f"{ROW}@read.json")["cells"]
    assert at_rest["T3"]["verdict"] == at_rest["T5"]["verdict"] == "REPORTED"  # each edit alone is caught
    for name in ("T3+T5", "T5+T3"):
        seq = seqs[name]
        assert seq["verdict"] == "finding", seq
        assert [(s["move"], s["landed"]) for s in seq["singles"]] == [(m, False) for m in name.split("+")]
        assert all(s["reason"].startswith("REPORTED at rest") for s in seq["singles"]), seq["singles"]
        assert "FINDING " + name in proc.stdout
    # a write or a restart launders nothing: the count is the SUT's own
    assert {"+".join(s["sequence"]) for s in row["findings"]} == {"T3+T5", "T5+T3"}
    assert seqs["T2+T3"]["verdict"] == "held" and "count says" in seqs["T2+T3"]["reason"]  # two deletions: off by two
    trial = load(folder / "observations" / ROW / "compose" / "T3+T5.json")
    edits = [m for m in trial["moves"] if "c3" in m]
    assert [(m["move"], m["case"], m["c3"]["ok"]) for m in edits] == [("T3", "T3", True), ("T5", "T5", True)]
    changes = [m["c3"]["evidence"]["record_changes"] for m in edits]
    assert changes[0]["removed"] and changes[1]["added"]
    assert "c3" not in trial and trial["edits"] == ["T3", "T5"]  # each edit's C3 in its own move


def test_a_pair_whose_edit_lands_alone_is_never_a_finding(composed):
    folder, _ = composed
    row = _row(folder, "audit")  # the audit checks nothing: every edit lands alone here
    assert row["findings"] == []
    for name in ("T3+T5", "T5+T3"):
        seq = sequences_by_name(row)[name]
        assert seq["verdict"] == "single-lands" and [s["landed"] for s in seq["singles"]] == [True, True], seq
    read = _row(folder, "read")
    left = {s["move"]: s["reason"] for s in read["skipped"]}
    assert "lands alone" in left["T1 in a pair"] and "lands alone" in left["T4 in a pair"]
    paired = {m for s in read["sequences"] if len(edits_of([_move(n) for n in s["sequence"]])) == 2
              for m in s["sequence"]}
    assert paired == {"T2", "T3", "T5"}  # the edits reported alone at the read, and no other


def _move(name: str) -> Move:
    return Move(name, "edit", case=name.split(".")[0], trial=name) if name[:1] == "T" else Move(name, name)


def test_the_set_verifies_and_reports_show_the_pairs(composed, cache):  # noqa: F811
    folder, _ = composed
    proc = memlab("verify", folder, cache=cache)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "pairs of edits too" in (folder / "compose.md").read_text()
    assert "<code>T3+T5</code>" in (folder / "report.html").read_text()
    shown = memlab("report", folder, cache=cache)
    assert shown.returncode == 0 and "FINDING T3+T5" in shown.stdout
    assert max(len(line) for line in shown.stdout.splitlines() if "FINDING" in line) <= 80


@pytest.mark.parametrize("tamper", ["finding-turned-held", "first-edit-c3", "second-edit-removed"])
def test_tampering_with_a_pair_is_rejected(composed, cache, tmp_path, tamper):  # noqa: F811
    folder = shutil.copytree(composed[0], tmp_path / "set")
    row_file, trial = f"composition/{ROW}@read.json", f"observations/{ROW}/compose/T3+T5.json"
    if tamper == "finding-turned-held":  # the row changed and re-pinned: only re-derivation can tell
        findings_turned_held(folder, row_file)
        grounds = {"compose-not-derivable"}
    else:
        obs = load(folder / trial)
        if tamper == "first-edit-c3":  # the deletion's C3 evidence shows a second record gone: C3 says no
            obs["moves"][0]["c3"]["records_after"].pop(0)
            grounds = {"c3-not-derivable"}
        else:  # the forgery's edit struck from the trial: a pair no more
            obs["moves"][1] = {"move": "T5"}
            grounds = {"compose-not-derivable"}
        save(folder / trial, obs)
        fix_evidence_digest(folder, trial)
    proc = memlab("verify", "--json", folder, cache=cache)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    found = {f["ground"] for f in json.loads(proc.stdout)["findings"]}
    assert grounds <= found, found


def test_a_row_of_one_edit_each_is_written_and_read_as_before(composed):
    row = read_row(_row(composed[0], "read"))
    one = row.model_copy(update={"edits": 1, "sequences": [s for s in row.sequences if len(s.singles) < 2]})
    data = one.to_json()
    assert data["schema"] == SCHEMA and "edits" not in data and read_row(data) == one
    with pytest.raises(ValueError, match="field edits"):
        read_row({**data, "edits": 1})
    with pytest.raises(ValueError, match="field edits"):
        read_row({k: v for k, v in row.to_json().items() if k != "edits"})


EDITS = [Move(n, "edit", case=n.split(".")[0], trial=n) for n in ("T3", "T5", "T5.v1", "T6", "T1")]
SUTS = [Move(k, k) for k in ("write", "restart", "erase", "audit")]
POINTS = st.lists(st.sampled_from(["read", "audit"]), unique=True)


@given(held=st.fixed_dictionaries({e: POINTS for e in EDITS}), length=st.integers(2, MAX_LENGTH),
       n_suts=st.integers(1, 4))
def test_the_pair_search_holds_one_or_two_edits_and_prunes_only_with_a_reason(held, length, n_suts):
    pairs, skipped = choose(EDITS, held)
    seqs = sequences(EDITS, SUTS[:n_suts], length, pairs)
    assert len(set(seqs)) == len(seqs)  # no sequence tried twice
    assert all(2 <= len(s) <= length and len(edits_of(s)) in (1, 2) for s in seqs)
    assert all(len(set(edits_of(s))) == len(edits_of(s)) for s in seqs)  # never one edit twice
    for a in EDITS:
        for b in EDITS:
            if a == b:
                continue
            common = set(held[a]) & set(held[b])
            chosen = (a, b) in pairs
            same_context = (a.case == "T6") == (b.case == "T6")
            assert chosen == bool(common and same_context), (a, b)
            if not chosen:  # nothing that could be a finding left out without a reason that names it
                assert _left_out_with_why(a, b, skipped), (a, b, skipped)
    pair_seqs = [s for s in seqs if len(edits_of(s)) == 2]
    assert len(pair_seqs) == len(pairs) * sum((size * (size - 1) // 2) * n_suts ** (size - 2)
                                              for size in range(2, length + 1))


def _left_out_with_why(a: Move, b: Move, skipped: list[dict]) -> bool:
    """Whether ``skipped`` names the pair of ``a`` and ``b``: one of them left out of every pair, the two
    in both orders, or both among the edits of the contexts a pair may not span."""
    moves = {s["move"] for s in skipped}
    if {f"{a.name} in a pair", f"{b.name} in a pair"} & moves or \
            {f"{a.name}+{b.name}, {b.name}+{a.name}", f"{b.name}+{a.name}, {a.name}+{b.name}"} & moves:
        return True
    for s in skipped:
        if s["move"].startswith("pairs across contexts"):
            named = set(re.findall(r"T[\w.]+", s["reason"].split(":")[0]))
            if {a.name, b.name} <= named:
                return True
    return False


def test_a_pair_with_a_sut_move_is_a_finding_only_where_no_shorter_sequence_of_its_moves_lands():
    """``--length 3``: ``T3+T5+write`` holds the pair ``T3+T5`` and ``T3+write``/``T5+write``; where one of
    them lands its harm is there (``shorter-lands``), as for one edit."""
    from lab.compose.judge import _minimal
    from lab.compose.moves import RESTART, WRITE
    from lab.compose.results import SequenceResult

    t3, t5 = _move("T3"), _move("T5")

    def result(verdict):
        return SequenceResult(sequence=[], verdict=verdict, reason="lands", singles=[], trial="t")
    judged = {(t3, t5): result("finding"), (t5, t3): result("held"), (t3, WRITE): result("held"),
              (t5, WRITE): result("held"), (t5, RESTART): result("single-lands"), (t3, RESTART): result("held")}
    assert _minimal((t3, t5, WRITE), result("finding"), judged).reason.endswith("but T3+T5 already lands")
    assert _minimal((t5, t3, WRITE), result("finding"), judged).verdict == "finding"  # T5+T3, T3+write, T5+write held
    assert _minimal((t5, RESTART, t3), result("finding"), judged).reason.endswith("but T5+restart already lands")
