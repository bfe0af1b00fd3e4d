"""Score, group rates and levels on hand-made cells."""

from lab.cases import CASE_IDS
from lab.judge.scoring import level, score


def cells(verdict="REJECTED", point="read", **over):
    out = {cid: {"verdict": verdict, "detection_point": point} for cid in CASE_IDS}
    for cid, v in over.items():
        out[cid] = {"verdict": v, "detection_point": point}
    return out


def test_all_rejected_is_l4_and_full_metric():
    s = score(cells(), evaluable=True)
    assert s["metric"] == 1.0 and s["level"] == "L4"
    assert s["groups"] == {"T1-T5": 1.0, "T6-T8": 1.0, "T9": 1.0, "T10": 1.0}


def test_sealed_beside_shape_is_l3_metric_point_eight():
    s = score(cells(T9="ACCEPTED", T10="ACCEPTED"), evaluable=True)
    assert s["metric"] == 0.8 and s["level"] == "L3"
    assert s["groups"]["T9"] == 0.0 and s["groups"]["T6-T8"] == 1.0


def test_audit_only_reports_are_half_credit():
    c = cells("REPORTED", "audit", T9="ACCEPTED", T10="ACCEPTED")
    s = score(c, evaluable=True)
    assert s["metric"] == 0.4
    assert s["level"] == "L0"  # levels need REJECTED at the read point
    assert s["counts"]["partial"] == 8 and s["counts"]["passes"] == 0


def test_na_and_error_are_excluded_from_n():
    s = score(cells(T2="n/a", T4="n/a", T8="error"), evaluable=True)
    assert s["counts"]["N"] == 7 and s["counts"]["na"] == 2 and s["counts"]["errors"] == 1
    assert s["metric"] == 1.0


def test_level_climb_stops_at_first_gap():
    assert level(cells(T3="ACCEPTED")) == "L0"
    assert level(cells(T7="n/a")) == "L1"
    assert level(cells(T8="REPORTED")) == "L2"  # REPORTED is a pass but not a level


def test_not_evaluable_has_no_metric_or_level():
    assert score(cells(), evaluable=False) == {"metric": None, "counts": None, "groups": None, "level": None}


def test_nothing_applicable_has_no_metric():
    assert score(cells("n/a"), evaluable=True)["metric"] is None
