"""The variants of a case: each its own trial, the cell the weakest of them for the SUT, and a result
set that states them so that verify re-derives every cell from the variants' observations."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lab.cases.variants import case_of, is_variant, variant_trials
from lab.judge.derive import trials_of
from lab.judge.observation import Cell, Observation, ShapeError, Verdict
from lab.judge.weakest import ORDER, weakest
from lab.resultset.verify import verify
from resultsets import cache, copy_set, fix_evidence_digest, load, make_result_set, save  # noqa: F401

VERDICTS = [Verdict.ACCEPTED, Verdict.REPORTED, Verdict.REJECTED, Verdict.ERROR, Verdict.NA]


def _cell(verdict: Verdict, reason: str) -> Cell:
    return Cell(case="T1", detection_point="read", verdict=verdict, observation_class="a", reason=reason)


@given(st.lists(st.sampled_from(VERDICTS), min_size=1, max_size=8))
def test_the_cell_is_the_weakest_variant_for_the_sut_and_names_it(verdicts):
    judged = [(f"v{i}" if i else "default", f"T1.v{i}" if i else "T1", _cell(v, f"why {i}"))
              for i, v in enumerate(verdicts)]
    cell = weakest(judged)
    landed = [v for v in verdicts if v in (Verdict.ACCEPTED, Verdict.REPORTED, Verdict.REJECTED)]
    want = min(verdicts, key=ORDER.index)
    assert cell.verdict == want
    if landed:  # an error never hides a landed variant
        assert cell.verdict in landed
    decided = next(i for i, v in enumerate(verdicts) if v == want)
    assert cell.decided_by == judged[decided][0]
    assert [v["verdict"] for v in cell.variants] == [str(v) for v in verdicts]
    assert (decided == 0) == (cell.reason == "why 0")  # a variant's reason names it


def test_an_accepted_variant_decides_a_rejected_base():
    cell = weakest([("default", "T1", _cell(Verdict.REJECTED, "refused")),
                    ("place=body", "T1.v1", _cell(Verdict.ACCEPTED, "served as genuine"))])
    assert cell.verdict == Verdict.ACCEPTED and cell.decided_by == "place=body"
    assert cell.reason == "variant place=body (T1.v1): served as genuine"


def test_a_variant_trial_states_its_variant_and_its_base_none():
    base = {"case": "T1", "status": "measured"}
    Observation.load(base, "T1.json", "T1")
    Observation.load({**base, "variant": "place=body"}, "T1.v1.json", "T1.v1")
    with pytest.raises(ShapeError, match="variant"):
        Observation.load(base, "T1.v1.json", "T1.v1")
    with pytest.raises(ShapeError, match="variant"):
        Observation.load({**base, "variant": "place=body"}, "T1.json", "T1")
    with pytest.raises(ShapeError, match="case"):
        Observation.load({**base, "case": "T2", "variant": "x"}, "T1.v1.json", "T1.v1")


def test_the_trials_of_a_row_follow_the_lists_its_base_trials_saved():
    saved = {"T8": {"variants": [{"trial": "T8.v1"}, {"trial": "T8.v2"}]}}
    order = trials_of(saved)
    assert order[order.index("T8") + 1: order.index("T8") + 3] == ["T8.v1", "T8.v2"]
    assert variant_trials(None) == [] and case_of("T8.v2") == "T8" and is_variant("T8.v2") and not is_variant("T8")


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    return make_result_set(tmp_path_factory, "reference-naive", name="variants")


def test_each_other_declared_metadata_field_is_a_variant_trial_of_its_own(measured):
    obs_dir = measured / "observations" / "reference-naive"
    base = load(obs_dir / "T8.json")
    fields = [load(obs_dir / f"{v['trial']}.json")["intended"]["meta_field"] for v in base["variants"]]
    assert base["intended"]["meta_field"] == "role" and fields == ["source", "timestamp"]
    for entry in base["variants"]:
        obs = load(obs_dir / f"{entry['trial']}.json")
        assert obs["variant"] == entry["name"] and obs["intended"] == entry["intended"]
        assert obs["c3"]["ok"], obs["c3"]["reasons"]  # its own edit, its own C3
        assert obs["read"]["ok"]
    row = load(measured / "rows" / "reference-naive@read.json")
    assert [v["trial"] for v in row["cells"]["T8"]["variants"]] == ["T8", "T8.v1", "T8.v2"]
    assert row["controls"]["C3"]["variants_landed"] == ["T4.v1", "T8.v1", "T8.v2"]  # T4.v1: swap=contents
    assert verify(measured).ok


def test_verify_re_derives_the_cell_from_the_variants_observations(measured, tmp_path):
    rs = copy_set(measured, tmp_path / "rs")
    path = rs / "observations" / "reference-naive" / "T8.v2.json"
    obs = load(path)
    obs["read"] = {"ok": False, "refused": True, "error": "integrity"}  # that variant now "refused"
    save(path, obs)
    fix_evidence_digest(rs, "observations/reference-naive/T8.v2.json")
    result = verify(rs)
    assert not result.ok and any("T8" in f.detail for f in result.findings), result.findings


def test_a_missing_variant_observation_does_not_verify(measured, tmp_path):
    rs = copy_set(measured, tmp_path / "rs")
    (rs / "observations" / "reference-naive" / "T8.v1.json").unlink()
    result = verify(rs)
    assert not result.ok
    grounds = {(f.ground, f.file) for f in result.findings}
    assert ("evidence-missing", "observations/reference-naive/T8.v1.json") in grounds, json.dumps(
        [f.__dict__ for f in result.findings])
