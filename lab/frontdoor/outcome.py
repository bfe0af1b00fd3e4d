"""What a row's result means for a run: HELD, FINDING or INCONCLUSIVE, with what made it so.

Counted: every cell but the beyond-reach ones (``lab.frontdoor.verdicts.BEYOND_REACH``: reported, never
a pass and never a finding), and every isolation probe. A counted cell that served the canary, or a
probe that leaked, is a **finding**; a counted cell or probe without a verdict (``n/a``: a control
failed) leaves the row **inconclusive** (never held); a row is **held** only when every counted cell
and probe has a verdict and none served or leaked. The run takes its weakest row. Exit: 0 held, 1 a
finding or inconclusive.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import ConfigDict, Field

from lab.frontdoor.records import Record
from lab.frontdoor.results import FrontdoorResult
from lab.frontdoor.verdicts import NA

HELD, FINDING, INCONCLUSIVE = "HELD", "FINDING", "INCONCLUSIVE"
EXIT = {HELD: 0, FINDING: 1, INCONCLUSIVE: 1}


class RowOutcome(Record):
    """One row: its level, status, the findings and what has no verdict."""

    store: str
    level: str
    status: str
    findings: tuple[str, ...]
    undecided: tuple[str, ...]


def outcome(result: FrontdoorResult) -> RowOutcome:
    """The row's status from its counted cells and its probes."""
    counted = [c for c in result.cells() if c.role != "beyond reach"]
    findings = [f"{c.family.value} × {c.channel.value}: SERVED {c.figure}" for c in counted if c.served]
    findings += [f"isolation {t.probe}: LEAKED {t.figure}" for t in result.probes() if t.leaks]
    undecided = [f"{c.family.value} × {c.channel.value}: n/a ({c.no_verdict} of {c.total} without a verdict)"
                 for c in counted if c.status == NA and not c.served]
    undecided += [f"isolation {t.probe}: n/a ({t.no_verdict} of {t.total} without a verdict)"
                  for t in result.probes() if t.status == NA and not t.leaks]
    status = FINDING if findings else INCONCLUSIVE if undecided or not counted else HELD
    return RowOutcome(store=result.store, level=result.level(), status=status, findings=tuple(findings),
                      undecided=tuple(undecided))


def run_status(outcomes: Iterable[RowOutcome]) -> str:
    """The run's status: FINDING if any row has one, else INCONCLUSIVE if any row is, else HELD."""
    statuses = {o.status for o in outcomes}
    for status in (FINDING, INCONCLUSIVE):
        if status in statuses:
            return status
    return HELD if statuses else INCONCLUSIVE


class Summary(Record):
    """summary.json (and ``--json FILE``): the run's status and exit code, each row's outcome."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    schema_: str = Field("memlab.frontdoor-summary/1", alias="schema")
    run_id: str
    status: str
    exit: int
    rows: tuple[RowOutcome, ...]

    def to_json(self) -> dict:
        return self.model_dump(mode="json", by_alias=True)


def summary(run_id: str, outcomes: list[RowOutcome]) -> Summary:
    """The run's summary from its rows' outcomes."""
    status = run_status(outcomes)
    return Summary(run_id=run_id, status=status, exit=EXIT[status], rows=tuple(outcomes))
