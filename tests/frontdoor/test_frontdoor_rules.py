"""Rules that must hold for every input: the level, cells never safe with a missing verdict, the
scope key injective, a verdict keyed on the canary; and the fixtures are sound."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from lab.frontdoor.channels import CHANNELS, Channel
from lab.frontdoor.fixture_types import FAMILIES, Family, problems
from lab.frontdoor.fixtures import FIXTURES, FIXTURES_VERSION, utility_for
from lab.frontdoor.observations import ReadSeen, Role, Served, WriteSeen
from lab.frontdoor.reference import instruction_shaped
from lab.frontdoor.scope import Scope
from lab.frontdoor.verdicts import LEVELS, NA, Leak, Verdict, cell, decide, level, tally

VERDICTS = st.one_of(st.none(), st.sampled_from(Verdict))
CELLS = st.fixed_dictionaries({(f, c): st.lists(VERDICTS, min_size=1, max_size=6) for f in FAMILIES for c in CHANNELS})
PART = st.one_of(st.none(), st.integers(), st.text(max_size=6))


def deciding(family: Family, channel: Channel) -> bool:
    return channel is not Channel.SIGNED or family is Family.INSTRUCTION


def rank(lvl: str) -> int:
    return -1 if lvl == NA else LEVELS.index(lvl)


def cells_of(table):
    return [cell(f, c, v) for (f, c), v in table.items()]


@given(st.lists(VERDICTS, max_size=8))
def test_a_cell_is_never_safe_with_a_missing_verdict(verdicts):
    c = cell(Family.CROWDING, Channel.FORGED, verdicts)
    assert (c.served, c.total, c.no_verdict) == (verdicts.count(Verdict.SERVED), len(verdicts), verdicts.count(None))
    if None in verdicts or not verdicts:
        assert c.status == NA
    assert sum(c.counts.values()) + c.no_verdict == c.total


@given(st.lists(st.one_of(st.none(), st.sampled_from(Leak)), max_size=8))
def test_a_probe_is_never_held_with_a_missing_verdict(verdicts):
    t = tally("p", verdicts)
    assert t.status != "held" or (verdicts and None not in verdicts and Leak.LEAKED not in verdicts)


@settings(max_examples=120)
@given(CELLS)
def test_the_level_rule(table):
    lvl = level(cells_of(table))
    by_channel = {ch: [v for (f, c), vs in table.items() if c is ch and deciding(f, c) for v in vs] for ch in CHANNELS}
    steps = [by_channel[Channel.UNTRUSTED], by_channel[Channel.FORGED], by_channel[Channel.SIGNED]]
    held = [Verdict.SERVED not in step and None not in step for step in steps]
    assert (lvl == "P0") == (Verdict.SERVED in steps[0])
    for i in range(1, 4):  # Pi needs every earlier step held
        if rank(lvl) >= i:
            assert all(held[:i])
    if lvl == NA:
        assert any(None in step for step in steps)
    if all(held):
        assert lvl == "P3"


@given(CELLS, st.sampled_from([(f, c) for f in FAMILIES for c in CHANNELS]))
def test_a_missing_verdict_never_raises_the_level(table, where):
    before = level(cells_of(table))
    after = level(cells_of({**table, where: [*table[where], None]}))
    assert after in (before, NA)


@given(CELLS, st.lists(VERDICTS, min_size=1, max_size=6))
def test_the_level_ignores_cells_that_do_not_decide_it(table, other):
    changed = {k: (other if not deciding(*k) else v) for k, v in table.items()}
    assert level(cells_of(changed)) == level(cells_of(table))


def test_a_missing_channel_is_na():
    assert level([cell(f, Channel.UNTRUSTED, [Verdict.KEPT_OUT]) for f in FAMILIES]) == NA


def test_a_signed_plausible_fact_kept_out_is_not_a_pass():
    assert cell(Family.PLANTED_FACT, Channel.SIGNED, [Verdict.KEPT_OUT] * 5).status == "beyond reach"
    assert cell(Family.INSTRUCTION, Channel.SIGNED, [Verdict.KEPT_OUT] * 5).status == "held"


@given(st.tuples(PART, PART, PART), st.tuples(PART, PART, PART))
def test_the_scope_key_is_injective(a, b):
    left, right = Scope(tenant=a[0], user=a[1], session=a[2]), Scope(tenant=b[0], user=b[1], session=b[2])
    same = all(type(x) is type(y) and x == y for x, y in zip(a, b))
    assert (left.key() == right.key()) == same == (left == right)
    assert Scope.from_json(left.to_json()) == left


def _reads(verdict_served: list[Served], fixture) -> list[ReadSeen]:
    scope, util = Scope(), utility_for(fixture)
    ok = (Served(text=fixture.genuine[0].text),)
    def r(role, served):
        return ReadSeen(role=role, scope=scope, query="q", k=5, served=served)
    return [r(Role.BEFORE, tuple(Served(text=m.text) for m in fixture.genuine)), r(Role.VERDICT, tuple(verdict_served)),
            r(Role.CONTROL, ok), r(Role.UTILITY, (Served(text=util.memory.text),))]


@given(st.lists(st.tuples(st.booleans(), st.sampled_from(["canary", "genuine", "other"])), max_size=4),
       st.booleans())
def test_a_verdict_keys_on_the_canary_and_the_marker(served, accepted):
    fixture = FIXTURES[0]
    text = {"canary": f"Reworded: {fixture.canary}!", "genuine": fixture.genuine[0].text, "other": "nothing here"}
    records = [Served(text=text[kind], marker="flag" if marked else None) for marked, kind in served]
    attack = WriteSeen(role=Role.ATTACK, scope=Scope(), text=fixture.attack[0], label="x", signature=None,
                       accepted=accepted)
    got = decide(fixture, utility_for(fixture), [attack], _reads(records, fixture)).verdict
    carrying = [marked for marked, kind in served if kind == "canary"]
    if carrying and not all(carrying):
        assert got is Verdict.SERVED
    elif carrying:
        assert got is Verdict.MARKED
    else:
        assert got is (Verdict.KEPT_OUT if accepted else Verdict.REJECTED)


def test_the_fixtures_are_sound():
    assert FIXTURES_VERSION >= 1
    assert Counter(f.family for f in FIXTURES) == {f: 5 for f in FAMILIES}
    assert len({f.id for f in FIXTURES}) == len(FIXTURES)
    assert len({f.canary for f in FIXTURES}) == len(FIXTURES)
    assert {f.id: problems(f) for f in FIXTURES if problems(f)} == {}
    assert all(len(f.genuine) == 6 for f in FIXTURES if f.family is Family.CROWDING)


def test_the_content_check_catches_every_instruction_and_no_genuine_memory():
    for f in FIXTURES:
        assert not any(instruction_shaped(m.text) for m in f.genuine), f.id
        assert all(instruction_shaped(t) == (f.family is Family.INSTRUCTION) for t in f.attack), f.id
