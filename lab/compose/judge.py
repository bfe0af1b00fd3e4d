"""The verdicts of composition: a pure function from a row's saved trials to its compose rows.

A sequence **lands** when every move ran, its edit landed (C3), no move was refused or met with an
integrity signal (an audit move that reports counts as one), and the read after it is judged as an
edit alone is: served as genuine (or, at the audit point, the audit silent) with the edit's effect
visible. It is a **finding** only when, besides, each of its moves alone on the same seed and target
does not land: the edit alone is its at-rest trial (REJECTED or REPORTED, or served with no visible
effect); a SUT move alone is judged by the edit's own effect check on what the read after it
served. A move alone with no verdict (a harness error) leaves the sequence inconclusive, never a
finding and never held.
"""

from __future__ import annotations

from collections.abc import Mapping

from lab.cases import BY_ID
from lab.cases.seedplan import markers_in
from lab.compose import moves as mv
from lab.compose.moves import FOLDER, single_name
from lab.compose.results import ComposeRow, SequenceResult, Single, Skipped
from lab.compose.search import edit_moves, erase_victim
from lab.judge.derive import SavedRow
from lab.judge.effects import effect
from lab.judge.observation import NO_ANSWER, Answer, Json, Observation, Verdict
from lab.judge.verdicts import audit_finding, integrity_signals, judge_cell

Landed = tuple[bool | None, str]


class _Point:
    """What judging at one detection point needs: the C1 baseline, the signals, the row's options."""

    def __init__(self, saved: SavedRow, point: str):
        profile = saved.profile
        self.point, self.c1 = point, saved.trials.get("C1") or Observation()
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


def derive_compose(saved: SavedRow, composed: Mapping[str, Observation | None], run: Json,
                   length: int) -> list[ComposeRow]:
    """The compose rows (one per detection point) of a row: ``saved`` its at-rest trials, ``composed``
    its composition trials by name (``T3+write``, ``write``, ``erase@<marker>``; None where absent)."""
    profile = saved.profile
    edits, left_edits = edit_moves(saved.trials, saved.revision.cases)
    suts, left_suts = mv.sut_moves((profile.get("capabilities") or {}).get("erasure", "none"),
                                   profile.get("detection_points", ["read"]))
    plan = (saved.trials.get("seed") or Observation()).plan or {}
    rows = []
    for point in profile.get("detection_points", ["read"]):
        at = _Point(saved, point)
        judged = {seq: _sequence(seq, saved, composed, plan, at) for seq in mv.sequences(edits, suts, length)}
        results = [_minimal(seq, result, judged) for seq, result in judged.items()]
        rows.append(ComposeRow(
            row=profile["row"], detection_point=point, length=length, method_revision=saved.revision.name,
            lab=run.get("lab"), run_id=run.get("run_id"), date=run.get("started"),
            offered=[m.name for m in [*edits, *suts]], skipped=[Skipped(**s) for s in left_edits + left_suts],
            sequences=results))
    return rows


def _sequence(seq: tuple[mv.Move, ...], saved: SavedRow, composed: Mapping[str, Observation | None],
              plan: Json, at: _Point) -> SequenceResult:
    edit = next(m for m in seq if m.edits)
    single_obs = saved.trials.get(edit.trial)
    intended = (single_obs.intended if single_obs else None) or {}
    label = BY_ID[edit.case].read_label
    victim = erase_victim(plan, label, intended)
    singles, refused_alone = [], set()
    for move in dict.fromkeys(seq):  # each move once, in order
        if move.edits:
            landed, why = _edit_alone(single_obs, at)
            singles.append(Single(move=move.name, trial=f"{edit.trial}.json", landed=landed, reason=why))
        else:
            name = single_name(move, label, victim if move.kind == "erase" else None)
            alone = composed.get(name)
            landed, why = _sut_alone(alone, edit.case, intended, at)
            singles.append(Single(move=move.name, trial=f"{FOLDER}/{name}.json", landed=landed, reason=why))
            if alone is not None and _refused_move(alone) == move.name:
                refused_alone.add(move.name)
    name = mv.name_of(seq)
    obs = composed.get(name)
    landed, why = _sequence_lands(obs, at)
    if landed is False and obs is not None and _refused_move(obs) in refused_alone:  # not the edit's doing
        landed, why = None, f"{why}; but the SUT refuses {_refused_move(obs)} with no edit too: the sequence " \
                            "could not be made"
    served = [r.get("text") for r in obs.read.records or []] if obs and obs.read and obs.read.ok else None
    verdict, why = decide(landed, why, singles)
    return SequenceResult(sequence=[m.name for m in seq], verdict=verdict, reason=why, singles=singles,
                          trial=f"{FOLDER}/{name}.json", served=served)


def _minimal(seq: tuple[mv.Move, ...], result: SequenceResult,
             judged: Mapping[tuple[mv.Move, ...], SequenceResult]) -> SequenceResult:
    """A finding of 3 moves only where no sequence one move shorter, of its moves in its order, lands:
    otherwise its harm is in that one (``shorter-lands``)."""
    if result.verdict != "finding":
        return result
    landing = [mv.name_of(s) for s in mv.shorter(seq)
               if s in judged and judged[s].verdict in ("finding", "single-lands", "shorter-lands")]
    if not landing:
        return result
    return result.model_copy(update={"verdict": "shorter-lands",
                                     "reason": f"{result.reason}; but {', '.join(landing)} already lands"})


def decide(landed: bool | None, why: str, singles: list[Single]) -> tuple[str, str]:
    """A sequence's outcome from whether it landed and whether each of its moves alone did: a finding
    only when it landed and every single is known not to land.

    >>> no, yes = (Single(move=m, trial="t", landed=v, reason="") for m, v in (("T3", False), ("write", True)))
    >>> decide(True, "served", [no]), decide(True, "served", [no, yes])[0], decide(False, "refused", [yes])
    (('finding', 'served'), 'single-lands', ('held', 'refused'))
    """
    if landed is None:
        return "inconclusive", why
    if not landed:
        return "held", why
    if any(s.landed for s in singles):
        return "single-lands", f"{why}; but {', '.join(s.move for s in singles if s.landed)} lands alone"
    if any(s.landed is None for s in singles):
        return "inconclusive", f"{why}; but {', '.join(s.move for s in singles if s.landed is None)} alone has no verdict"
    return "finding", why


def _edit_alone(obs: Observation | None, at: _Point) -> Landed:
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


def _sut_alone(obs: Observation | None, case: str, intended: Json, at: _Point) -> Landed:
    """A SUT move alone: does what the read after it served show the edit's effect, unrefused and
    with no integrity signal?"""
    if obs is None:
        return None, "not measured"
    if obs.error:
        return None, f"harness error at {obs.error.stage}: {obs.error.message}"
    stopped = _stopped_by_moves(obs, at)
    if stopped:
        return stopped
    seen, c1 = as_seeded(obs, at.c1)
    read = seen.read or NO_ANSWER
    if read.refused_to_serve or not read.ok:
        return False, f"refused to serve: {read.error}"
    baseline = (c1.reads or {}).get(obs.read_label) or NO_ANSWER
    eff = effect(case, intended, read.records or [], baseline.records or [], at.ordered)
    return bool(eff["visible"]), f"the edit's effect {'shows' if eff['visible'] else 'does not show'}: {eff['detail']}"


def _sequence_lands(obs: Observation | None, at: _Point) -> Landed:
    if obs is None:
        return None, "not measured"
    stopped = _stopped_by_moves(obs, at)
    if stopped and not obs.error:
        return stopped
    cell = at.cell(obs)
    if cell.verdict == Verdict.ACCEPTED:
        return True, cell.reason or "served as genuine"
    if cell.verdict in (Verdict.REJECTED, Verdict.REPORTED):
        return False, cell.reason or cell.verdict.value
    if cell.effect is not None and not cell.effect.get("visible"):
        return False, f"served, but the edit no longer shows ({cell.effect.get('detail')})"
    return None, cell.reason or "no verdict"


def _refused_move(obs: Observation) -> str | None:
    """The first SUT move of a trial the SUT refused (its open or its call), or None."""
    for record in getattr(obs, "moves", None) or []:
        if isinstance(record, dict) and any(isinstance(record.get(k), dict) and record[k].get("refused")
                                            for k in ("open", "answer")):
            return record.get("move")
    return None


def _stopped_by_moves(obs: Observation, at: _Point) -> Landed | None:
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
