"""Unordered memory with a metadata layer (docs/method.md: only unordered key-value memory with no
metadata layer cannot express T2/T4/T8): T2 and T4 are measured there, and T4's effect is seen
in the exchanged order key the read serves, not in an order served at random."""

from lab.cases import BY_ID, not_applicable
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
