"""The CI gate: does a result set meet a bar? Exit 0 it does, 1 it does not, 2 it cannot be decided.

- ``--fail-on accepted``: any ACCEPTED cell fails the gate.
- ``--fail-on partial``: also any REPORTED found only at the audit point.
- ``--min-level L3``: every row must reach the level (levels need REJECTED on the read path).
A row that is not evaluable fails the gate (a gate never passes what it could not score),
unless a control failed for a harness reason. A harness ``error`` cell the gate needed
to look at leaves the gate undecided (exit 2) when nothing else failed it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from lab.cases.revisions import revision_stated
from lab.judge.observation import Verdict
from lab.judge.row import AtRestRow, RowCell
from lab.resultset.gate_choices import FAIL_ON, LEVELS


@dataclass
class GateResult:
    """Why the gate failed (``failures``) or could not decide (``undecided``), one line each."""

    failures: list[str] = field(default_factory=list)
    undecided: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """1 when the gate failed, else 2 when it could not be decided, else 0."""
        return 1 if self.failures else 2 if self.undecided else 0


def evaluate(rows: Sequence[AtRestRow], fail_on: str | None = None, min_level: str | None = None) -> GateResult:
    """Judge rows (as read: lab.judge.row) against the gate; with neither option the gate passes anything
    that was measured."""
    if fail_on not in (None, *FAIL_ON):
        raise ValueError(f"--fail-on {fail_on!r}: choose one of {', '.join(FAIL_ON)}")
    if min_level not in (None, *LEVELS):
        raise ValueError(f"--min-level {min_level!r}: choose one of {', '.join(LEVELS)}")
    result = GateResult()
    if not rows:
        result.undecided.append("the result set has no rows")
    for row in rows if (fail_on or min_level) else ():
        _judge(row, fail_on, min_level, result)
    return result


def _judge(row: AtRestRow, fail_on: str | None, min_level: str | None, result: GateResult) -> None:
    name = f"{row.row}@{row.detection_point}"
    if not row.evaluable:
        reason = row.not_evaluable_reason or "C1 or C2 failed"
        harness = all(str(row.controls[c].reason or "").startswith("harness error")
                      for c in ("C1", "C2") if not row.controls[c].ok)
        (result.undecided if harness else result.failures).append(f"{name}: not evaluable: {reason}")
        return
    cells, cases = row.cells, revision_stated(row.method_revision).cases  # the cases its set measured
    if fail_on:
        bad = [cid for cid in cases if _fails(cells[cid], fail_on)]
        if bad:
            result.failures.append(f"{name}: {', '.join(f'{c} {_label(cells[c])}' for c in bad)} "
                                   f"(--fail-on {fail_on})")
        errors = [cid for cid in cases if cells[cid].verdict == Verdict.ERROR]
        if errors:
            result.undecided.append(f"{name}: {', '.join(errors)} error (not measured): {cells[errors[0]].reason}")
    if min_level:
        _judge_level(name, row, min_level, result)


def _judge_level(name: str, row: AtRestRow, min_level: str, result: GateResult) -> None:
    if LEVELS.index(row.level or "L0") >= LEVELS.index(min_level):
        return
    cells = row.cells
    needed = [cid for lvl, ids in revision_stated(row.method_revision).ladder[:LEVELS.index(min_level)]
              for cid in ids]
    stop = next((cid for cid in needed if not (cells[cid].verdict == Verdict.REJECTED
                                               and cells[cid].detection_point == "read")), None)
    line = f"{name}: level {row.level} < {min_level}"
    if stop is None:  # the stated level disagrees with the cells: trust neither, fail
        result.failures.append(f"{line}, though the cells reach it; `memlab verify` the result set")
        return
    line += f"; the climb stops at {stop} ({_label(cells[stop])})"
    (result.undecided if cells[stop].verdict == Verdict.ERROR else result.failures).append(line)


def _fails(cell: RowCell, fail_on: str) -> bool:
    if cell.verdict == Verdict.ACCEPTED:
        return True
    return fail_on == "partial" and cell.verdict == Verdict.REPORTED and cell.detection_point == "audit"


def _label(cell: RowCell) -> str:
    if cell.verdict == Verdict.REPORTED:
        return f"REPORTED at {cell.detection_point}"
    return str(cell.verdict)
