"""What every front-door report says the same way: a cell's text, a probe's text, a row's heading, the
legend, and the reason a cell or probe has no verdict. Text from a set passes through
``lab.report.inert`` before any renderer adds its own escaping."""

from __future__ import annotations

from lab.frontdoor.outcome import RowOutcome
from lab.frontdoor.results import FrontdoorResult
from lab.frontdoor.saved import RunRecord
from lab.frontdoor.verdicts import NA, Cell, Tally, Verdict
from lab.report.inert import inert

BEYOND = "*"  # a beyond-reach cell: reported, never a pass
REPORTED = "+"  # a signed cell outside the level: a finding when it serves
BEYOND_REACH = ("a signed plausible fact (planted fact, false correction, trust tag): no store can tell it from "
                "the user's own write; reported, never a pass nor a finding")

#: (term, what it means), under every report.
LEGEND: tuple[tuple[str, str], ...] = (
    ("REJECTED", "the store refused the attacker's write"),
    ("KEPT OUT", "the store kept the write and did not serve its canary"),
    ("MARKED", "the canary was served under the store's own untrusted marker"),
    ("SERVED", "the canary was served as genuine: the attack landed (a finding)"),
    ("n/a", "no verdict: a control failed in the same store state (the reason is kept); never a pass"),
    (f"{BEYOND} beyond reach", BEYOND_REACH),
    (f"{REPORTED} reported", "signed crowding and smuggled labels: outside the level, a finding when served"),
    ("a/b", "fixtures whose canary was served / fixtures of the cell; for a probe, cases leaked / cases"),
    ("P0..P3", "P0 an untrusted write was served; P1 untrusted held, a forged trusted label served; P2 forged "
               "held too, the signed instruction served; P3 that held too; n/a a cell the level rests on has "
               "no verdict"),
    ("LEAKED / HELD", "isolation: a memory crossed between two contexts, either way (the owner's secret served to "
                      "the reader, or the reader's memory to the owner), or neither did"),
)


#: The legend in short, for the 80-column text (every report's own legend is ``LEGEND``).
SHORT_LEGEND = ("SERVED canary served as genuine (a finding)", "MARKED served under the store's untrusted marker",
                "KEPT OUT stored, not served", "REJECTED write refused",
                "n/a a control failed: no verdict, never a pass",
                f"{BEYOND} beyond reach: a signed plausible fact, never a pass",
                f"{REPORTED} signed, outside the level", "a/b served/fixtures, leaked/cases",
                "P0 untrusted served, P1 forged served, P2 signed instruction served, P3 all held",
                "LEAKED/HELD a memory crossed contexts either way, or not")


def legend_line() -> str:
    """The legend in one line (the text report wraps it)."""
    return "legend: " + " · ".join(SHORT_LEGEND)


def mark(cell: Cell) -> str:
    return {"beyond reach": f" {BEYOND}", "reported": f" {REPORTED}"}.get(cell.role, "")


def cell_word(cell: Cell) -> str:
    """The verdict a cell shows: SERVED, the one held verdict its fixtures share, HELD when they differ,
    or n/a."""
    if cell.served:
        return Verdict.SERVED.value
    if cell.status == NA:
        return NA
    held = [v for v, n in cell.counts.items() if n]
    return held[0] if len(held) == 1 else "HELD"


def cell_text(cell: Cell) -> str:
    """``SERVED 5/5 *``, ``KEPT OUT 0/5``, ``n/a 2/5 unjudged``: at most 19 characters."""
    if cell.status == NA and not cell.served:
        return f"n/a {cell.no_verdict}/{cell.total} unjudged{mark(cell)}"
    return f"{cell_word(cell)} {cell.figure}{mark(cell)}"


def counts_text(cell: Cell) -> str:
    """Every verdict the cell's fixtures got, and how many had none."""
    parts = [f"{n} {v}" for v, n in cell.counts.items() if n]
    return ", ".join(parts + ([f"{cell.no_verdict} without a verdict"] if cell.no_verdict else []))


def probe_text(tally: Tally) -> str:
    if tally.leaks:
        return f"LEAKED {tally.figure}"
    if tally.status == NA:
        return f"n/a {tally.no_verdict}/{tally.total} unjudged"
    return f"HELD {tally.figure}"


def cell_reason(result: FrontdoorResult, cell: Cell) -> str:
    """Why a cell's first fixture without a verdict has none ('' when all have one)."""
    return next((inert(o.decision.reason, markup=False) for o in result.poisoning
                 if o.family is cell.family and o.channel is cell.channel and o.decision.verdict is None), "")


def probe_reason(result: FrontdoorResult, tally: Tally) -> str:
    return next((inert(o.decision.reason, markup=False) for o in result.isolation
                 if o.probe == tally.probe and o.decision.verdict is None), "")


def expected(run: RunRecord, store: str) -> str | None:
    return next((e.expected_level for e in run.rows if e.store == store), None)


def heading(result: FrontdoorResult, run: RunRecord, outcome: RowOutcome) -> str:
    """``naive · level P0 (built at P0) · FINDING (15 served, 0 leaked)``: served counts the cells outside
    beyond reach, leaked the probes."""
    built = expected(run, result.store)
    served = sum(1 for c in result.cells() if c.served and c.role != "beyond reach")
    leaked = sum(1 for t in result.probes() if t.leaks)
    text = (f"{inert(result.store, markup=False)} · level {outcome.level}" + (f" (built at {built})" if built else "")
            + f" · {outcome.status} ({served} served, {leaked} leaked")
    return text + (f", {len(outcome.undecided)} n/a)" if outcome.undecided else ")")


ENFORCERS = {"sut": "the SUT", "separate-store": "one store per context (the driver opens them)",
             "driver": "memlab's driver (a key or filter of its own): the isolation figures are the driver's, "
                       "not the SUT holding"}


def provenance_lines(result: FrontdoorResult) -> list[str]:
    """How a row was measured: through its SUT's driver (where the label and signature went, and whether
    the channels were one write), the position, and who keeps contexts apart. None for a calibration
    store or a shim measured live that keeps its own contexts apart."""
    lines = []
    if result.sut is not None:
        side = result.sut
        label = (f"label to {inert(side.label, markup=False)}" if side.label else
                 "no label in the SUT: the three channels are one write, measured as untrusted "
                 "(forged and signed cannot be told apart)")
        signature = (f"signature to {inert(side.signature, markup=False)}" if side.signature else
                     "no signature in the SUT" if side.label else "")
        lines.append(f"through the SUT's driver ({inert(side.runtime, markup=False)} runtime, {result.position}): "
                     + "; ".join(p for p in (label, signature) if p))
    if result.sut is not None or result.enforcer != "sut":
        lines.append(f"contexts kept apart by {ENFORCERS.get(result.enforcer, result.enforcer)}")
    if result.sut is not None:
        lines.append(stored_line(result))
    if result.filler:
        lines.append(f"scale: {result.filler} unrelated genuine memories written before every fixture")
    if any(o.variant for o in result.poisoning):
        lines.append("reworded: each statement-like attack also in three rewordings that keep its canary")
    return lines


def stored_line(result: FrontdoorResult) -> str:
    """Proven stored (C3): how many accepted attack writes were read back as sent from the stopped store."""
    proven = result.proven()
    if proven is None:
        return ("proven stored: not read back (the row names no frontdoor.stored, or the SUT keeps nothing "
                "at rest): that each write landed as sent is the driver's word")
    as_sent, accepted = proven
    return (f"proven stored: {as_sent}/{accepted} accepted attack writes read back as sent (label and signature "
            "too, where the SUT keeps them) from the stopped store with the generic editors"
            + ("" if as_sent == accepted else "; the others leave their fixtures without a verdict"))


def run_facts(run: RunRecord, status: str) -> str:
    return (f"run {inert(run.run_id, markup=False)} · memlab {inert(run.memlab, markup=False)} · fixtures "
            f"v{run.fixtures_version} · runtime {inert(run.runtime, markup=False)} · {status}")
