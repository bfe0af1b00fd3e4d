"""C1 on a store declared unordered (capabilities.order false): the same records in any order
pass; a missing or changed record still fails. An ordered store keeps the strict comparison."""

from lab.judge.verdicts import control_c1

PLAN = {"records": [{"label": "A", "marker": f"mA{i}-abcdef", "text": f"[mA{i}-abcdef] note {i}"} for i in range(3)]}


def c1(order):
    return {"reads": {"A": {"ok": True, "signals": [],
                            "records": [{"id": str(i), "text": f"[mA{i}-abcdef] note {i}"} for i in order]}}}


def test_an_unordered_store_may_serve_the_seeded_records_in_any_order():
    assert control_c1(c1([2, 0, 1]), PLAN, [], ordered=False)["ok"]
    assert not control_c1(c1([2, 0, 1]), PLAN, [])["ok"]


def test_an_unordered_store_must_still_serve_every_seeded_record():
    assert not control_c1(c1([2, 0]), PLAN, [], ordered=False)["ok"]
