"""What composition judges of one trial at one detection point: the edit alone (its at-rest trial), a SUT
move alone (the edit's own effect check on what the read after it served; against a restore move it never
lands when served, its effect being over what the restore's own op changed), what the SUT moves of a
trial already stopped, and each edit of a trial seen as its own at-rest trial would be (a pair's
trial holds two, each with its own C3: :func:`edit_views`).
"""

from __future__ import annotations

from collections.abc import Mapping

from lab.cases import BY_ID
from lab.cases.seedplan import markers_in
from lab.judge.effects import effect
from lab.judge.observation import NO_ANSWER, Answer, Json, Observation, Verdict
from lab.judge.verdicts import audit_finding, integrity_signals, judge_cell

Landed = tuple[bool | None, str]
#: What an edit move of a pair's trial saves beside its name: its edit, as an at-rest trial saves it.
EDIT_KEYS = ("case", "intended", "applied", "c3")


class Point:
    """What judging at one detection point needs: the C1 baseline, the signals, the row's options."""

    def __init__(self, profile: Json, trials: Mapping[str, Observation | None], point: str):
        self.point, self.c1 = point, trials.get("C1") or Observation()
        self.filters = profile.get("signals") or []
        self.cls = profile.get("observation_class", "a")
        self.ordered = (profile.get("capabilities") or {}).get("order", True)

    def cell(self, obs: Observation):
        """The at-rest judge on a trial, what its SUT moves wrote or erased set aside (:func:`as_seeded`)."""
        obs, c1 = as_seeded(obs, self.c1)
        return judge_cell(obs, c1, self.point, self.filters, self.cls, self.ordered)


def as_seeded(obs: Observation, c1: Observation) -> tuple[Observation, Observation]:
    """The trial and the C1 baseline as the edit's effect check must compare them: the records the
    trial's own ``write`` moves added left out of what it served, and the record its ``erase`` moved
    removed left out of the baseline. An effect check then sees what the edit changed, never the SUT's
    own genuine work (one more record is not a reordered one)."""
    moves = [m for m in getattr(obs, "moves", None) or [] if isinstance(m, dict)]
    written = {m.get("marker") for m in moves if m.get("move") == "write"} - {None}
    erased = {m.get("victim") for m in moves if m.get("move") == "erase"} - {None}
    if not (written or erased):
        return obs, c1

    def without(answer: Answer | None, markers: set[str]) -> Answer | None:
        if answer is None or answer.records is None or not markers:
            return answer
        kept = [r for r in answer.records if not set(markers_in(str(r.get("text", "")))) & markers]
        return answer.model_copy(update={"records": kept})

    read = without(obs.read, written)
    base = dict(c1.reads or {})
    if obs.read_label in base:
        base[obs.read_label] = without(base[obs.read_label], erased)
    return obs.model_copy(update={"read": read}), c1.model_copy(update={"reads": base})


def edit_alone(obs: Observation | None, at: Point) -> Landed:
    """The edit alone: its at-rest trial's verdict at this point."""
    if obs is None:
        return None, "its at-rest trial is missing"
    cell = at.cell(obs)
    if cell.verdict == Verdict.ACCEPTED:
        return True, f"ACCEPTED at rest: {cell.reason}"
    if cell.verdict in (Verdict.REJECTED, Verdict.REPORTED):
        return False, f"{cell.verdict.value} at rest: {cell.reason}"
    if cell.effect is not None and not cell.effect.get("visible"):
        return False, f"served at rest with no visible effect ({cell.effect.get('detail')})"
    return None, f"{cell.verdict.value} at rest: {cell.reason}"


def sut_alone(obs: Observation | None, edits: list[tuple[str, str, Json]], at: Point) -> Landed:
    """A SUT move alone: does what the read after it served show an edit's effect (``edits``: the
    sequence's, each ``(move, case, intended)``), unrefused and with no integrity signal?"""
    if obs is None:
        return None, "not measured"
    if obs.error:
        return None, f"harness error at {obs.error.stage}: {obs.error.message}"
    stopped = stopped_by_moves(obs, at)
    if stopped:
        return stopped
    seen, c1 = as_seeded(obs, at.c1)
    read = seen.read or NO_ANSWER
    if read.refused_to_serve or not read.ok:
        return False, f"refused to serve: {read.error}"
    baseline = (c1.reads or {}).get(obs.read_label) or NO_ANSWER
    seen_any, said = False, []
    for move, case, intended in edits:
        if BY_ID[case].restores:  # its effect is over the record its own op changed, which no SUT move alone does
            said.append(f"served unrefused, but a SUT move alone makes no copy, no {case} op and no return: "
                        f"the {move} effect has nothing to show on")
            continue
        eff = effect(case, intended, read.records or [], baseline.records or [], at.ordered)
        seen_any = seen_any or bool(eff["visible"])
        whose = "the edit's" if len(edits) == 1 else f"{move}'s"
        said.append(f"{whose} effect {'shows' if eff['visible'] else 'does not show'}: {eff['detail']}")
    return seen_any, "; ".join(said)


def edit_views(obs: Observation) -> list[tuple[str, Observation]]:
    """Each edit of a trial as its own at-rest trial would hold it: ``(move, observation)``. A trial of one
    edit holds it at the top; a pair's trial holds each in its move (:data:`EDIT_KEYS`), so each edit is
    judged by its own case, intent and C3 on what the one read after the sequence served."""
    moves = [m for m in getattr(obs, "moves", None) or [] if isinstance(m, dict) and "c3" in m]
    if not moves:
        return [(obs.case or "", obs)]
    data = obs.to_json()
    return [(m.get("move", ""), Observation.from_json({**data, **{k: m.get(k) for k in EDIT_KEYS}},
                                                       f"the edit move {m.get('move')}")) for m in moves]


def refused_move(obs: Observation) -> str | None:
    """The first SUT move of a trial the SUT refused (its open or its call), or None."""
    for record in getattr(obs, "moves", None) or []:
        if isinstance(record, dict) and any(isinstance(record.get(k), dict) and record[k].get("refused")
                                            for k in ("open", "answer")):
            return record.get("move")
    return None


def stopped_by_moves(obs: Observation, at: Point) -> Landed | None:
    """``(False, why)`` when a SUT move of the trial already stopped the attack by this point's rules (as
    at rest: at ``read``, a refusal or an integrity signal of a move, audits aside; at ``audit``, an audit
    move that reports); ``(None, why)`` when a move failed without refusing (the sequence was not made);
    None when every move ran unopposed."""
    for record in getattr(obs, "moves", None) or []:
        if not isinstance(record, dict) or ("answer" not in record and "open" not in record):
            continue
        name = record.get("move")
        opened, answer = (Answer.coerce(record[k]) if record.get(k) else None for k in ("open", "answer"))
        for what, ans in (("open", opened), (name, answer)):
            if ans is not None and ans.ok is False and not ans.refused:
                return None, f"the {what} of move {name} failed without a refusal: {ans.error}"
        if name == "audit":
            if at.point == "audit" and answer is not None:
                baseline = (at.c1.audits or {}).get(obs.read_label)
                found, detail = audit_finding(answer, (baseline.answer if baseline else None) or NO_ANSWER)
                if found:
                    return False, f"the audit move: {detail}"
            continue
        if at.point != "read":
            continue
        for what, ans in (("open", opened), (name, answer)):
            if ans is not None and ans.refused:
                return False, f"the SUT refused the {what} of move {name}: {ans.error}"
        sigs = integrity_signals([opened, answer], at.filters)
        if sigs:
            return False, f"integrity signal at move {name}: {sigs[0].get('message')}"
    return None
