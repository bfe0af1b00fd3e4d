"""T7's effect check: the newest record replaced by an older one is visible whether the SUT serves
the replayed copy beside the donor or folds it into the donor (same record id in the payload)."""

from lab.judge.effects import effect

SPEC = {"target": "mA4-aaaaaa", "donor": "mA0-bbbbbb"}


def _served(*markers):
    return [{"text": f"[{m}] note", "meta": {}} for m in markers]


def test_replayed_copy_served_twice_is_visible():
    assert effect("T7", SPEC, _served("mA0-bbbbbb", "mA1-cccccc", "mA0-bbbbbb"), [])["visible"]


def test_replayed_copy_folded_into_the_donor_is_visible():
    assert effect("T7", SPEC, _served("mA0-bbbbbb", "mA1-cccccc"), [])["visible"]


def test_newest_still_served_is_no_effect():
    assert not effect("T7", SPEC, _served("mA0-bbbbbb", "mA1-cccccc", "mA4-aaaaaa"), [])["visible"]
    assert not effect("T7", SPEC, _served("mA1-cccccc"), [])["visible"]
