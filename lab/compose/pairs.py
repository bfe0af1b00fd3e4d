"""Which pairs of edits a composition searches, and those it leaves out with why.

A pair (two different edit moves, in either order, the SUT stopped between them) can only be a finding
at a detection point where neither edit lands alone: elsewhere one of its singles lands, and the
pair is ``single-lands`` at best. So an edit that lands alone (or has no verdict alone) at every point
of the row is paired with none, and two edits with no point where both are held alone are not paired;
both are listed with why, as any move left out. The one read after a sequence reads one context and
each edit's effect check reads its own, so a pair's two edits read the same context; pairs across
contexts are listed too. Everything here follows from the row's saved at-rest trials, so the run,
``--resume`` and ``verify`` choose the same pairs.
"""

from __future__ import annotations

from collections.abc import Mapping

from lab.cases import BY_ID
from lab.compose.alone import Point, edit_alone
from lab.compose.moves import Move
from lab.judge.observation import Json, Observation

#: How many edits a sequence may hold: one (every set written before pairs), or a pair.
EDITS = (1, 2)


def held_alone(trials: Mapping[str, Observation | None], profile: Json, edit: Move) -> list[str]:
    """The detection points where the edit alone (its at-rest trial) is known not to land."""
    return [p for p in profile.get("detection_points", ["read"])
            if edit_alone(trials.get(edit.trial), Point(profile, trials, p))[0] is False]


def edit_pairs(trials: Mapping[str, Observation | None], profile: Json,
               edits: list[Move]) -> tuple[list[tuple[Move, Move]], list[dict[str, str]]]:
    """The ordered pairs of ``edits`` worth running and what is left out (``{"move", "reason"}``), from
    the row's saved at-rest trials (:func:`choose`). A restore move is paired with nothing (:data:`NO_RESTORE`)."""
    restores = [e for e in edits if e.kind == "restore"]
    edits = [e for e in edits if e.kind != "restore"]
    pairs, skipped = choose(edits, {e: held_alone(trials, profile, e) for e in edits})
    return pairs, skipped + [{"move": f"{e.name} in a pair", "reason": NO_RESTORE} for e in restores]


#: Why a restore move is never paired with an edit.
NO_RESTORE = ("a restore move: it puts back a copy of the whole store, so an edit before it is copied and "
              "returned with it, and an edit after it edits the restored store; neither its C3 (the restored "
              "copy equals the pre-op store) nor the edit's is defined over the other yet")


def choose(edits: list[Move], held: Mapping[Move, list[str]]) -> tuple[list[tuple[Move, Move]], list[dict[str, str]]]:
    """The ordered pairs of ``edits`` (in the edits' order, each pair in both orders) whose two edits read
    one context and are both held alone at some point of ``held`` (edit -> the points where it alone
    does not land), and what is left out: each edit held alone nowhere, each pair with no common point,
    and the pairs across two contexts (one entry per two contexts, naming their edits)."""
    skipped = [{"move": f"{e.name} in a pair", "reason": "it lands alone, or has no verdict alone, at every "
                "detection point: no pair holding it can be a finding"} for e in edits if not held[e]]
    kept = [e for e in edits if held[e]]
    pairs, across = [], {}
    for i, first in enumerate(kept):
        for second in kept[i + 1:]:
            contexts = BY_ID[first.case].read_label, BY_ID[second.case].read_label
            if contexts[0] != contexts[1]:
                side = across.setdefault(tuple(sorted(contexts)), {c: {} for c in sorted(contexts)})
                side[contexts[0]][first.name] = side[contexts[1]][second.name] = None
            elif not set(held[first]) & set(held[second]):
                skipped.append({"move": f"{first.name}+{second.name}, {second.name}+{first.name}",
                                "reason": "no detection point where neither lands alone"})
            else:
                pairs += [(first, second), (second, first)]
    for (one, other), side in across.items():
        skipped.append({"move": f"pairs across contexts {one} and {other}", "reason": (
            f"{', '.join(side[one])} read {one}; {', '.join(side[other])} read {other}: the read after a sequence "
            "reads one context, and each edit's effect check its own")})
    return pairs, skipped
