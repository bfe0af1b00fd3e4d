"""Verdicts: a pure function from saved observations to a cell.

No Docker, no SUT, no clock: ``analyze`` re-derives every cell from the files a
run saved, and tests feed hand-made observations. Harness outcomes (a crash of
the lab or the driver, an edit that did not land, an edit with no visible effect)
are ``error`` -- never a pass, never a fail.

Typed over :mod:`lab.judge.observation`: ``judge_cell``, ``judge_c1`` and ``judge_c2`` take
observations and give a :class:`Cell` or a :class:`ControlResult`; ``derive_cell``,
``control_c1`` and ``control_c2`` are the same over plain JSON (hand-made data in tests).
"""

from __future__ import annotations

import re
from typing import Any

from lab.cases.seedplan import markers_in
from lab.judge.effects import effect
from lab.judge.observation import NO_ANSWER, Answer, Cell, ControlResult, Json, Observation, Verdict

LEVELS = {"DEBUG": 10, "INFO": 20, "WARNING": 30, "ERROR": 40, "CRITICAL": 50}


def integrity_signals(answers: list[Answer | None], filters: list[Json]) -> list[Json]:
    """Signals of the given answers that match the profile's documented integrity signals."""
    out = []
    for answer in answers:
        for sig in (answer.signals if answer else None) or []:
            if any(_matches(sig, f) for f in filters):
                out.append(sig)
    return out


def _matches(sig: Json, flt: Json) -> bool:
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


def _markers(answer: Answer) -> list[str]:
    return [m for rec in answer.records or [] for m in markers_in(str(rec.get("text", "")))]


def judge_c1(c1: Observation, plan: Json, filters: list[Json], ordered: bool = True) -> ControlResult:
    """C1: after a no-op restart both contexts are served exactly as seeded, with no integrity signal
    (``ordered=False``, a store declared unordered: the same records, in any order)."""
    arrange = (lambda xs: xs) if ordered else sorted
    if c1.error:
        return ControlResult(ok=False, reason=f"harness error: {c1.error.message}")
    if c1.open and c1.open.refused:
        return ControlResult(ok=False, reason=f"the SUT refused to open its untouched store: {c1.open.error}")
    for label, read in (c1.reads or {}).items():
        want = [r["marker"] for r in plan["records"] if r["label"] == label]
        if read.refused_to_serve:
            return ControlResult(ok=False, reason=f"context {label} refused on an untouched store: {read.error}")
        got = _markers(read)
        if arrange(got) != arrange(want):
            return ControlResult(ok=False, reason=f"context {label} served {got}, seeded {want}")
        texts = [str(rec.get("text", "")) for rec in read.records or []]
        seeded = [r["text"] for r in plan["records"] if r["label"] == label]
        if arrange(texts) != arrange(seeded):
            return ControlResult(ok=False, reason=f"context {label} served texts that differ from what was seeded")
    if not c1.reads:
        return ControlResult(ok=False, reason="no read recorded")
    sigs = integrity_signals([c1.open, *c1.reads.values()], filters)
    if sigs:
        return ControlResult(ok=False, reason=f"integrity signal on an untouched store: {sigs[0].get('message')}")
    return ControlResult(ok=True, reason="seeded memory served unchanged, no integrity signal")


def judge_c2(c2: Observation) -> ControlResult:
    """C2: a genuine record written after a restart is served."""
    if c2.error:
        return ControlResult(ok=False, reason=f"harness error: {c2.error.message}")
    write, read = c2.write or NO_ANSWER, c2.read or NO_ANSWER
    if not write.ok:
        return ControlResult(ok=False, reason=f"the genuine write was refused: {write.error}")
    if read.refused_to_serve:
        return ControlResult(ok=False, reason=f"the read after a genuine write was refused: {read.error}")
    if c2.marker not in _markers(read):
        return ControlResult(ok=False, reason=f"the genuine record {c2.marker} was not served")
    return ControlResult(ok=True, reason="the genuine record written after the restart is served")


def judge_cell(obs: Observation, c1: Observation, detection_point: str, filters: list[Json],
               observation_class: str | None = "a", ordered: bool = True) -> Cell:
    """The cell of one case at one detection point, from its observation and the C1 baseline
    (``ordered`` False: a store declared unordered, for the effect check)."""
    base = {"case": obs.case, "detection_point": detection_point}
    if obs.status == "n/a":
        return Cell(**base, verdict=Verdict.NA, observation_class=None, reason=obs.na_reason)
    if obs.error:
        return Cell(**base, verdict=Verdict.ERROR, observation_class=None,
                    reason=f"harness error at {obs.error.stage}: {obs.error.message}")
    if not (obs.c3 and obs.c3.ok):
        reasons = (obs.c3.reasons if obs.c3 else None) or ["no C3 evidence"]
        return Cell(**base, verdict=Verdict.ERROR, observation_class=None,
                    reason="C3: the edit did not land: " + "; ".join(reasons))
    if detection_point == "audit":
        return Cell(**base, **_audit(obs, c1, ordered))
    return Cell(**base, **_read(obs, c1, filters, observation_class, ordered))


def _read(obs: Observation, c1: Observation, filters: list[Json], obs_class: str | None,
          ordered: bool) -> Json:
    opened, read = obs.open or NO_ANSWER, obs.read or NO_ANSWER
    if opened.refused_to_serve or read.refused_to_serve:
        why = (opened if opened.refused_to_serve else read).error or "empty result"
        return {"verdict": Verdict.REJECTED, "observation_class": obs_class, "reason": f"refused to serve: {why}"}
    sigs = integrity_signals([opened, read], filters)
    if sigs:
        return {"verdict": Verdict.REPORTED, "observation_class": obs_class, "signals": sigs,
                "reason": f"served with an integrity signal: {sigs[0].get('message')}"}
    return _accepted(obs, c1, obs_class, "served as genuine, no integrity signal", ordered)


def _audit(obs: Observation, c1: Observation, ordered: bool) -> Json:
    audit = obs.audit
    answer = audit.answer if audit else None
    if not answer:
        return {"verdict": Verdict.ERROR, "observation_class": "b", "reason": "no audit recorded"}
    if answer.ok is False and not answer.refused:
        return {"verdict": Verdict.ERROR, "observation_class": "b", "reason": f"audit op failed: {answer.error}"}
    base = (c1.audits or {}).get(audit.label)
    found, detail = audit_finding(answer, (base.answer if base else None) or NO_ANSWER)
    call = {"call": (answer.audit or {}).get("call"), "against": audit.against, "interval_s": audit.interval_s}
    if found:
        return {"verdict": Verdict.REPORTED, "observation_class": "b", "reason": detail, "audit": call}
    return {**_accepted(obs, c1, "b", "the audit found nothing", ordered), "audit": call}


def audit_finding(answer: Answer, baseline: Answer) -> tuple[bool, str]:
    """Judge an audit against the C1 baseline, not its raw boolean. When the audit already failed on
    the untouched store, a finding is a problem of another kind: the problems are compared with
    their numbers masked, so "disabled: 9 record(s)" after a deletion is the same answer as the
    baseline's "disabled: 10 record(s)", not a report."""
    if answer.refused:
        return (not baseline.refused), f"the audit refused to run: {answer.error}"
    now, then = answer.audit or {}, baseline.audit or {}
    if now.get("ok") is False and (then.get("ok") is not False or _kinds(now) != _kinds(then)):
        return True, f"audit reported: {'; '.join(map(str, now.get('problems') or []))[:300]}"
    return False, "audit result equals the C1 baseline"


def _kinds(audit: Json) -> list[str]:
    """An audit's problems with every run of digits masked (counts, sizes, sequence numbers)."""
    return [re.sub(r"\d+", "#", str(p)) for p in audit.get("problems") or []]


def _accepted(obs: Observation, c1: Observation, obs_class: str | None, why: str, ordered: bool) -> Json:
    served = obs.read.records if obs.read and obs.read.ok else None
    if served is None:
        return {"verdict": Verdict.ACCEPTED, "observation_class": obs_class,
                "reason": f"{why}; the read path refused, so the effect check does not apply"}
    baseline = (c1.reads or {}).get(obs.read_label) or NO_ANSWER
    eff = effect(obs.case, obs.intended or {}, served, baseline.records or [], ordered)
    if not eff["visible"]:
        return {"verdict": Verdict.ERROR, "observation_class": None, "effect": eff,
                "reason": f"the edit landed but had no visible effect on the read path ({eff['detail']})"}
    return {"verdict": Verdict.ACCEPTED, "observation_class": obs_class, "effect": eff, "reason": why}


# ---- the same over plain JSON --------------------------------------------------------------
def derive_cell(obs: Any, c1: Any, detection_point: str, filters: list[Json],
                observation_class: str | None = "a", ordered: bool = True) -> Json:
    """:func:`judge_cell` over plain JSON observations; the cell as JSON."""
    return judge_cell(Observation.coerce(obs), Observation.coerce(c1), detection_point, filters,
                      observation_class, ordered).to_json()


def control_c1(c1: Any, plan: Json, filters: list[Json], ordered: bool = True) -> Json:
    """:func:`judge_c1` over a plain JSON observation; the control as JSON."""
    return judge_c1(Observation.coerce(c1), plan, filters, ordered).to_json()


def control_c2(c2: Any) -> Json:
    """:func:`judge_c2` over a plain JSON observation; the control as JSON."""
    return judge_c2(Observation.coerce(c2)).to_json()
