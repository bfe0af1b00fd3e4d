"""Composition end to end on the calibration rows: a sequence that lands where none of its moves does
(the audited reference store reseals its head on every genuine write and erase without checking it
first, so a truncation followed by either passes the audit), sequences whose edit already lands alone
(the naive store: never a finding), and a store that refuses every move (the sealed store: held). The
set verifies, and every way of tampering with what a finding rests on is rejected.

These rows are composed with one edit per sequence and no restore moves (``--edits 1 --no-restores``, as
every published set was): their pairs double the sealed store's composition, and pairs are tested on the
counted store (test_compose_pairs.py), restore moves on the high-water store (test_compose_restores.py). It also keeps the rows of one edit each, ``memlab.compose-row/1``, written
and verified by this lab.
"""

from __future__ import annotations

import json
import shutil
from html import escape
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from lab.compose.judge import decide
from lab.compose.moves import MAX_LENGTH, Move, sequences
from lab.compose.results import OUTCOMES, Single, read_row
from lab.report.site_compose import SAID
from tests.resultsets import cache, fix_evidence_digest, load, memlab, save  # noqa: F401 (cache: fixture)
from tests.resultsets import sequences_by_name

pytestmark = pytest.mark.system  # composes or runs rows end to end: out of the fast loop

ROWS = ("reference-audit", "reference-naive", "reference-sealed")


@pytest.fixture(scope="module")
def composed(tmp_path_factory, cache) -> dict[str, tuple[Path, object]]:  # noqa: F811
    """Each calibration row composed once: its set and the finished command."""
    out = {}
    for row in ROWS:
        folder = tmp_path_factory.mktemp(f"compose-{row}") / "set"
        proc = memlab("compose", "--sut", row, "--edits", "1", "--no-restores", "--runtime", "local",
                      "--nonce", "tests", "--out", folder, cache=cache, timeout=600)
        out[row] = (folder, proc)
    return out


def _row(folder: Path, row: str, point: str) -> dict:
    return load(folder / "composition" / f"{row}@{point}.json")


def test_a_truncation_laundered_by_a_genuine_write_is_a_finding(composed):
    folder, proc = composed["reference-audit"]
    assert proc.returncode == 1, proc.stdout + proc.stderr  # a finding is a verdict against the store
    row = _row(folder, "reference-audit", "audit")
    seqs = sequences_by_name(row)
    for name in ("T3+write", "T3+erase"):
        seq = seqs[name]
        assert seq["verdict"] == "finding", seq
        assert [s["landed"] for s in seq["singles"]] == [False, False], seq["singles"]
        assert seq["singles"][0]["reason"].startswith("REPORTED at rest"), seq["singles"][0]
    assert seqs["write+T3"]["verdict"] == "held"  # the write before the edit reseals nothing of it
    assert seqs["T1+write"]["verdict"] == "held"  # a tampered record keeps its bad MAC after the reseal
    at_rest = load(folder / "rows" / "reference-audit@audit.json")
    assert at_rest["cells"]["T3"]["verdict"] == "REPORTED"  # the edit alone is caught
    assert "FINDING T3+write" in proc.stdout
    assert row["counts"]["finding"] == len(row["findings"]) >= 2


def test_a_sequence_whose_edit_lands_alone_is_never_a_finding(composed):
    folder, proc = composed["reference-naive"]
    assert proc.returncode == 0, proc.stdout + proc.stderr
    row = _row(folder, "reference-naive", "read")
    assert row["findings"] == []
    seq = sequences_by_name(row)["T1+write"]
    assert seq["verdict"] == "single-lands" and seq["singles"][0]["landed"] is True


def test_a_store_that_refuses_every_move_holds(composed):
    folder, proc = composed["reference-sealed"]
    assert proc.returncode == 0, proc.stdout + proc.stderr
    row = _row(folder, "reference-sealed", "read")
    assert row["findings"] == [] and row["counts"]["held"] > 0
    refused = sequences_by_name(row)["T3+write"]
    assert refused["verdict"] == "held" and "refused" in refused["reason"], refused


def test_every_sequence_of_each_offered_edit_is_tried_and_restores_are_listed(composed):
    folder, _ = composed["reference-audit"]
    row = _row(folder, "reference-audit", "audit")
    edits = [m for m in row["offered"] if m.startswith("T")]
    suts = [m for m in row["offered"] if not m.startswith("T")]
    assert suts == ["write", "restart", "erase", "audit"]
    assert len(row["sequences"]) == len(edits) * len(suts) * 2
    assert {s["move"] for s in row["skipped"]} == {"T9", "T10"}
    assert read_row(row).to_json() == row  # the typed row reads back byte for byte
    assert row["schema"] == "memlab.compose-row/1" and "edits" not in row  # one edit each: written as before


def test_the_set_verifies(composed, cache):  # noqa: F811
    for row in ROWS:
        proc = memlab("verify", composed[row][0], cache=cache)
        assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("tamper", ["finding-turned-held", "served-rewritten", "row-removed", "trial-removed"])
def test_tampering_with_a_composition_is_rejected(composed, cache, tmp_path, tamper):  # noqa: F811
    folder = shutil.copytree(composed["reference-audit"][0], tmp_path / "set")
    row_file = "composition/reference-audit@audit.json"
    if tamper == "finding-turned-held":  # the row changed and re-pinned: only re-derivation can tell
        row = load(folder / row_file)
        for seq in row["sequences"]:
            if seq["verdict"] == "finding":
                seq["verdict"] = "held"
        row["findings"] = [s for s in row["sequences"] if s["verdict"] == "finding"]
        row["counts"] = {o: sum(s["verdict"] == o for s in row["sequences"]) for o in OUTCOMES}
        save(folder / row_file, row)
        fix_evidence_digest(folder, row_file)
        ground = "compose-not-derivable"
    elif tamper == "served-rewritten":  # the read after the sequence refused, and re-pinned
        trial = "observations/reference-audit/compose/T3+write.json"
        obs = load(folder / trial)
        obs["audit"]["answer"]["audit"] = {"ok": False, "problems": ["head mismatch"]}
        save(folder / trial, obs)
        fix_evidence_digest(folder, trial)
        ground = "compose-not-derivable"
    elif tamper == "row-removed":
        (folder / row_file).unlink()
        ground = "evidence-missing"
    else:
        (folder / "observations/reference-audit/compose/write-A.json").unlink()
        ground = "evidence-missing"
    proc = memlab("verify", "--json", folder, cache=cache)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    grounds = {f["ground"] for f in json.loads(proc.stdout)["findings"]}
    assert ground in grounds, grounds


def test_resume_refuses_a_set_that_is_not_a_composition(tmp_path, cache):  # noqa: F811
    (tmp_path / "run.json").write_text(json.dumps({"rows": ["reference-naive"], "status": "interrupted"}))
    proc = memlab("compose", "--resume", tmp_path, cache=cache)
    assert proc.returncode == 2 and "not a composition" in proc.stderr, proc.stderr


SINGLE = st.builds(Single, move=st.sampled_from(["T3", "T5", "write", "restart"]), trial=st.just("t"),
                   landed=st.sampled_from([True, False, None]), reason=st.just(""))


@given(landed=st.sampled_from([True, False, None]), singles=st.lists(SINGLE, min_size=1, max_size=MAX_LENGTH))
def test_a_finding_needs_the_sequence_to_land_and_every_single_known_not_to(landed, singles):
    verdict, _ = decide(landed, "why", singles)
    assert (verdict == "finding") == (landed is True and all(s.landed is False for s in singles))
    assert (verdict == "held") == (landed is False)
    if any(s.landed is None for s in singles) and landed:
        assert verdict in ("single-lands", "inconclusive")


@given(length=st.integers(2, MAX_LENGTH), n_edits=st.integers(1, 3), n_suts=st.integers(1, 4))
def test_each_sequence_holds_exactly_one_edit_and_none_repeats(length, n_edits, n_suts):
    edits = [Move(f"T{i}", "edit", case=f"T{i}", trial=f"T{i}") for i in range(1, n_edits + 1)]
    suts = [Move(k, k) for k in ("write", "restart", "erase", "audit")[:n_suts]]
    seqs = sequences(edits, suts, length)
    assert all(2 <= len(s) <= length and sum(m.edits for m in s) == 1 for s in seqs)
    assert len(set(seqs)) == len(seqs) == n_edits * sum(size * n_suts ** (size - 1) for size in range(2, length + 1))


def _refuse(path: Path) -> None:
    """Make the erase move saved in ``path`` a refusal by the SUT."""
    obs = load(path)
    for move in obs["moves"]:
        if move.get("move") == "erase":
            move["answer"] = {"ok": False, "refused": True, "error": {"message": "refused"}, "id": 2}
    save(path, obs)


@pytest.mark.parametrize("alone_refused", [False, True])
def test_a_refusal_counts_as_held_only_when_the_move_alone_is_not_refused(composed, tmp_path, alone_refused):
    """The sealed store refuses to erase from a truncated context (it verifies first): held. Were its erase
    refused on an untouched store too, the refusal would say nothing of the edit: inconclusive."""
    from lab.resultset.composition import derive_saved

    folder = shutil.copytree(composed["reference-sealed"][0], tmp_path / "set")
    trials = folder / "observations" / "reference-sealed" / "compose"
    assert load(trials / "T3+erase.json")["moves"][1]["answer"]["refused"] is True
    if alone_refused:
        for single in trials.glob("erase-A@*.json"):
            _refuse(single)
    (row,) = derive_saved(folder / "observations" / "reference-sealed", load(folder / "run.json"))
    seq = next(s for s in row.sequences if s.sequence == ["T3", "erase"])
    assert seq.verdict == ("inconclusive" if alone_refused else "held"), seq


def test_the_site_shows_the_findings_beside_the_matrix(composed, cache, tmp_path):  # noqa: F811
    row = tmp_path / "reference-audit"
    shutil.copytree(composed["reference-audit"][0], row)  # the row's set, as published: its composition inside
    shutil.copytree(composed["reference-audit"][0], row / "compose")
    proc = memlab("site", row, "--out", tmp_path / "site", cache=cache)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    index = (tmp_path / "site" / "index.html").read_text()
    page = (tmp_path / "site" / "reference-audit.html").read_text()
    assert 'composition</a>: audit 4 finding(s)' in index
    assert '<h2 id="composition">' in page and "<code>T3+write</code>" in page


def test_the_sets_own_reports_show_each_finding_beside_the_matrix(composed, cache, tmp_path):  # noqa: F811
    folder, _ = composed["reference-audit"]
    page = (folder / "report.html").read_text()
    section = page[page.index('<h2 id="composition">'):page.index('<h2 id="legend">')]
    assert page.index('id="matrix"') < page.index('id="composition"')
    row = _row(folder, "reference-audit", "audit")
    assert "reference-audit@audit: " in section and "Left out: <code>T9</code>" in section
    for seq in row["findings"]:
        assert f"<code>{'+'.join(seq['sequence'])}</code>" in section
        for single in seq["singles"]:  # each move alone, with its own reason
            assert (f'<span title="{escape(single["reason"])}">{escape(single["move"])} alone '
                    f'{SAID[single["landed"]]}</span>') in section
    assert "\n## Composition: " in (folder / "report.md").read_text()
    proc = memlab("report", folder, "--format", "html", "--out", tmp_path / "again.html", cache=cache)
    assert proc.returncode == 0 and (tmp_path / "again.html").read_text() == page, proc.stderr


def test_analyze_derives_a_composition_again_into_a_set_that_verifies(composed, cache, tmp_path):  # noqa: F811
    out = tmp_path / "again"
    proc = memlab("analyze", composed["reference-audit"][0], "--out", out, "--no-reports", cache=cache)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert load(out / "run.json")["compose"] == {"length": 2}
    assert load(out / "composition" / "reference-audit@audit.json")["findings"] == \
        load(composed["reference-audit"][0] / "composition" / "reference-audit@audit.json")["findings"]
    assert memlab("verify", out, cache=cache).returncode == 0


def test_the_effect_check_sets_aside_what_the_sut_moves_wrote_and_erased():
    """One more genuine record served is not the edit's effect (T8's order check would read a moved
    record in it): the record a write move added leaves what was served, the one an erase removed leaves
    the baseline, and nothing else changes."""
    from lab.compose.judge import as_seeded
    from lab.judge.observation import Observation

    rec = lambda marker: {"text": f"[{marker}] note"}  # noqa: E731
    obs = Observation.from_json({"case": "T8", "status": "measured", "read_label": "A",
                                 "moves": [{"move": "T8"}, {"move": "write", "marker": "mA7-aaaaaa"},
                                           {"move": "erase", "victim": "mA0-bbbbbb"}],
                                 "read": {"ok": True, "records": [rec("mA1-cccccc"), rec("mA7-aaaaaa")]}})
    c1 = Observation.from_json({"case": "C1", "status": "measured",
                                "reads": {"A": {"ok": True, "records": [rec("mA0-bbbbbb"), rec("mA1-cccccc")]},
                                          "B": {"ok": True, "records": [rec("mB0-dddddd")]}}})
    seen, base = as_seeded(obs, c1)
    assert seen.read.records == [rec("mA1-cccccc")]
    assert base.reads["A"].records == [rec("mA1-cccccc")] and base.reads["B"] == c1.reads["B"]
    plain = Observation.from_json({"case": "T8", "status": "measured", "read": {"ok": True, "records": []}})
    assert as_seeded(plain, c1) == (plain, c1)


def test_a_process_alive_watcher_is_laundered_by_any_sut_move_after_the_edit(cache, tmp_path):  # noqa: F811
    """A process-alive row is composed with its SUT held across the whole sequence, as its edits alone
    were measured. The watcher (tests/fixtures/alive) re-takes its store's digest after its own writes
    and erasures and at every start, so each edit it reports alone is laundered by any SUT move after
    it, and by none before it; its stopped twin never sees an edit, so its edits land alone."""
    folder = tmp_path / "set"
    proc = memlab("compose", "--sut", "watcher-*", "--profiles", Path(__file__).parents[1] / "fixtures" / "alive",
                  "--edits", "1", "--no-restores", "--runtime", "local", "--nonce", "tests", "--out", folder, cache=cache,
                  timeout=600)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    seqs = sequences_by_name(_row(folder, "watcher-alive", "read"))
    for name in ("T3+write", "T3+restart", "T3+erase", "T1+restart"):
        assert seqs[name]["verdict"] == "finding", seqs[name]
        assert [s["landed"] for s in seqs[name]["singles"]] == [False, False], seqs[name]["singles"]
    for name in ("write+T3", "restart+T3", "erase+T1"):
        assert seqs[name]["verdict"] == "held" and "integrity" in seqs[name]["reason"], seqs[name]
    trial = load(folder / "observations" / "watcher-alive" / "compose" / "T3+restart.json")
    assert trial["position"] == "alive" and trial["timings"]["restart"] == 0.0  # the read in the restarted process
    assert [m["move"] for m in trial["moves"]] == ["T3", "restart"] and trial["moves"][1]["open"]["ok"]
    stopped = sequences_by_name(_row(folder, "watcher-stopped", "read"))
    assert {s["verdict"] for s in stopped.values()} <= {"single-lands", "inconclusive"}
    assert stopped["T3+restart"]["verdict"] == "single-lands"
    verified = memlab("verify", folder, cache=cache)
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_a_longer_sequence_is_a_finding_only_where_no_shorter_one_of_its_moves_lands():
    from lab.compose.judge import _minimal
    from lab.compose.moves import AUDIT, RESTART, WRITE
    from lab.compose.results import SequenceResult

    edit = Move("T3", "edit", case="T3", trial="T3")
    def result(verdict):  # noqa: E306
        return SequenceResult(sequence=[], verdict=verdict, reason="lands", singles=[], trial="t")
    judged = {(edit, WRITE): result("finding"), (AUDIT, edit): result("held"), (edit, RESTART): result("held")}
    longer = _minimal((AUDIT, edit, WRITE), result("finding"), judged)
    assert longer.verdict == "shorter-lands" and "T3+write already lands" in longer.reason
    assert _minimal((AUDIT, edit, RESTART), result("finding"), judged).verdict == "finding"
    assert _minimal((edit, WRITE), result("finding"), judged).verdict == "finding"
