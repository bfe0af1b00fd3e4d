"""The ledger: examples of each op, the precedence, and a stateful test against an independent model."""

import hypothesis.strategies as st
from hypothesis import given, settings
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from lab.lifecycle.ledger import PRECEDENCE, Known, Label, Ledger
from lab.lifecycle.scenario import Scope, Step

ALICE, BOB = Scope("acme", "alice"), Scope("acme", "bob")
ALICE_GLOBEX, CAROL_GLOBEX = Scope("globex", "alice"), Scope("globex", "carol")
SCOPES = (ALICE, BOB, ALICE_GLOBEX, CAROL_GLOBEX)
P1 = {Label.DELETED, Label.FOREIGN_USER, Label.FOREIGN_TENANT}


class Steps:
    """Builds Steps with consecutive indices."""

    def __init__(self):
        self.n = 0

    def __call__(self, op, scope=ALICE, **fields):
        self.n += 1
        return Step(index=self.n - 1, line=self.n, op=op, scope=scope, **fields)


def play(*steps, ttl=True):
    ledger = Ledger(ttl=ttl)
    for step in steps:
        ledger.apply(step)
    return ledger


def labels(ledger, scope):
    return {k.value: k.label for k in ledger.known(scope)}


def test_write_then_correct_leaves_the_first_value_stale():
    s = Steps()
    ledger = play(s("write", key="office", value="Lisbon"), s("correct", key="office", value="Porto"))
    assert ledger.current(ALICE, "office") == "Porto"
    assert labels(ledger, ALICE) == {"Lisbon": Label.STALE, "Porto": Label.CURRENT}


def test_delete_marks_the_whole_history_deleted_and_a_rewrite_re_adds():
    s = Steps()
    ledger = play(s("write", key="k", value="v1"), s("correct", key="k", value="v2"), s("delete", key="k"))
    assert ledger.current(ALICE, "k") is None and ledger.state(ALICE, "k") is Label.DELETED
    assert labels(ledger, ALICE) == {"v1": Label.DELETED, "v2": Label.DELETED}
    ledger.apply(s("write", key="k", value="v3"))
    assert labels(ledger, ALICE) == {"v1": Label.DELETED, "v2": Label.DELETED, "v3": Label.CURRENT}
    assert ledger.state(ALICE, "k") is Label.CURRENT


def test_other_scopes_are_foreign_user_or_foreign_tenant():
    s = Steps()
    ledger = play(s("write", key="k", value="a"), s("write", BOB, key="k", value="b"),
                  s("write", ALICE_GLOBEX, key="k", value="c"))
    assert labels(ledger, ALICE) == {"a": Label.CURRENT, "b": Label.FOREIGN_USER, "c": Label.FOREIGN_TENANT}
    assert labels(ledger, ALICE_GLOBEX)["a"] is Label.FOREIGN_TENANT  # same user id, other tenant


def test_expiry_is_exactly_now_at_or_past_written_time_plus_ttl():
    s = Steps()
    ledger = play(s("advance_time", steps=5), s("write", key="otp", value="839", ttl_steps=2))
    ledger.apply(s("advance_time", steps=1))
    assert ledger.now == 6 and ledger.current(ALICE, "otp") == "839"
    ledger.apply(s("advance_time", steps=1))
    assert ledger.current(ALICE, "otp") is None and labels(ledger, ALICE) == {"839": Label.EXPIRED}
    assert ledger.state(ALICE, "otp") is Label.EXPIRED


def test_without_ttl_nothing_expires():
    s = Steps()
    ledger = play(s("write", key="otp", value="839", ttl_steps=1), s("advance_time", steps=9), ttl=False)
    assert ledger.current(ALICE, "otp") == "839"


def test_rescope_deletes_at_the_origin_writes_at_the_target_and_keeps_the_expiry():
    s = Steps()
    ledger = play(s("write", key="k", value="v", ttl_steps=3), s("advance_time", steps=1))
    move = s("rescope", key="k", to=BOB)
    assert ledger.rescope_plan(move) == ("v", 2)
    ledger.apply(move)
    assert ledger.current(ALICE, "k") is None and ledger.current(BOB, "k") == "v"
    assert labels(ledger, ALICE) == {"v": Label.DELETED}  # deleted here outranks bob's copy
    ledger.apply(s("advance_time", steps=2))
    assert ledger.current(BOB, "k") is None


def test_rescope_of_nothing_current_only_deletes():
    s = Steps()
    ledger = play(s("write", key="k", value="v"), s("delete", key="k"))
    move = s("rescope", key="k", to=BOB)
    assert ledger.rescope_plan(move) is None
    ledger.apply(move)
    assert ledger.current(BOB, "k") is None and ledger.known(BOB) == [
        Known("k", "v", ALICE, Label.FOREIGN_USER, 0)]


def test_precedence_is_every_label_once_current_first_then_p1_then_p2():
    assert sorted(PRECEDENCE) == sorted(Label) and len(PRECEDENCE) == len(Label)
    assert PRECEDENCE[0] is Label.CURRENT
    assert set(PRECEDENCE[1:4]) == P1
    assert PRECEDENCE == (Label.CURRENT, Label.DELETED, Label.FOREIGN_TENANT, Label.FOREIGN_USER,
                          Label.EXPIRED, Label.STALE)


def test_precedence_on_values_with_several_labels():
    s = Steps()
    ledger = play(s("write", key="k", value="same"), s("write", BOB, key="k", value="same"),
                  s("write", key="x", value="mine"), s("correct", key="x", value="mine2"),
                  s("write", BOB, key="y", value="mine"), s("write", CAROL_GLOBEX, key="z", value="both"),
                  s("write", BOB, key="z", value="both"), s("write", key="t", value="old", ttl_steps=1),
                  s("advance_time", steps=1), s("correct", key="t", value="new"),
                  s("write", key="u", value="early", ttl_steps=1), s("correct", key="u", value="later"),
                  s("advance_time", steps=1))
    got = labels(ledger, ALICE)
    assert got["same"] is Label.CURRENT          # current here beats foreign_user
    assert got["mine"] is Label.FOREIGN_USER     # P1 (bob's) beats P2 (stale here)
    assert got["both"] is Label.FOREIGN_TENANT   # another tenant beats another user
    assert got["old"] is Label.EXPIRED           # expired, then superseded: expired
    assert got["early"] is Label.STALE           # superseded before its TTL ran out: stale (the peer's rule)


def test_known_reports_the_entry_carrying_the_winning_label_and_round_trips():
    s = Steps()
    ledger = play(s("write", BOB, key="k", value="v"), s("write", key="j", value="v"))
    assert ledger.known(ALICE) == [Known("j", "v", ALICE, Label.CURRENT, 1)]
    known = ledger.known(BOB)[0]
    assert Known.from_json(known.to_json()) == known


class Model:
    """An independent model: an append-only event log, every answer recomputed by scanning it."""

    def __init__(self):
        self.log, self.now = [], 0

    def current(self, scope, key):
        for event in reversed(self.log):
            if event[1:3] == (scope, key):
                if event[0] == "del":
                    return None
                ends = event[4]
                return None if ends is not None and self.now >= ends else event[3]
        return None

    def ends(self, scope, key):
        for event in reversed(self.log):
            if event[1:3] == (scope, key):
                return event[4]

    def label(self, index, query):
        kind, scope, key, _value, ends, _at = self.log[index]
        if scope.tenant_id != query.tenant_id:
            return {Label.FOREIGN_TENANT}
        if scope != query:
            return {Label.FOREIGN_USER}
        later = [e for e in self.log[index + 1:] if e[1:3] == (scope, key)]
        found = {Label.DELETED} if any(e[0] == "del" for e in later) else set()
        puts = [e[5] for e in later if e[0] == "put"]
        found |= {Label.STALE} if puts else set()
        # expired: its TTL ran out while it was the key's value (before any later put)
        found |= {Label.EXPIRED} if ends is not None and self.now >= ends and (not puts or puts[0] >= ends) else set()
        return found or {Label.CURRENT}

    def labels(self, query):
        out = {}
        for i, event in enumerate(self.log):
            if event[0] == "put":
                out.setdefault(event[3], set()).update(self.label(i, query))
        return {v: next(lab for lab in PRECEDENCE if lab in found) for v, found in out.items()}


scopes, keys = st.sampled_from(SCOPES), st.sampled_from(["k1", "k2"])
values = st.sampled_from(["v1", "v2", "v3", "v4", "v5"])  # few: values collide across keys and scopes


@settings(max_examples=40, stateful_step_count=25, deadline=None)
class LedgerMachine(RuleBasedStateMachine):
    """The ledger against the model, under random op sequences."""

    @initialize()
    def start(self):
        self.ledger, self.model, self.steps = Ledger(), Model(), Steps()

    @rule(scope=scopes, key=keys, value=values, ttl=st.none() | st.integers(1, 3))
    def write(self, scope, key, value, ttl):
        self.ledger.apply(self.steps("write", scope, key=key, value=value, ttl_steps=ttl))
        self.model.log.append(("put", scope, key, value, None if ttl is None else self.model.now + ttl,
                               self.model.now))

    @rule(scope=scopes, key=keys, value=values)
    def correct(self, scope, key, value):
        self.ledger.apply(self.steps("correct", scope, key=key, value=value))
        self.model.log.append(("put", scope, key, value, None, self.model.now))

    @rule(scope=scopes, key=keys)
    def delete(self, scope, key):
        history = {e[3] for e in self.model.log if e[0] == "put" and e[1:3] == (scope, key)}
        self.ledger.apply(self.steps("delete", scope, key=key))
        self.model.log.append(("del", scope, key, None, None, self.model.now))
        assert self.ledger.current(scope, key) is None
        other = {self.ledger.current(scope, k) for k in ("k1", "k2") if k != key}
        assert all(self.labels(scope).get(v) is not Label.CURRENT for v in history - other)

    @rule(scope=scopes, key=keys, to=scopes)
    def rescope(self, scope, key, to):
        value, ends = self.model.current(scope, key), self.model.ends(scope, key)
        self.ledger.apply(self.steps("rescope", scope, key=key, to=to))
        self.model.log.append(("del", scope, key, None, None, self.model.now))
        if value is not None:
            self.model.log.append(("put", to, key, value, ends, self.model.now))

    @rule(n=st.integers(1, 3))
    def advance(self, n):
        self.ledger.apply(self.steps("advance_time", steps=n))
        self.model.now += n

    def labels(self, scope):
        return {k.value: k.label for k in self.ledger.known(scope)}

    @invariant()
    def agrees_with_the_model(self):
        for scope in SCOPES:
            for key in ("k1", "k2"):
                assert self.ledger.current(scope, key) == self.model.current(scope, key)
            assert self.labels(scope) == self.model.labels(scope)

    @invariant()
    def current_labels_are_exactly_the_current_values(self):
        for scope in SCOPES:
            currents = {self.ledger.current(scope, k) for k in ("k1", "k2")} - {None}
            assert {v for v, lab in self.labels(scope).items() if lab is Label.CURRENT} == currents
            assert len(self.ledger.known(scope)) == len(self.labels(scope))  # one entry per value


TestLedgerMachine = LedgerMachine.TestCase


@settings(max_examples=60, deadline=None)
@given(start=st.integers(0, 5), ttl=st.integers(1, 6), waits=st.lists(st.integers(1, 4), max_size=4))
def test_a_value_lives_exactly_ttl_steps(start, ttl, waits):
    s = Steps()
    ledger = play(s("advance_time", steps=start + 1), s("write", key="k", value="v", ttl_steps=ttl))
    for wait in waits:
        ledger.apply(s("advance_time", steps=wait))
    alive = sum(waits) < ttl
    assert (ledger.current(ALICE, "k") == "v") is alive
    assert labels(ledger, ALICE)["v"] is (Label.CURRENT if alive else Label.EXPIRED)
