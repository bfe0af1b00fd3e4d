"""What a row's composition searches, derived from its saved at-rest trials: the edit moves (every
case's base trial and variant whose edit landed), the edits left out with why, the pairs of them
searched (:mod:`lab.compose.pairs`), and the record a sequence's ``erase`` move erases.

One function for the run and for ``verify``: both read the edit moves from the same saved trials,
so a verified set searched exactly what its trials say.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from lab.cases import BY_ID
from lab.cases.revisions import CURRENT
from lab.cases.seedplan import markers_in
from lab.compose.moves import Move
from lab.judge.observation import Observation


def edit_moves(trials: Mapping[str, Observation | None], cases: tuple[str, ...] = CURRENT.cases,
               restores: bool = False) -> tuple[list[Move], list[dict[str, str]]]:
    """The edit moves of ``cases`` (the set's method revision's: a case's base trial, then its variants,
    in the method's order) and those left out (``{"move", "reason"}``): a case the row cannot express, a
    trial whose edit did not land or that hit a harness error (no single to compare with, so no sequence
    of it can be a finding). A restore case is a ``restore`` move under the same rule with ``restores``
    (every composition since restore moves), and left out without it (every set written before)."""
    moves, skipped = [], []
    for cid in cases:
        base = trials.get(cid)
        if base is None:
            skipped.append({"move": cid, "reason": "not measured at rest"})
            continue
        if base.status == "n/a":
            skipped.append({"move": cid, "reason": f"n/a at rest: {base.na_reason}"})
            continue
        if BY_ID[cid].restores and not restores:
            skipped.append({"move": cid, "reason": "a restore case: its fault is already the SUT's own operation "
                                                   "between a copy and its return, not an edit to compose"})
            continue
        for trial in [cid, *(v["trial"] for v in base.variants or [])]:
            obs = base if trial == cid else trials.get(trial)
            why = _unusable(obs)
            if why:
                skipped.append({"move": trial, "reason": why})
            else:
                moves.append(Move(trial, "restore" if BY_ID[cid].restores else "edit", case=cid, trial=trial))
    return moves, skipped


def _unusable(obs: Observation | None) -> str:
    if obs is None:
        return "its at-rest trial is missing"
    if obs.error:
        return f"its at-rest trial hit a harness error ({obs.error.message})"
    if not (obs.c3 and obs.c3.ok):
        return "its edit did not land at rest (C3)"
    return ""


def erase_victim(plan: Mapping[str, Any], label: str, intended: Any) -> str | None:
    """The seeded record an ``erase`` move erases: the first of context ``label`` that the edit does not
    name (so the erasure never removes what the edit changed), or None when the edit names them all
    (``intended``: the edit's intent, or a pair's two in a list)."""
    named = set(markers_in(json.dumps(intended or {}, sort_keys=True)))
    for rec in plan.get("records") or []:
        if rec.get("label") == label and rec.get("marker") not in named:
            return rec["marker"]
    return None


def single_targets(trials: Mapping[str, Observation | None], edits: list[Move], move: Move,
                   plan: Mapping[str, Any], pairs: list[tuple[Move, Move]] = ()) -> list[tuple[str, str | None]]:
    """Where a SUT move alone runs: ``(context label, erased record or None)`` for each context the edits
    (and the ``pairs``) read (an erase once per record the sequences erase there)."""
    targets = set()
    for group in [(edit,) for edit in edits] + list(pairs):
        label = BY_ID[group[0].case].read_label
        intents = [trials[e.trial].intended for e in group]
        victim = erase_victim(plan, label, intents[0] if len(intents) == 1 else intents)
        targets.add((label, victim if move.kind == "erase" else None))
    return sorted(targets, key=str)


def pair_targets(trials: Mapping[str, Observation | None], edits: list[Move], move: Move, plan: Mapping[str, Any],
                 pairs: list[tuple[Move, Move]]) -> list[tuple[str, str | None]]:
    """Where a SUT move alone runs for the pairs only (a pair's erase may erase a record no single
    edit's does): run after the pairs, never beside the singles' own."""
    single = set(single_targets(trials, edits, move, plan))
    return [t for t in single_targets(trials, edits, move, plan, pairs) if t not in single]


def expected(trials: Mapping[str, Observation | None], profile: Mapping[str, Any], length: int,
             edits_held: int = 1, restores: bool = False) -> list[str]:
    """Every composition trial a row holds once complete, from its saved at-rest trials: each sequence
    (``edits_held`` 2: the pairs' too), and each SUT move alone where :func:`single_targets` runs it."""
    from lab.compose.moves import name_of, sequences, single_name, sut_moves
    from lab.compose.pairs import edit_pairs

    edits, _ = edit_moves(trials, restores=restores)
    suts, _ = sut_moves((profile.get("capabilities") or {}).get("erasure", "none"),
                        profile.get("detection_points", ["read"]))
    pairs = edit_pairs(trials, profile, edits)[0] if edits_held == 2 else []
    plan = (trials.get("seed") or Observation()).plan or {}
    names = [name_of(s) for s in sequences(edits, suts, length, pairs)]
    names += [single_name(move, label, victim) for move in suts
              for label, victim in single_targets(trials, edits, move, plan, pairs)]
    return sorted(set(names))
