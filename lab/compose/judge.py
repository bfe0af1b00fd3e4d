"""The verdicts of composition: a pure function from a row's saved trials to its compose rows.

A sequence **lands** when every move ran, its edit (each edit of a pair) landed (C3), no move was
refused or met with an integrity signal (an audit move that reports counts as one), and the read
after it is judged as an edit alone is: served as genuine (or, at the audit point, the audit silent)
with the edit's effect visible (a pair's: at least one of its edits' own effect checks). It is a
**finding** only when, besides, each of its moves alone on the same seed and target does not land:
an edit alone is its at-rest trial (REJECTED or REPORTED, or served with no visible effect); a SUT
move alone is judged by the edits' own effect checks on what the read after it served. A move alone
with no verdict (a harness error) leaves the sequence inconclusive, never a finding and never held.
"""

from __future__ import annotations

from collections.abc import Mapping

from lab.cases import BY_ID
from lab.compose import moves as mv
from lab.compose.alone import Landed, Point, as_seeded, edit_alone, edit_views, refused_move, stopped_by_moves, \
    sut_alone
from lab.compose.moves import FOLDER, single_name
from lab.compose.pairs import edit_pairs
from lab.compose.results import ComposeRow, SequenceResult, Single, Skipped
from lab.compose.search import edit_moves, erase_victim
from lab.judge.derive import SavedRow
from lab.judge.observation import Json, Observation, Verdict

__all__ = ["as_seeded", "decide", "derive_compose"]


def derive_compose(saved: SavedRow, composed: Mapping[str, Observation | None], run: Json,
                   length: int, edits: int = 1, restores: bool = False) -> list[ComposeRow]:
    """The compose rows (one per detection point) of a row: ``saved`` its at-rest trials, ``composed``
    its composition trials by name (``T3+write``, ``write``, ``erase@<marker>``; None where absent);
    ``edits``: how many edits a sequence may hold (2: pairs too, :mod:`lab.compose.pairs`); ``restores``:
    the restore cases offered as moves (:func:`~lab.compose.search.edit_moves`)."""
    profile = saved.profile
    moves, left_edits = edit_moves(saved.trials, saved.revision.cases, restores)
    suts, left_suts = mv.sut_moves((profile.get("capabilities") or {}).get("erasure", "none"),
                                   profile.get("detection_points", ["read"]))
    pairs, left_pairs = edit_pairs(saved.trials, profile, moves) if edits == 2 else ([], [])
    plan = (saved.trials.get("seed") or Observation()).plan or {}
    rows = []
    for point in profile.get("detection_points", ["read"]):
        at = Point(profile, saved.trials, point)
        judged = {seq: _sequence(seq, saved, composed, plan, at)
                  for seq in mv.sequences(moves, suts, length, pairs)}
        results = [_minimal(seq, result, judged) for seq, result in judged.items()]
        rows.append(ComposeRow(
            row=profile["row"], detection_point=point, length=length, method_revision=saved.revision.name,
            lab=run.get("lab"), run_id=run.get("run_id"), date=run.get("started"), edits=edits, restores=restores,
            offered=[m.name for m in [*moves, *suts]],
            skipped=[Skipped(**s) for s in left_edits + left_suts + left_pairs], sequences=results))
    return rows


def _sequence(seq: tuple[mv.Move, ...], saved: SavedRow, composed: Mapping[str, Observation | None],
              plan: Json, at: Point) -> SequenceResult:
    alone_at_rest = {e: saved.trials.get(e.trial) for e in mv.edits_of(seq)}
    intents = {e: (obs.intended if obs else None) or {} for e, obs in alone_at_rest.items()}
    first = next(iter(intents))
    label = BY_ID[first.case].read_label
    victim = erase_victim(plan, label, intents[first] if len(intents) == 1 else list(intents.values()))
    singles, refused_alone = [], set()
    for move in dict.fromkeys(seq):  # each move once, in order
        if move.edits:
            landed, why = edit_alone(alone_at_rest[move], at)
            singles.append(Single(move=move.name, trial=f"{move.trial}.json", landed=landed, reason=why))
        else:
            name = single_name(move, label, victim if move.kind == "erase" else None)
            alone = composed.get(name)
            landed, why = sut_alone(alone, [(e.name, e.case, i) for e, i in intents.items()], at)
            singles.append(Single(move=move.name, trial=f"{FOLDER}/{name}.json", landed=landed, reason=why))
            if alone is not None and refused_move(alone) == move.name:
                refused_alone.add(move.name)
    name = mv.name_of(seq)
    obs = composed.get(name)
    landed, why = _sequence_lands(obs, at)
    if landed is False and obs is not None and refused_move(obs) in refused_alone:  # not the edit's doing
        landed, why = None, f"{why}; but the SUT refuses {refused_move(obs)} with no edit too: the sequence " \
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


def _sequence_lands(obs: Observation | None, at: Point) -> Landed:
    if obs is None:
        return None, "not measured"
    stopped = stopped_by_moves(obs, at)
    if stopped and not obs.error:
        return stopped
    views = edit_views(obs)
    if len(views) > 1:
        return _pair_lands(views, at)
    cell = at.cell(obs)
    if cell.verdict == Verdict.ACCEPTED:
        return True, cell.reason or "served as genuine"
    if cell.verdict in (Verdict.REJECTED, Verdict.REPORTED):
        return False, cell.reason or cell.verdict.value
    if cell.effect is not None and not cell.effect.get("visible"):
        return False, f"served, but the edit no longer shows ({cell.effect.get('detail')})"
    return None, cell.reason or "no verdict"


def _pair_lands(views: list[tuple[str, Observation]], at: Point) -> Landed:
    """A pair's trial, each edit judged as its own at-rest trial on the one read: no verdict when an edit
    did not land (C3) or the trial erred; held when the read was refused, signalled or the audit
    reported, or when neither edit's effect shows; else it lands."""
    cells = [(move, at.cell(view)) for move, view in views]
    unseen = [(m, c) for m, c in cells if c.effect is not None and not c.effect.get("visible")]
    for move, cell in cells:
        if cell.verdict == Verdict.ERROR and (move, cell) not in unseen:
            return None, f"{move}: {cell.reason or 'no verdict'}"
    for move, cell in cells:
        if cell.verdict in (Verdict.REJECTED, Verdict.REPORTED):
            return False, cell.reason or cell.verdict.value
    shows = [(m, c) for m, c in cells if c.verdict == Verdict.ACCEPTED]
    if not shows:
        return False, "served, but neither edit shows (" + "; ".join(
            f"{m}: {c.effect.get('detail')}" for m, c in unseen) + ")"
    which = " and ".join(m for m, _ in shows)
    return True, f"{shows[0][1].reason or 'served as genuine'} (the effect of {which} shows)"
