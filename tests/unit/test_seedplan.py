"""The seed plan at any size: the method's minimum of five, unique markers at 10,000 per context,
the five-record plans of every published set unchanged, and a run at 100 records that verifies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lab.cases.seedplan import FACT_INDEX, MARKER_RE, RECORDS_PER_CONTEXT, SeedPlan, make_plan
from resultsets import ROOT, memlab, shared_cache


@given(nonce=st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=12),
       records=st.integers(RECORDS_PER_CONTEXT, 300))
@settings(max_examples=40, deadline=None)
def test_a_plan_of_any_size_has_unique_markers_and_one_fact_per_context(nonce, records):
    plan = make_plan(nonce, records)
    assert plan.per_context == records and len(plan.records) == 2 * records
    markers = [r.marker for r in plan.records]
    assert len(set(markers)) == len(markers) and all(MARKER_RE.fullmatch(m) for m in markers)
    for label in ("A", "B"):
        assert [r.fact for r in plan.of(label)].count(plan.facts[label]) == 1
        assert plan.of(label)[FACT_INDEX].fact == plan.facts[label]
        assert plan.extra(label, 0).index == records and plan.extra(label, 1).index == records + 1
    assert SeedPlan.from_json(json.loads(json.dumps(plan.to_json()))) == plan
    assert make_plan(nonce, records) == plan


def test_ten_thousand_per_context_keeps_every_marker_unique():
    plan = make_plan("scale", 10_000)
    assert len({r.marker for r in plan.records}) == 20_000


def test_below_the_methods_minimum_is_refused():
    with pytest.raises(ValueError, match="minimum of 5"):
        make_plan("x", 4)


def test_the_published_plans_are_what_make_plan_gives_today():
    plans = [json.loads(p.read_text())["plan"] for p in (ROOT / "results" / "published").rglob("seed.json")]
    assert plans, "no published seed plan found"
    for plan in plans:
        assert make_plan(plan["nonce"]).to_json() == plan


def test_a_run_at_a_hundred_records_per_context_verifies_and_says_so(tmp_path_factory):
    out = tmp_path_factory.mktemp("records") / "rs"
    done = memlab("run", "--runtime", "local", "--sut", "reference-naive", "--records", "100", "--nonce", "r100",
                  "--out", out, "--no-reports", cache=shared_cache(tmp_path_factory))
    assert done.returncode == 0, done.stderr
    assert json.loads((out / "run.json").read_text())["records_per_context"] == 100
    seed = json.loads((out / "observations" / "reference-naive" / "seed.json").read_text())
    assert len(seed["plan"]["records"]) == 200
    assert memlab("verify", out, cache=shared_cache(tmp_path_factory)).returncode == 0
    row = json.loads((out / "rows" / "reference-naive@read.json").read_text())
    assert row["evaluable"] and {c["verdict"] for c in row["cells"].values()} == {"ACCEPTED"}


def test_below_the_minimum_on_the_command_line_is_a_clear_error(tmp_path_factory):
    done = memlab("run", "--runtime", "local", "--sut", "reference-naive", "--records", "4", "--out",
                  tmp_path_factory.mktemp("r4") / "rs", cache=shared_cache(tmp_path_factory))
    assert done.returncode == 2 and "--records" in done.stderr
