"""Unordered memory with a metadata layer (docs/method.md: only unordered key-value memory with no
metadata layer cannot express T2/T4/T8): T2 and T4 are measured there, and T4's effect is seen
in the exchanged order key the read serves, not in an order served at random."""

from lab.cases import BY_ID, not_applicable
from lab.cases.evidence import RecordView
from lab.judge.effects import effect
from lab.profile.model import Capabilities

SPEC = {"case": "T4", "target": "mA1-aaaaaa", "second": "mA3-bbbbbb"}


def _served(*records):
    return [{"text": f"[{m}] note", "meta": meta} for m, meta in records]


def test_unordered_with_metadata_measures_t2_and_t4_without_metadata_they_are_na():
    with_meta = Capabilities(erasure="record", order=False, metadata=True)
    bare = Capabilities(erasure="record", order=False, metadata=False)
    assert not_applicable(BY_ID["T2"], with_meta) is None and not_applicable(BY_ID["T4"], with_meta) is None
    for case in ("T2", "T4", "T8"):
        assert "no metadata layer" in not_applicable(BY_ID[case], bare)


def test_an_exchanged_served_timestamp_is_the_effect_whatever_order_the_records_come_in():
    c1 = _served(("mA3-bbbbbb", {"created_at": "03", "role": "user"}), ("mA1-aaaaaa", {"created_at": "01", "role": "user"}))
    now = _served(("mA1-aaaaaa", {"created_at": "03", "role": "user"}), ("mA3-bbbbbb", {"created_at": "01", "role": "user"}))
    seen = effect("T4", SPEC, now, c1, ordered=False)
    assert seen["visible"] and "created_at" in seen["detail"] and "role" not in seen["detail"]


def test_an_unordered_store_whose_served_metadata_did_not_exchange_shows_no_effect():
    c1 = _served(("mA1-aaaaaa", {"created_at": "01"}), ("mA3-bbbbbb", {"created_at": "03"}))
    shuffled = _served(("mA3-bbbbbb", {"created_at": "03"}), ("mA1-aaaaaa", {"created_at": "01"}))
    assert not effect("T4", SPEC, shuffled, c1, ordered=False)["visible"]  # served in another order: no effect
    assert effect("T4", SPEC, shuffled, c1)["visible"]  # the same answer on an ordered store is the swap


def test_exchanged_records_not_served_show_no_effect():
    c1 = _served(("mA1-aaaaaa", {"created_at": "01"}), ("mA3-bbbbbb", {"created_at": "03"}))
    assert not effect("T4", SPEC, _served(("mA1-aaaaaa", {"created_at": "03"})), c1, ordered=False)["visible"]



def _entries(markers, placed):
    """A context's map entries as the editor reads them: in store order, with an order or none."""
    return [{"context": "A", "identity": [f"k{m}"], "order": i if placed else None, "payload": f"[{m}] v",
             "metadata": {}, "fields": {"@key": f"k{m}", "@value": f"[{m}] v"}} for i, m in enumerate(markers)]


def _c3(case, spec, before, after):
    layout = {"backend": "postgres", "order": "@position", "identity": ["@key"], "payload": {"field": "state"}}
    return BY_ID[case].rule(RecordView(layout), {"case": case, **spec}, before, after)


def _replayed(before, target, donor):
    value = next(r for r in before if donor in r["payload"])["payload"]
    return [dict(r, payload=value, fields=dict(r["fields"], **{"@value": value})) if target in r["payload"] else r
            for r in before]


#: A jsonb order of A's five entries (shorter keys first, then bytewise): not the order they were written.
STORE = ["mA3-cccccc", "mA5-eeeeee", "mA2-bbbbbb", "mA1-aaaaaa", "mA4-dddddd"]


def test_a_map_whose_store_orders_its_keys_itself_has_no_place_for_c3_to_check():
    """The lab picks T3's middle record and T7's older donor by the order written (the seed plan); where
    the editor reads the entries with no order (jsonb), C3 does not read the store's place as that order."""
    t3_spec, t7_spec = {"target": "mA3-cccccc"}, {"target": "mA5-eeeeee", "donor": "mA1-aaaaaa"}
    for placed in (True, False):
        before = _entries(STORE, placed)
        t3 = _c3("T3", t3_spec, before, [r for r in before if "mA3" not in r["payload"]])
        t7 = _c3("T7", t7_spec, before, _replayed(before, "mA5", "mA1"))
        if placed:  # read as ordered, the store's place decides: mA3 is first, the donor mA1 comes after mA5
            assert t3 == ["the deleted record was first or last, not in the middle"], t3
            assert t7 == ["the donor is not an older record of the same context"], t7
        else:
            assert t3 == [] and t7 == [], (t3, t7)
