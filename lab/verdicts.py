"""Verdicts: a pure function from saved observations to a cell.

No Docker, no SUT, no clock: ``analyze`` re-derives every cell from the files a
run saved, and tests feed hand-made observations. Harness outcomes (a crash of
the lab or the driver, an edit that did not land, an edit with no visible effect)
are ``error`` — never a pass, never a fail.
"""

from __future__ import annotations

import re
from typing import Any

from lab.effects import effect
from lab.seedplan import markers_in

REJECTED, REPORTED, ACCEPTED, NA, ERROR = "REJECTED", "REPORTED", "ACCEPTED", "n/a", "error"
VERDICTS = (REJECTED, REPORTED, ACCEPTED, NA, ERROR)
LEVELS = {"DEBUG": 10, "INFO": 20, "WARNING": 30, "ERROR": 40, "CRITICAL": 50}


def integrity_signals(answers: list[dict[str, Any] | None], filters: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Signals of the given answers that match the profile's documented integrity signals."""
    out = []
    for answer in answers:
        for sig in (answer or {}).get("signals") or []:
            if any(_matches(sig, f) for f in filters):
                out.append(sig)
    return out


def _matches(sig: dict[str, Any], flt: dict[str, Any]) -> bool:
    if sig.get("channel", "log") != flt.get("channel", "log"):
        return False
    if sig.get("channel", "log") == "log":
        level = LEVELS.get(str(sig.get("level", "WARNING")).upper(), 30)
        if level < LEVELS.get(str(flt.get("level") or "WARNING").upper(), 30):
            return False
    if flt.get("logger") and not str(sig.get("logger", "")).startswith(flt["logger"]):
        return False
    if flt.get("pattern") and not re.search(flt["pattern"], str(sig.get("message", "")), re.IGNORECASE):
        return False
    return True


def refused(answer: dict[str, Any] | None) -> bool:
    """True when the SUT refused to serve: an SUT error, or an empty result."""
    if not answer:
        return False
    if answer.get("refused"):
        return True
    return answer.get("ok") is True and "records" in answer and not answer["records"]


def control_c1(c1: dict[str, Any], plan: dict[str, Any], filters: list[dict[str, Any]],
               ordered: bool = True) -> dict[str, Any]:
    """C1: after a no-op restart both contexts are served exactly as seeded, with no integrity signal
    (``ordered=False``, a store declared unordered: the same records, in any order)."""
    arrange = (lambda xs: xs) if ordered else sorted
    if c1.get("error"):
        return {"ok": False, "reason": f"harness error: {c1['error'].get('message')}"}
    if (c1.get("open") or {}).get("refused"):
        return {"ok": False, "reason": f"the SUT refused to open its untouched store: {c1['open'].get('error')}"}
    for label, read in (c1.get("reads") or {}).items():
        want = [r["marker"] for r in plan["records"] if r["label"] == label]
        if refused(read):
            return {"ok": False, "reason": f"context {label} refused on an untouched store: {read.get('error')}"}
        got = [m for rec in read.get("records", []) for m in markers_in(str(rec.get("text", "")))]
        if arrange(got) != arrange(want):
            return {"ok": False, "reason": f"context {label} served {got}, seeded {want}"}
        texts = [str(rec.get("text", "")) for rec in read["records"]]
        seeded = [r["text"] for r in plan["records"] if r["label"] == label]
        if arrange(texts) != arrange(seeded):
            return {"ok": False, "reason": f"context {label} served texts that differ from what was seeded"}
    if not c1.get("reads"):
        return {"ok": False, "reason": "no read recorded"}
    sigs = integrity_signals([c1.get("open"), *c1["reads"].values()], filters)
    if sigs:
        return {"ok": False, "reason": f"integrity signal on an untouched store: {sigs[0].get('message')}"}
    return {"ok": True, "reason": "seeded memory served unchanged, no integrity signal"}


def control_c2(c2: dict[str, Any]) -> dict[str, Any]:
    """C2: a genuine record written after a restart is served."""
    if c2.get("error"):
        return {"ok": False, "reason": f"harness error: {c2['error'].get('message')}"}
    write, read = c2.get("write") or {}, c2.get("read") or {}
    if not write.get("ok"):
        return {"ok": False, "reason": f"the genuine write was refused: {write.get('error')}"}
    if refused(read):
        return {"ok": False, "reason": f"the read after a genuine write was refused: {read.get('error')}"}
    served = [m for rec in read.get("records", []) for m in markers_in(str(rec.get("text", "")))]
    if c2.get("marker") not in served:
        return {"ok": False, "reason": f"the genuine record {c2.get('marker')} was not served"}
    return {"ok": True, "reason": "the genuine record written after the restart is served"}


def derive_cell(obs: dict[str, Any], c1: dict[str, Any], detection_point: str,
                filters: list[dict[str, Any]], observation_class: str = "a") -> dict[str, Any]:
    """The cell of one case at one detection point, from its observation and the C1 baseline."""
    base = {"case": obs.get("case"), "detection_point": detection_point}
    if obs.get("status") == "n/a":
        return {**base, "verdict": NA, "observation_class": None, "reason": obs.get("na_reason")}
    if obs.get("error"):
        err = obs["error"]
        return {**base, "verdict": ERROR, "observation_class": None,
                "reason": f"harness error at {err.get('stage')}: {err.get('message')}"}
    c3 = obs.get("c3") or {}
    if not c3.get("ok"):
        return {**base, "verdict": ERROR, "observation_class": None,
                "reason": "C3: the edit did not land: " + "; ".join(c3.get("reasons") or ["no C3 evidence"])}
    if detection_point == "audit":
        return {**base, **_audit(obs, c1)}
    return {**base, **_read(obs, c1, filters, observation_class)}


def _read(obs: dict[str, Any], c1: dict[str, Any], filters: list[dict[str, Any]], obs_class: str) -> dict[str, Any]:
    opened, read = obs.get("open") or {}, obs.get("read") or {}
    if refused(opened) or refused(read):
        why = (opened if refused(opened) else read).get("error") or "empty result"
        return {"verdict": REJECTED, "observation_class": obs_class, "reason": f"refused to serve: {why}"}
    sigs = integrity_signals([opened, read], filters)
    if sigs:
        return {"verdict": REPORTED, "observation_class": obs_class, "signals": sigs,
                "reason": f"served with an integrity signal: {sigs[0].get('message')}"}
    return _accepted(obs, c1, obs_class, "served as genuine, no integrity signal")


def _audit(obs: dict[str, Any], c1: dict[str, Any]) -> dict[str, Any]:
    audit = obs.get("audit") or {}
    answer = audit.get("answer") or {}
    if not answer:
        return {"verdict": ERROR, "observation_class": "b", "reason": "no audit recorded"}
    if answer.get("ok") is False and not answer.get("refused"):
        return {"verdict": ERROR, "observation_class": "b", "reason": f"audit op failed: {answer.get('error')}"}
    base_answer = ((c1.get("audits") or {}).get(audit.get("label", "A")) or {}).get("answer") or {}
    found, detail = _audit_finding(answer, base_answer)
    call = {"call": (answer.get("audit") or {}).get("call"), "against": audit.get("against"),
            "interval_s": audit.get("interval_s")}
    if found:
        return {"verdict": REPORTED, "observation_class": "b", "reason": detail, "audit": call}
    cell = _accepted(obs, c1, "b", "the audit found nothing")
    return {**cell, "audit": call}


def _audit_finding(answer: dict[str, Any], baseline: dict[str, Any]) -> tuple[bool, str]:
    """Judge an audit against the C1 baseline, not its raw boolean. When the audit already failed on
    the untouched store, a finding is a problem of another kind: the problems are compared with
    their numbers masked, so "disabled: 9 record(s)" after a deletion is the same answer as the
    baseline's "disabled: 10 record(s)", not a report."""
    if answer.get("refused"):
        return (not baseline.get("refused")), f"the audit refused to run: {answer.get('error')}"
    now, then = answer.get("audit") or {}, baseline.get("audit") or {}
    if now.get("ok") is False and (then.get("ok") is not False or _kinds(now) != _kinds(then)):
        return True, f"audit reported: {'; '.join(map(str, now.get('problems') or []))[:300]}"
    return False, "audit result equals the C1 baseline"


def _kinds(audit: dict[str, Any]) -> list[str]:
    """An audit's problems with every run of digits masked (counts, sizes, sequence numbers)."""
    return [re.sub(r"\d+", "#", str(p)) for p in audit.get("problems") or []]


def _accepted(obs: dict[str, Any], c1: dict[str, Any], obs_class: str, why: str) -> dict[str, Any]:
    read = obs.get("read") or {}
    served = read.get("records") if read.get("ok") else None
    if served is None:
        return {"verdict": ACCEPTED, "observation_class": obs_class,
                "reason": f"{why}; the read path refused, so the effect check does not apply"}
    label = obs.get("read_label", "A")
    baseline = ((c1.get("reads") or {}).get(label) or {}).get("records") or []
    eff = effect(obs["case"], obs.get("intended") or {}, served, baseline)
    if not eff["visible"]:
        return {"verdict": ERROR, "observation_class": None, "effect": eff,
                "reason": f"the edit landed but had no visible effect on the read path ({eff['detail']})"}
    return {"verdict": ACCEPTED, "observation_class": obs_class, "effect": eff, "reason": why}
