"""The judging rules of row schema 4 beside those of schemas 1-3 (``verdicts.Rules``): a refused attack
is REJECTED, and one served only under the SUT's own marker MARKED, whatever the trust filter serves,
and a stored text is found with its spacing and case folded. (The third, isolation either way, is in
test_frontdoor_isolation_ways.py.)"""

from __future__ import annotations

import pytest
from frontdoor_stores import LabelRefusingTagBlindStore, MarkUntrustedTagBlindStore
from hypothesis import given
from hypothesis import strategies as st

from lab.frontdoor.as_sent import folded, holds
from lab.frontdoor.channels import Adversary, Channel, GenuineSide
from lab.frontdoor.fixture_types import Family
from lab.frontdoor.fixtures import FIXTURES, utility_for
from lab.frontdoor.results import SCHEMA_V3, FrontdoorResult, rules_of
from lab.frontdoor.runner import run_row
from lab.frontdoor.verdicts import BEFORE_4, Verdict, decide

SEEDS = dict(genuine=GenuineSide(bytes(range(32))), adversary=Adversary(bytes(range(1, 33))))


@pytest.mark.parametrize("store, defence", [(LabelRefusingTagBlindStore, Verdict.REJECTED),
                                             (MarkUntrustedTagBlindStore, Verdict.MARKED)])
def test_a_defence_needs_no_trust_filter_control(store, defence):
    """The untrusted trust-tag fixtures on a store with no tag filter: refused (REJECTED) or served under the
    store's own marker (MARKED), where schemas 1-3 left them without a verdict; the accepted, unmarked
    forged ones still need the control, and a schema-3 row holding these verdicts does not follow."""
    tags = [f for f in FIXTURES if f.family is Family.TRUST_TAG]
    result = run_row(store.__name__, store, fixtures=tags, probes=[], **SEEDS)
    untrusted = [o for o in result.poisoning if o.channel is Channel.UNTRUSTED]
    assert untrusted and {o.decision.verdict for o in untrusted} == {defence}
    assert {decide(f := next(x for x in tags if x.id == o.fixture), utility_for(f), o.writes, o.reads,
                   rules=BEFORE_4).verdict for o in untrusted} == {None}
    forged = [o for o in result.poisoning if o.channel is Channel.FORGED]
    assert {o.decision.verdict for o in forged} == {None}
    old = FrontdoorResult.model_validate({**result.model_dump(by_alias=True), "schema": SCHEMA_V3})
    assert old.recheck()


def test_each_row_schema_is_judged_by_its_own_rules():
    assert rules_of(SCHEMA_V3) == BEFORE_4 and rules_of(FrontdoorResult.model_fields["schema_"].default).fold


texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)


@given(texts)
def test_a_text_kept_with_its_spacing_collapsed_and_first_letter_raised_still_holds_what_was_sent(sent):
    kept = " ".join(sent.split())
    kept = kept[:1].upper() + kept[1:]
    assert holds(sent, kept)
    assert holds(sent, sent, fold=False) and holds(sent, f"prefix {sent} suffix", fold=False)


@given(texts, texts)
def test_folding_only_finds_more(sent, kept):
    if holds(sent, kept, fold=False):
        assert holds(sent, kept)
    assert folded(folded(sent)) == folded(sent)
