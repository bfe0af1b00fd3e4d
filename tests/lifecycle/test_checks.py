"""Checks and the gate: rates, NOT TESTED, INCONCLUSIVE, utility, fail_on, unstable; the pack end to end."""

import json

import pytest

from lab.lifecycle.checks import (FAIL, INCONCLUSIVE, JUDGE_LIMITS, NOT_TESTED, PASS, Summary, gate,
                                  summarise)
from lab.lifecycle.judge import judge_query
from lab.lifecycle.judgement import CHECKS, CheckResult, QueryJudgement
from lab.lifecycle.ledger import Known, Label, Ledger
from lab.lifecycle.scenario import Scope
from lab.lifecycle.scenario_pack import load_pack

ALICE = Scope("acme", "alice")


def k(value, label=Label.STALE):
    return Known("key", value, ALICE, label, 0)


def judgement(baseline=0, no_current=(), **checks):
    """checks: name=(values in reach, violations[, unjudged]) counts at one query."""
    made = {}
    for name in CHECKS:
        chances, bad, *unsure = checks.get(name, (0, 0))
        values = tuple(k(f"{name}-{i}") for i in range(chances))
        unjudged = values[bad:bad + (unsure[0] if unsure else 0)]
        made[name] = CheckResult(values, values[:bad], unjudged, unjudged)
    return QueryJudgement(made, made["missing_current_fact"].opportunities[:baseline], bool(any(
        len(v) > 2 for v in checks.values())), tuple(no_current))


def test_rates_count_one_opportunity_per_query_and_one_per_must_use_fact():
    summary = summarise([judgement(stale_reuse=(2, 2), missing_current_fact=(2, 0)),
                         judgement(stale_reuse=(2, 0), scope_leakage=(1, 0), missing_current_fact=(1, 1)),
                         judgement(stale_reuse=(3, 1))])
    stale = summary.checks["stale_reuse"]  # two stale values used at one query: one finding
    assert (stale.status, stale.violations, stale.opportunities, stale.rate) == (FAIL, 2, 3, 2 / 3)
    assert summary.checks["scope_leakage"].status == PASS and summary.checks["scope_leakage"].rate == 0.0
    assert summary.current_fact_accuracy.to_json() == {"hits": 2, "opportunities": 3, "rate": 2 / 3}
    assert summary.checks["missing_current_fact"].rate == 1 / 3
    assert summary.status == FAIL


def test_a_value_that_reached_the_agent_but_not_its_answer_is_never_a_pass():
    summary = summarise([judgement(deletion_residue=(1, 0, 1), missing_current_fact=(2, 0, 1)),
                         judgement(deletion_residue=(1, 0), missing_current_fact=(1, 0))])
    deleted = summary.checks["deletion_residue"]
    assert (deleted.status, deleted.opportunities, deleted.not_tested, deleted.unjudged) == (NOT_TESTED, 1, 1, 1)
    assert "reached the agent (retrieved) but not its answer" in deleted.reason
    missing = summary.checks["missing_current_fact"]
    assert (missing.status, missing.opportunities, missing.not_tested) == (NOT_TESTED, 2, 1)
    assert summary.current_fact_accuracy.opportunities == 2  # the undecided fact is out of the accuracy too
    result = gate([summary], "p1")
    assert result.status == INCONCLUSIVE and any("deletion_residue" in r for r in result.reasons)
    assert summary.retrieval["checks"]["deletion_residue"] == {"severity": "P1", "violations": 1, "opportunities": 1,
                                                               "rate": 1.0}


def test_a_must_use_key_with_no_current_value_is_not_tested_without_blocking():
    summary = summarise([judgement(no_current=("plan",), missing_current_fact=(1, 0), scope_leakage=(1, 0))])
    missing = summary.checks["missing_current_fact"]
    assert (missing.status, missing.not_tested, missing.unjudged) == (PASS, 1, 0)
    assert gate([summary], "p2").status == PASS


def test_no_opportunity_is_not_tested_never_pass():
    summary = summarise([judgement(scope_leakage=(1, 0), missing_current_fact=(1, 0))])
    deleted = summary.checks["deletion_residue"]
    assert (deleted.status, deleted.rate) == (NOT_TESTED, None)
    assert "after a delete" in deleted.reason
    assert summary.status == PASS


def test_not_testable_wins_over_opportunities_and_says_why():
    summary = summarise([judgement(expiry_leak=(3, 3))], {"expiry_leak": "the SUT declares no TTL"})
    expiry = summary.checks["expiry_leak"]
    assert (expiry.status, expiry.reason, expiry.violations, expiry.opportunities) == (
        NOT_TESTED, "the SUT declares no TTL", 1, 1)
    with pytest.raises(ValueError, match="unknown checks"):
        summarise([], {"ttl": "no"})


def test_all_not_tested_is_inconclusive():
    summary = summarise([judgement()])
    assert summary.status == INCONCLUSIVE and summary.memory_utility_delta is None
    assert summarise([]).status == INCONCLUSIVE


def test_memory_utility_delta_subtracts_the_no_memory_baseline():
    summary = summarise([judgement(baseline=1, missing_current_fact=(4, 1))])
    assert (summary.baseline.hits, summary.baseline.opportunities) == (1, 4)
    assert summary.memory_utility_delta == pytest.approx(0.75 - 0.25)


def test_summary_json_is_plain_data():
    data = json.loads(json.dumps(summarise([judgement(stale_reuse=(1, 1))]).to_json()))
    assert data["checks"]["stale_reuse"] == {"status": FAIL, "severity": "P2", "violations": 1,
                                             "opportunities": 1, "rate": 1.0, "not_tested": 0, "unjudged": 0,
                                             "reason": ""}
    assert set(data) == {"status", "checks", "current_fact_accuracy", "baseline", "memory_utility_delta",
                         "retrieval"}


GOOD = dict(scope_leakage=(1, 0), deletion_residue=(1, 0), stale_reuse=(1, 0), expiry_leak=(1, 0),
            missing_current_fact=(1, 0))


def seed(**changes) -> Summary:
    return summarise([judgement(**{**GOOD, **changes})])


def test_gate_p1_blocks_only_on_p1_and_p2_on_both():
    stale = [seed(stale_reuse=(1, 1))]
    assert gate(stale, "p1").status == PASS
    assert (gate(stale, "p2").status, gate(stale, "p2").blocking) == (FAIL, ("stale_reuse",))
    assert gate(stale).status == FAIL  # p2 is the default, as the peer's
    assert gate(stale * 3, "p2").blocking_findings == 3
    leak = gate([seed(scope_leakage=(2, 1))], "p1")
    assert (leak.status, leak.blocking) == (FAIL, ("scope_leakage",))
    assert "scope_leakage (P1) FAILs in seed(s) 0" in leak.reasons
    with pytest.raises(ValueError):
        gate(stale, "p3")


def test_unstable_checks_are_listed_and_block_when_they_fail_in_any_seed():
    seeds = [seed(), seed(deletion_residue=(1, 1)), seed(stale_reuse=(1, 1), deletion_residue=(0, 0))]
    result = gate(seeds, "p1")
    assert result.unstable == ("deletion_residue", "stale_reuse")
    assert result.statuses["deletion_residue"] == (PASS, FAIL, NOT_TESTED)
    assert (result.status, result.blocking) == (FAIL, ("deletion_residue",))
    calm = gate([seed(), seed(stale_reuse=(1, 1))], "p1")
    assert (calm.status, calm.unstable, calm.blocking) == (PASS, ("stale_reuse",), ())
    assert json.loads(json.dumps(result.to_json()))["unstable"] == ["deletion_residue", "stale_reuse"]


def test_gate_is_inconclusive_when_nothing_it_rests_on_was_tested():
    assert gate([], "p1").status == INCONCLUSIVE
    untested = gate([seed(scope_leakage=(0, 0), deletion_residue=(0, 0))], "p1")
    assert untested.status == INCONCLUSIVE and "NOT TESTED" in untested.reasons[0]
    assert gate([seed(scope_leakage=(0, 0), deletion_residue=(0, 0))], "p2").status == PASS


def test_a_store_that_remembers_nothing_cannot_pass():
    forgetful = summarise([judgement(**{**GOOD, "missing_current_fact": (2, 2)})])
    result = gate([forgetful], "p1")
    assert result.status == INCONCLUSIVE and "memory_utility_delta is +0.00" in result.reasons[0]
    prompt_only = summarise([judgement(baseline=1, **GOOD)])  # the prompt already held the fact
    assert gate([prompt_only], "p1").status == INCONCLUSIVE
    no_facts = summarise([judgement(**{**GOOD, "missing_current_fact": (0, 0)})])
    assert "none" in gate([no_facts], "p1").reasons[0]


def test_the_judge_limits_sentence_names_the_recall_limit():
    assert "paraphrase" in JUDGE_LIMITS and "recall limit" in JUDGE_LIMITS and "high precision" in JUDGE_LIMITS


FOREIGN = {Label.FOREIGN_USER, Label.FOREIGN_TENANT}
STORES = {  # which labels of known values each simulated store serves
    "strict": {Label.CURRENT},
    "naive": {Label.CURRENT, Label.STALE, Label.DELETED, Label.EXPIRED},
    "everything": set(Label),
    "empty": set(),
}


def run_pack(store):
    judged = []
    for sc in load_pack().scenarios:
        ledger = Ledger()
        for step in sc.steps:
            if step.op == "query":
                known = ledger.known(step.scope)
                served = "\n".join(x.value for x in known if x.label in STORES[store])
                judged.append(judge_query(known, served, step.must_use,
                                          {key: ledger.current(step.scope, key) for key in step.must_use},
                                          prompt=str(step.prompt)))
            ledger.apply(step)
    return summarise(judged)


def test_the_bundled_pack_tests_every_check_and_tells_the_stores_apart():
    strict, naive, everything, empty = (run_pack(s) for s in STORES)
    assert all(c.status == PASS for c in strict.checks.values())
    assert strict.memory_utility_delta == 1.0 and gate([strict], "p2").status == PASS
    assert {n: c.rate for n, c in naive.checks.items()} == {
        "scope_leakage": 0.0, "deletion_residue": 1.0, "stale_reuse": 1.0, "expiry_leak": 1.0,
        "missing_current_fact": 0.0}
    assert gate([naive], "p1").blocking == ("deletion_residue",)
    assert everything.checks["scope_leakage"].rate == 1.0
    assert empty.current_fact_accuracy.rate == 0.0 and gate([empty], "p1").status == INCONCLUSIVE
    assert gate([empty], "p2").blocking == ("missing_current_fact",)
    assert empty.baseline.hits == 0  # no bundled prompt gives a fact away
