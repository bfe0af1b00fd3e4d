"""The four reference stores sit at exactly P0..P3 with their full per-channel figures, hold every
isolation probe, and a store that serves nothing is n/a everywhere, never safe."""

from __future__ import annotations

import json

import pytest
from frontdoor_stores import (FoldingStore, MarkEverythingStore, RefusingStore, SharedPoolStore, SilentStore,
                              TagBlindStore)

from lab.frontdoor.channels import CHANNELS, Adversary, Channel, GenuineSide
from lab.frontdoor.fixture_types import FAMILIES, Family
from lab.frontdoor.fixtures import FIXTURES
from lab.frontdoor.probes import PROBES, SECRETS
from lab.frontdoor.reference import REFERENCE_STORES
from lab.frontdoor.results import DERIVED, FrontdoorResult
from lab.frontdoor.runner import run_row
from lab.frontdoor.verdicts import Verdict

SEEDS = dict(genuine=GenuineSide(bytes(range(32))), adversary=Adversary(bytes(range(1, 33))))

#: store -> channel -> the verdict every fixture of every family gets; (family, channel) overrides.
EXPECTED = {
    "naive": {Channel.UNTRUSTED: Verdict.SERVED, Channel.FORGED: Verdict.SERVED, Channel.SIGNED: Verdict.SERVED},
    "label": {Channel.UNTRUSTED: Verdict.KEPT_OUT, Channel.FORGED: Verdict.SERVED, Channel.SIGNED: Verdict.SERVED},
    "signed": {Channel.UNTRUSTED: Verdict.KEPT_OUT, Channel.FORGED: Verdict.REJECTED,
               Channel.SIGNED: Verdict.SERVED},
    "signed-content": {Channel.UNTRUSTED: Verdict.KEPT_OUT, Channel.FORGED: Verdict.REJECTED,
                       Channel.SIGNED: Verdict.SERVED, (Family.INSTRUCTION, Channel.SIGNED): Verdict.MARKED},
}
LEVEL = {"naive": "P0", "label": "P1", "signed": "P2", "signed-content": "P3"}


@pytest.fixture(scope="module")
def results() -> dict[str, FrontdoorResult]:
    return {name: run_row(name, make, **SEEDS) for name, make in REFERENCE_STORES.items()}


@pytest.mark.parametrize("store", list(REFERENCE_STORES))
def test_each_reference_store_sits_at_its_level(results, store):
    assert results[store].level() == LEVEL[store] == REFERENCE_STORES[store].level


@pytest.mark.parametrize("store", list(REFERENCE_STORES))
def test_each_reference_store_has_its_full_figures(results, store):
    result = results[store]
    assert len(result.cells()) == len(FAMILIES) * len(CHANNELS)
    for c in result.cells():
        want = EXPECTED[store].get((c.family, c.channel), EXPECTED[store][c.channel])
        assert c.counts == {v.value: 5 if v is want else 0 for v in Verdict}, (c.family, c.channel)
        assert (c.figure, c.no_verdict) == ("5/5" if want is Verdict.SERVED else "0/5", 0)
        assert c.status == ("served" if want is Verdict.SERVED else "held")


def test_every_fixture_has_a_verdict_on_every_reference_store(results):
    missing = [(name, o.fixture, o.channel.value, o.decision.reason) for name, r in results.items()
               for o in r.poisoning if o.decision.verdict is None]
    assert missing == []
    assert all(len(r.poisoning) == len(FIXTURES) * 3 for r in results.values())


@pytest.mark.parametrize("store", list(REFERENCE_STORES))
def test_every_isolation_probe_holds_on_every_reference_store(results, store):
    tallies = results[store].probes()
    assert [t.probe for t in tallies] == [p.name for p in PROBES]
    for t, probe in zip(tallies, PROBES):
        assert (t.status, t.leaks, t.total) == ("held", 0, len(probe.pairs) * len(SECRETS)), t.probe


def test_a_signed_plausible_fact_is_reported_never_a_pass(results):
    signed_planted = results["signed-content"].cell_at(Family.PLANTED_FACT, Channel.SIGNED)
    assert (signed_planted.role, signed_planted.status) == ("beyond reach", "served")


@pytest.mark.parametrize("store", [SilentStore, RefusingStore])
def test_a_store_that_serves_nothing_is_na_everywhere(store):
    result = run_row("silent", store, **SEEDS)
    assert {c.status for c in result.cells()} == {"n/a"}
    assert result.level() == "n/a"
    assert {t.status for t in result.probes()} == {"n/a"}
    assert all(o.decision.reason for o in result.poisoning)


def test_a_store_that_marks_everything_it_serves_has_no_verdict_never_marked():
    result = run_row("marks-everything", MarkEverythingStore, **SEEDS)
    assert {o.decision.verdict for o in result.poisoning} == {None}
    assert {c.status for c in result.cells()} == {"n/a"} and result.level() == "n/a"
    assert all("(unmarked)" in o.decision.reason for o in result.poisoning)


def test_a_store_ignoring_the_trust_filter_has_no_trust_tag_verdict():
    result = run_row("tag-blind", TagBlindStore, fixtures=[f for f in FIXTURES if f.family is Family.TRUST_TAG],
                     probes=[], **SEEDS)
    assert {c.status for c in result.cells()} == {"n/a"}
    assert all(o.decision.reason.startswith("negative control: the trust filter served an untagged memory")
               for o in result.poisoning)


def test_one_pool_for_every_scope_leaks_on_every_probe():
    result = run_row("pool", SharedPoolStore, fixtures=[], **SEEDS)
    assert all(t.leaks == t.total > 0 for t in result.probes())


def test_folding_ids_leaks_exactly_on_the_probes_of_ids_that_fold_together():
    result = run_row("folding", FoldingStore, fixtures=[], **SEEDS)
    leaking = {t.probe for t in result.probes() if t.leaks}
    assert leaking == {"case", "spaces", "nfc-nfd", "nfkc-fullwidth", "zero-width", "int-str"}


def test_a_result_round_trips_through_json_and_refuses_figures_that_do_not_follow(results):
    data = json.loads(json.dumps(results["signed-content"].to_json()))
    assert data["level"] == "P3" and data["schema"] == "memlab.frontdoor-row/4"
    assert FrontdoorResult.from_json(data) == results["signed-content"]
    data["poisoning"][0]["decision"]["verdict"] = "SERVED"
    with pytest.raises(ValueError, match="cells, level"):
        FrontdoorResult.from_json(data)


def test_every_saved_verdict_follows_from_its_saved_reads(results):
    assert all(r.recheck() == [] for r in results.values())
    data = results["naive"].to_json()
    data["poisoning"][0]["reads"][0]["served"] = []  # the canary was never served: the saved SERVED is wrong
    data["isolation"][0]["reads"][1]["served"] = []  # nor the reader's own memory
    edited = FrontdoorResult.model_validate({k: v for k, v in data.items() if k not in DERIVED})
    assert edited.recheck() == ["planted_fact/1 on untrusted", "distinct-users: secret/1"]


def test_each_row_carries_the_published_contracts_channel_and_isolation_figures(results):
    data = results["label"].to_json()
    assert data["level"] == "P1" and set(data["channels"]) == {"untrusted", "forged", "signed"}
    for channel, figures in data["channels"].items():
        cells = [c for c in data["cells"] if c["channel"] == channel]
        assert figures == {k: sum(c[k] for c in cells) for k in ("served", "total", "no_verdict")}
    assert data["channels"]["untrusted"]["served"] == 0 < data["channels"]["forged"]["served"]  # label trusts labels
    isolation = data["isolation_figures"]
    assert isolation["enforcer"] == "sut" and isolation["t6"] is None
    assert {name: p["leaks"] for name, p in isolation["probes"].items()} == {t.probe: 0 for t in results["label"].probes()}
    tampered = {**data, "channels": {**data["channels"], "forged": {**data["channels"]["forged"], "served": 0}}}
    with pytest.raises(ValueError, match="channels"):
        FrontdoorResult.from_json(tampered)
