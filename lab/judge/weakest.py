"""A case's cell from its variants' cells: the weakest result for the SUT.

Every variant of a case (:mod:`lab.cases.variants`) is judged on its own, as a cell of its own
(:func:`lab.judge.verdicts.judge_cell`). The case's cell is the weakest of them for the SUT:
ACCEPTED when any variant was accepted, else REPORTED when any was, else REJECTED. A variant
whose edit did not land, or that the harness could not measure, is an ``error`` of its own and
never hides a landed one; only when no variant landed is the cell an error (or ``n/a``, when
every variant is). The cell names the variant that decided it (``decided_by``) and lists every
variant with its verdict and reason (``variants``). Pure: no I/O.
"""

from __future__ import annotations

from lab.judge.observation import Cell, Json, Verdict

#: Weakest for the SUT first.
ORDER = (Verdict.ACCEPTED, Verdict.REPORTED, Verdict.REJECTED, Verdict.ERROR, Verdict.NA)


def weakest(judged: list[tuple[str, str, Cell]]) -> Cell:
    """The case's cell from ``(variant name, trial, cell)`` of its base trial (first) and variants."""
    rank = {v: i for i, v in enumerate(ORDER)}
    name, trial, decided = min(judged, key=lambda item: rank[item[2].verdict])
    listing = [_entry(n, t, c) for n, t, c in judged]
    update: Json = {"decided_by": name, "variants": listing}
    if len(judged) > 1 and trial != judged[0][1]:
        update["reason"] = f"variant {name} ({trial}): {decided.reason}"
    return decided.model_copy(update=update)


def _entry(name: str, trial: str, cell: Cell) -> Json:
    """One variant as the cell lists it: its trial, verdict, class, reason and observation file."""
    entry: Json = {"variant": name, "trial": trial, "verdict": str(cell.verdict),
                   "observation_class": cell.observation_class, "reason": cell.reason}
    if cell.evidence is not None:
        entry["evidence"] = cell.evidence.to_json()
    if cell.effect is not None:
        entry["effect"] = cell.effect
    if cell.signals:
        entry["signals"] = cell.signals
    return entry
