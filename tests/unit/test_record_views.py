"""A later read of a store shares its unchanged records with the earlier read (lab.method.record_views):
the result is the read as it was, to every byte a file or a signature of C3 shows, and no record of the
earlier read is shared twice; a record that changed only in a JSON type (1, 1.0, true, -0.0) is not shared."""

from __future__ import annotations

import copy
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from lab.judge.json_same import same
from lab.method.record_views import shared, views

LEAF = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([0.0, -0.0, 1.0, 2.5]),
                 st.sampled_from(["a", "b", "[m1] x"]))
VALUE = st.recursive(LEAF, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.sampled_from(["k", "j", "hex"]), inner, max_size=3), max_leaves=6)
RECORD = st.fixed_dictionaries({"context": st.sampled_from(["A", "B"]), "payload": st.sampled_from(["p", "q", "r"]),
                                "fields": st.dictionaries(st.sampled_from(["x", "y"]), VALUE, max_size=2)})


def _written(recs):
    return [json.dumps(r, sort_keys=True) for r in recs]


@settings(max_examples=300, deadline=None)
@given(st.lists(RECORD, max_size=8), st.lists(st.tuples(st.integers(0, 9), st.booleans(), RECORD), max_size=8))
def test_the_shared_read_is_the_read_exactly(earlier, edits):
    later = copy.deepcopy(earlier)  # the same store read again, then a few records edited, added or removed
    for at, add, rec in edits:
        if add or not later:
            later.insert(at % (len(later) + 1), rec)
        else:
            later[at % len(later)] = rec
    fresh = copy.deepcopy(later)
    got = shared(copy.deepcopy(later), earlier)
    assert _written(got) == _written(fresh) and list(map(repr, got)) == list(map(repr, fresh))  # types kept
    from_earlier = [id(r) for r in got if any(r is e for e in earlier)]
    assert len(from_earlier) == len(set(from_earlier))  # none shared twice


def test_an_unchanged_store_is_held_once():
    earlier = [{"context": "A", "payload": f"[m{i}]", "fields": {"n": i}} for i in range(50)]
    later = copy.deepcopy(earlier)
    later[10]["fields"]["n"] = 99  # edited
    del later[20]  # deleted
    later.insert(30, {"context": "A", "payload": "[forged]", "fields": {}})  # inserted
    got = shared(later, earlier)
    new = [r for r in got if not any(r is e for e in earlier)]
    assert [r["payload"] for r in new] == ["[m10]", "[forged]"]


def test_a_change_of_json_type_alone_is_not_shared():
    for old, new in ((1, 1.0), (1, True), (0.0, -0.0), ({"a": 1, "b": 2}, {"b": 2, "a": 1})):
        assert old == new and not same(old, new)
        earlier = [{"context": "A", "payload": "p", "fields": {"v": old}}]
        assert shared([{"context": "A", "payload": "p", "fields": {"v": new}}], earlier)[0] is not earlier[0]


def test_views_let_each_record_go_as_it_is_viewed():
    class Rec:
        def __init__(self, n):
            self.n = n

        def to_json(self):
            return {"context": "A", "payload": str(self.n)}

    read = [Rec(n) for n in range(3)]
    earlier = [{"context": "A", "payload": "0"}]
    got = views(read, earlier)
    assert read == [] and got[0] is earlier[0] and got[1:] == [{"context": "A", "payload": "1"},
                                                               {"context": "A", "payload": "2"}]
