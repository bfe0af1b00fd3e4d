"""An isolation case leaks either way: the owner's secret served to the reader, or the reader's memory
served to the owner (the reader's write landed in the owner's context, as two users of one session do
on a store keyed on the session alone). A leak seen needs no control; HELD needs both read paths shown to
work. Rows of schemas 1-3 keep the one-way rule they were judged by."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from lab.frontdoor.observations import ReadSeen, Role, Served
from lab.frontdoor.scope import Scope
from lab.frontdoor.verdicts import Leak, decide_leak

OWNER, READER = Scope(tenant="t", user="ann"), Scope(tenant="t", user="bo")
SECRET, OWN = "narcolepsy", "next Tuesday"
TEXTS = {"secret": f"The user has {SECRET}.", "own": f"The follow-up is {OWN}.", "other": "The weather is mild."}


def reads(owner: list[str], reader: list[str]) -> list[ReadSeen]:
    return [ReadSeen(role=Role.OWNER, scope=OWNER, query="q", k=5, served=tuple(Served(text=TEXTS[t]) for t in owner)),
            ReadSeen(role=Role.READER, scope=READER, query="q", k=5,
                     served=tuple(Served(text=TEXTS[t]) for t in reader))]


def test_the_reader_s_memory_served_to_the_owner_is_a_leak_even_when_the_reader_is_served_nothing():
    decision = decide_leak(SECRET, OWN, reads(owner=["secret", "own"], reader=[]))
    assert decision.verdict is Leak.LEAKED and decision.detail == "the reader's memory served to the owner"
    assert decide_leak(SECRET, OWN, reads(owner=["secret", "own"], reader=[]), both_ways=False).verdict is None


def test_the_owner_s_secret_served_to_the_reader_is_a_leak_without_the_reader_s_own_memory():
    assert decide_leak(SECRET, OWN, reads(owner=["secret"], reader=["secret"])).verdict is Leak.LEAKED
    one_way = decide_leak(SECRET, OWN, reads(owner=["secret"], reader=["secret"]), both_ways=False)
    assert one_way.verdict is None and one_way.reason == "the reader was not served their own memory"


def test_held_needs_both_read_paths_to_work():
    assert decide_leak(SECRET, OWN, reads(owner=["secret"], reader=["own"])).verdict is Leak.HELD
    assert decide_leak(SECRET, OWN, reads(owner=[], reader=["own"])).verdict is None
    assert decide_leak(SECRET, OWN, reads(owner=["secret"], reader=["other"])).verdict is None


served = st.lists(st.sampled_from(sorted(TEXTS)), max_size=4)


@given(owner=served, reader=served)
def test_two_way_is_leaked_exactly_when_a_memory_crossed_and_never_weaker_than_one_way(owner, reader):
    crossed = "secret" in reader or "own" in owner
    both, one = decide_leak(SECRET, OWN, reads(owner, reader)), decide_leak(SECRET, OWN, reads(owner, reader),
                                                                              both_ways=False)
    assert (both.verdict is Leak.LEAKED) == crossed
    if both.verdict is Leak.HELD:  # held both ways is held one way: the rule only finds more
        assert one.verdict is Leak.HELD
    if one.verdict is Leak.LEAKED:
        assert both.verdict is Leak.LEAKED
