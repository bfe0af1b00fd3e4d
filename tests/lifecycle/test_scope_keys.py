"""Scope keys: a tenant and a user folded into one context id never collide with another pair's."""

import hypothesis.strategies as st
from hypothesis import given

from lab.lifecycle.scenario import Scope

IDS = st.text(alphabet=st.sampled_from("ab/%2F5"), max_size=6) | st.text(max_size=8)


@given(IDS, IDS, IDS, IDS)
def test_two_scopes_fold_to_one_id_only_when_they_are_one_scope(t1, u1, t2, u2):
    assert (Scope(t1, u1).folded() == Scope(t2, u2).folded()) == ((t1, u1) == (t2, u2))


def test_ids_without_a_slash_or_percent_fold_as_they_always_did():
    assert Scope("s0-x:acme", "s0-x:alice").folded() == "s0-x:acme/s0-x:alice"
    assert Scope("a/b", "c").folded() != Scope("a", "b/c").folded()
