"""Verdicts and controls from hand-made observations: no SUT, no Docker."""

import pytest

from lab.cases.seedplan import make_plan
from lab.judge.verdicts import control_c1, control_c2, derive_cell

PLAN = make_plan("fixture1")
FILTERS = [{"channel": "log", "level": "WARNING", "pattern": "integrity"}]


def served(label, plan=PLAN, drop=(), extra=()):
    recs = [{"id": str(r.index), "text": r.text, "meta": dict(r.meta)} for r in plan.of(label)
            if r.marker not in drop]
    return recs + [{"id": "x", "text": t, "meta": {}} for t in extra]


def answer(records=None, refused=False, signals=()):
    if refused:
        return {"ok": False, "refused": True, "error": {"type": "IntegrityError", "message": "bad mac"},
                "signals": list(signals)}
    return {"ok": True, "records": records or [], "signals": list(signals)}


C1 = {"case": "C1", "open": {"ok": True, "signals": []},
      "reads": {"A": answer(served("A")), "B": answer(served("B"))}}
A = PLAN.of("A")
T2 = {"case": "T2", "status": "measured", "read_label": "A", "c3": {"ok": True},
      "intended": {"case": "T2", "target": A[-1].marker}}


def test_refusal_is_rejected_at_read():
    obs = {**T2, "open": {"ok": True, "signals": []}, "read": answer(refused=True)}
    cell = derive_cell(obs, C1, "read", FILTERS)
    assert cell["verdict"] == "REJECTED" and cell["observation_class"] == "a"


def test_empty_result_is_rejected():
    obs = {**T2, "open": {"ok": True}, "read": answer([])}
    assert derive_cell(obs, C1, "read", FILTERS)["verdict"] == "REJECTED"


def test_served_with_documented_signal_is_reported():
    sig = {"channel": "log", "level": "WARNING", "logger": "sut", "message": "integrity check failed"}
    obs = {**T2, "open": {"ok": True}, "read": answer(served("A", drop=[A[-1].marker]), signals=[sig])}
    cell = derive_cell(obs, C1, "read", FILTERS)
    assert cell["verdict"] == "REPORTED" and cell["signals"] == [sig]


def test_undocumented_warning_is_not_a_signal():
    sig = {"channel": "log", "level": "WARNING", "message": "deprecated call"}
    obs = {**T2, "open": {"ok": True}, "read": answer(served("A", drop=[A[-1].marker]), signals=[sig])}
    assert derive_cell(obs, C1, "read", FILTERS)["verdict"] == "ACCEPTED"


def test_accepted_needs_a_visible_effect():
    visible = {**T2, "open": {"ok": True}, "read": answer(served("A", drop=[A[-1].marker]))}
    invisible = {**T2, "open": {"ok": True}, "read": answer(served("A"))}
    assert derive_cell(visible, C1, "read", FILTERS)["verdict"] == "ACCEPTED"
    cell = derive_cell(invisible, C1, "read", FILTERS)
    assert cell["verdict"] == "error" and "no visible effect" in cell["reason"]


def test_edit_that_did_not_land_is_error():
    obs = {**T2, "c3": {"ok": False, "reasons": ["raw volume unchanged"]}, "read": answer(served("A"))}
    cell = derive_cell(obs, C1, "read", FILTERS)
    assert cell["verdict"] == "error" and "did not land" in cell["reason"]


def test_harness_error_and_na():
    err = {"case": "T3", "status": "error", "error": {"stage": "driver", "message": "timeout"}}
    na = {"case": "T10", "status": "n/a", "na_reason": "no erasure"}
    assert derive_cell(err, C1, "read", FILTERS)["verdict"] == "error"
    assert derive_cell(na, C1, "read", FILTERS) == {"case": "T10", "detection_point": "read", "verdict": "n/a",
                                                    "observation_class": None, "reason": "no erasure"}


def _audit_obs(ok, problems=()):
    return {**T2, "open": {"ok": True}, "read": answer(served("A", drop=[A[-1].marker])),
            "audit": {"label": "A", "answer": {"ok": True, "audit": {"ok": ok, "problems": list(problems)}}}}


def test_audit_point_is_class_b_and_judged_against_c1():
    c1 = {**C1, "audits": {"A": {"answer": {"ok": True, "audit": {"ok": True, "problems": []}}}}}
    cell = derive_cell(_audit_obs(False, ["chain broken at 4"]), c1, "audit", FILTERS)
    assert cell["verdict"] == "REPORTED" and cell["observation_class"] == "b"
    assert derive_cell(_audit_obs(True), c1, "audit", FILTERS)["verdict"] == "ACCEPTED"


def test_audit_disabled_on_untouched_store_is_not_a_report():
    disabled = {"ok": True, "audit": {"ok": False, "problems": ["disabled"]}}
    c1 = {**C1, "audits": {"A": {"answer": disabled}}}
    assert derive_cell(_audit_obs(False, ["disabled"]), c1, "audit", FILTERS)["verdict"] == "ACCEPTED"
    assert derive_cell(_audit_obs(False, ["disabled", "gap"]), c1, "audit", FILTERS)["verdict"] == "REPORTED"


def test_read_row_gets_no_credit_for_audit_findings():
    c1 = {**C1, "audits": {"A": {"answer": {"ok": True, "audit": {"ok": True, "problems": []}}}}}
    assert derive_cell(_audit_obs(False, ["x"]), c1, "read", FILTERS)["verdict"] == "ACCEPTED"


def test_c1_holds_on_exact_service_and_fails_otherwise():
    plan = PLAN.to_json()
    assert control_c1(C1, plan, FILTERS)["ok"]
    reordered = {**C1, "reads": {"A": answer(list(reversed(served("A")))), "B": answer(served("B"))}}
    assert not control_c1(reordered, plan, FILTERS)["ok"]
    refusing = {**C1, "reads": {"A": answer(refused=True), "B": answer(served("B"))}}
    assert "refused" in control_c1(refusing, plan, FILTERS)["reason"]
    noisy = {**C1, "open": {"ok": True, "signals": [{"channel": "log", "level": "ERROR",
                                                      "message": "integrity: head missing"}]}}
    assert not control_c1(noisy, plan, FILTERS)["ok"]


@pytest.mark.parametrize("write_ok,served_extra,ok", [(True, True, True), (True, False, False), (False, False, False)])
def test_c2(write_ok, served_extra, ok):
    extra = PLAN.extra("A", 5)
    c2 = {"marker": extra.marker,
          "write": {"ok": write_ok, "refused": not write_ok, "error": None if write_ok else "no"},
          "read": answer(served("A", extra=[extra.text] if served_extra else []))}
    assert control_c2(c2)["ok"] is ok


def test_audit_failing_at_baseline_is_judged_by_the_kind_of_problem_not_its_numbers():
    disabled = lambda n: [f"write receipts are DISABLED: {n} record(s) exist with no write chain"]  # noqa: E731
    c1 = {**C1, "audits": {"A": {"answer": {"ok": True, "audit": {"ok": False, "problems": disabled(10)}}}}}
    assert derive_cell(_audit_obs(False, disabled(9)), c1, "audit", FILTERS)["verdict"] == "ACCEPTED"
    assert derive_cell(_audit_obs(False, disabled(9) + ["memory 1a2b: edited after write"]), c1, "audit",
                       FILTERS)["verdict"] == "REPORTED"
