"""The moves of composition and the sequences searched: one at-rest edit, or a pair of them, with the
SUT's own activity around it.

A move is an at-rest edit (a case's base trial or one of its variants, exactly the edit that trial
makes) or one of the SUT's own operations: a genuine ``write`` through its write path, a
``restart`` (start, open, stop), its own ``erase`` of a record, its own ``audit``. A sequence holds
one edit, or two different ones (a pair the search chose, :mod:`lab.compose.pairs`: a compound edit
no single edit expresses), never the same edit twice. The search is exhaustive over what it is
given, every length from 2 up to the one asked, and ordered deterministically, so two runs of one row
try the same sequences in the same order.

    >>> edit, other = Move("T3", "edit", case="T3", trial="T3"), Move("T5", "edit", case="T5", trial="T5")
    >>> [name_of(s) for s in sequences([edit], [WRITE, RESTART], 2)]
    ['T3+write', 'T3+restart', 'write+T3', 'restart+T3']
    >>> len(sequences([edit], [WRITE, RESTART], 3))  # the 4 of length 2 and the 12 of length 3
    16
    >>> [name_of(s) for s in sequences([], [WRITE], 3, [(edit, other)])]
    ['T3+T5', 'T3+T5+write', 'T3+write+T5', 'write+T3+T5']
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Any

#: The longest sequence searched (the space grows as (SUT moves)^(length-1) x length per edit).
MAX_LENGTH = 3
#: The SUT moves, in the order they are tried.
SUT_KINDS = ("write", "restart", "erase", "audit")
#: Where a row's composition trials are saved, inside its observation folder.
FOLDER = "compose"
#: Where the genuine record of a ``write`` move goes: after the seeded ones and C2's (offset 0) and T9's (1).
WRITE_OFFSET = 2


@dataclass(frozen=True)
class Move:
    """One move: its name in a sequence, its kind (``edit``, ``restore`` or a SUT kind) and, for an edit or
    a restore, the case and the at-rest trial whose fault step it makes."""

    name: str
    kind: str
    case: str | None = None
    trial: str | None = None

    @property
    def edits(self) -> bool:
        """Whether this move is an at-rest fault step: an edit, or a restore case's copy, own op and return."""
        return self.kind in ("edit", "restore")


WRITE, RESTART, ERASE, AUDIT = (Move(kind, kind) for kind in SUT_KINDS)
SUT_MOVES = {m.kind: m for m in (WRITE, RESTART, ERASE, AUDIT)}


def sut_moves(erasure: str, points: Any) -> tuple[list[Move], list[dict[str, str]]]:
    """The SUT moves a row offers (its capabilities' ``erasure``, its detection ``points``), and those it
    does not with why (``{"move", "reason"}``)."""
    offered, skipped = [WRITE, RESTART], []
    if erasure == "none":
        skipped.append({"move": "erase", "reason": "the SUT offers no erasure operation"})
    elif erasure != "record":
        skipped.append({"move": "erase", "reason": f"the SUT erases by {erasure}, not one record: erasing the edited "
                                                   "context would leave nothing of the edit to serve"})
    else:
        offered.append(ERASE)
    if "audit" in points:
        offered.append(AUDIT)
    else:
        skipped.append({"move": "audit", "reason": "the row declares no audit detection point"})
    return offered, skipped


def sequences(edits: list[Move], suts: list[Move], length: int,
              pairs: list[tuple[Move, Move]] = ()) -> list[tuple[Move, ...]]:
    """Every sequence of 2 up to ``length`` moves holding exactly one of ``edits``, the others SUT moves
    (the shorter first; per edit, the edit at each place, the SUT moves around it in every arrangement);
    then each of ``pairs`` (two different edits, in that order) with ``length - 2`` SUT moves around
    them in every arrangement, the pair alone first."""
    if not 2 <= length <= MAX_LENGTH:
        raise ValueError(f"a sequence is 2 to {MAX_LENGTH} moves long, not {length}")
    out = []
    for size in range(2, length + 1):
        for edit in edits:
            for place in range(size):
                for others in product(suts, repeat=size - 1):
                    out.append((*others[:place], edit, *others[place:]))
    for size in range(2, length + 1):
        for first, second in pairs:
            if first == second:
                raise ValueError(f"a pair holds two different edits, not {first.name} twice")
            for places in ((i, j) for i in range(size) for j in range(i + 1, size)):
                for others in product(suts, repeat=size - 2):
                    rest = iter(others)
                    out.append(tuple(first if k == places[0] else second if k == places[1] else next(rest)
                                     for k in range(size)))
    return out


def edits_of(sequence: tuple[Move, ...] | list[Move]) -> list[Move]:
    """The edit moves of a sequence, in its order."""
    return [m for m in sequence if m.edits]


def shorter(sequence: tuple[Move, ...]) -> list[tuple[Move, ...]]:
    """The sequences one move shorter that a sequence holds, in its order, that still hold an edit
    (none below 2 moves): a SUT move left out, or one edit of a pair.

    >>> edit, other = Move("T3", "edit", case="T3", trial="T3"), Move("T5", "edit", case="T5", trial="T5")
    >>> [name_of(s) for s in shorter((AUDIT, edit, WRITE))]
    ['T3+write', 'audit+T3']
    >>> [name_of(s) for s in shorter((edit, other, WRITE))]
    ['T5+write', 'T3+write', 'T3+T5']
    """
    if len(sequence) <= 2:
        return []
    cut = (sequence[:i] + sequence[i + 1:] for i in range(len(sequence)))
    return list(dict.fromkeys(s for s in cut if edits_of(s)))


def name_of(sequence: tuple[Move, ...] | list[Move]) -> str:
    """A sequence's name, its moves joined by ``+`` (also its trial's file name)."""
    return "+".join(m.name for m in sequence)


def single_name(move: Move, label: str, victim: str | None) -> str:
    """The trial of a SUT move alone: its kind and the context it acts on and reads (``write-A``), and for
    an erase the record it erases (``erase-A@mA0-x1y2z3``)."""
    return f"{move.name}-{label}" + (f"@{victim}" if victim is not None else "")
