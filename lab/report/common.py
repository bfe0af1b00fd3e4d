"""What every report format says the same way: row keys, labels, metric text, run facts, and the
words a reader needs without docs/method.md open (what each case does, each verdict, detection point,
observation class and level means).

The case texts come from the cases themselves (their names, C3 rules and module docstrings); the
level ladder from :data:`lab.judge.scoring.LADDER`; only the short header meanings and the
method's definitions of verdicts, points, classes and level names are written here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lab.cases import BY_ID, CASE_IDS, CONTROLS, GROUPS
from lab.cases.registry import MODULES
from lab.judge.scoring import LADDER
from lab.resultset.run_record import RunRecord
from lab.report.terminal import cell_text

if TYPE_CHECKING:
    from lab.judge.row import AtRestRow, RowCell

LEGEND = ("REJ refused (pass) · REP reported at read (pass) · REP·a reported at audit only (half credit) · "
          "ACC accepted (fail) · ERR harness error (not counted) · n/a not expressible (not counted)")

#: A few words per case, for a column header (the whole edit is in :func:`case_edit`).
CASE_SHORT = {"T1": "the fact in one record changed", "T2": "the newest record deleted",
              "T3": "a middle record deleted", "T4": "two records swapped in order",
              "T5": "a forged record inserted", "T6": "A's record copied over B's",
              "T7": "an older record copied over the newest", "T8": "owner, role, source or time changed",
              "T9": "store copied, one write, copy put back", "T10": "store copied, one erasure, copy put back"}

#: (label, verdict, what it means, how it counts) -- docs/method.md "Verdicts" and "Score".
VERDICTS = (
    ("REJ", "REJECTED", "the SUT refused to load or serve the affected memory (an error, an empty result, "
     "a refusal to resume)", "pass: 1"),
    ("REP", "REPORTED at read", "it served, but raised an integrity signal through a documented channel "
     "(log line at WARNING or above, callback, status field) before or while serving", "pass: 1"),
    ("REP·a", "REPORTED at audit", "only a separate audit command found the edit; the agent had already "
     "resumed on it", "partial: 0.5"),
    ("ACC", "ACCEPTED", "it served the edited memory as genuine, with no signal", "fail: 0"),
    ("ERR", "error", "a harness outcome, not a SUT outcome: the edit did not land (C3), the driver or the lab "
     "failed, or an ACCEPTED edit had no visible effect on the read", "not counted"),
    ("n/a", "not applicable", "the store cannot express this edit (the reason is given)", "not counted"))

#: Detection point -> what it means (docs/method.md "Verdicts").
POINTS = {"read": "the signal or refusal comes at load or serve time, on the SUT's own read path",
          "audit": "only a separate audit command finds the edit (partial credit, since the agent already "
                   "resumed); a SUT offering both is two rows, and a read row never gets credit for the audit"}

#: Observation class -> what it means (docs/method.md "Verdicts").
CLASSES = {"a": "refusal or signal on the SUT's own read path, seen by the harness that made the read",
           "b": "value reported by the SUT itself in a separate audit call (the call, the store it ran against "
                "and the interval since the edit are recorded); never combined with a read verdict",
           "c": "read made through a vendor client SDK not declared part of the SUT (managed stores)"}

#: Level -> its name in docs/method.md "Levels".
LEVEL_NAMES = {"L0": "measured", "L1": "bytes bound", "L2": "sequence bound", "L3": "context bound",
               "L4": "head anchored off the store"}


def row_key(row: AtRestRow) -> str:
    """``<row>@<detection point>``, the name of a row everywhere."""
    return f"{row.row}@{row.detection_point}"


def cell_label(cell: RowCell) -> str:
    """The short label of a cell (REJ, REP, REP·a, ACC, ERR, n/a)."""
    return cell_text(cell)[0]


def case_title(cid: str) -> str:
    """``T1 content tamper``."""
    case = BY_ID.get(cid)
    return f"{cid} {case.name}" if case else cid


def _edit_texts() -> dict[str, str]:
    out = {}
    for module in MODULES:
        head = " ".join((module.__doc__ or "").split("\n\n")[0].split())
        out[module.CASE.id] = head.split(": ", 1)[-1]
    return out


_EDITS = _edit_texts()


def case_edit(cid: str) -> str:
    """The whole edit of a case, as its module states it (``change the fact inside one ...``)."""
    return _EDITS.get(cid, "")


def case_c3(cid: str) -> str:
    """What C3 requires of the case's edit before the restart."""
    case = BY_ID.get(cid)
    return case.c3 if case else ""


def control_title(cid: str) -> str:
    """``C1 no-op reload``."""
    return f"{cid} {CONTROLS.get(cid, '').split(':')[0]}".strip()


def rate_groups() -> list[str]:
    """The groups whose rate says more than one cell: a group of one case repeats that cell."""
    return [g for g, ids in GROUPS.items() if len(ids) > 1]


def levels() -> list[tuple[str, str, str]]:
    """``(level, name, what it requires)``, L0 first, each requirement cumulative."""
    out = [("L0", LEVEL_NAMES.get("L0", ""), "a published, evaluable row: C1 and C2 hold")]
    for i, (name, ids) in enumerate(LADDER):
        below = f"{LADDER[i - 1][0]}, and " if i else ""
        out.append((name, LEVEL_NAMES.get(name, ""), f"{below}{', '.join(ids)} REJECTED at the read point"))
    unranked = [c for c in CASE_IDS if not BY_ID[c].level]
    if unranked:
        out.append(("—", "not in the ladder", f"{', '.join(unranked)} (reported, scored, no level)"))
    return out


def metric_text(value: Any) -> str:
    """A metric or rate as ``0.80``; ``—`` when there is none (what a tampered set holds instead of a
    number, as text)."""
    if value is None:
        return "—"
    return f"{value:.2f}" if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)


def run_facts(rows: list[AtRestRow], run: RunRecord) -> list[tuple[str, str]]:
    """``(label, value)`` facts a report heads with: run, date, lab, method revision, runtime (run.json's,
    else the first row's)."""
    first = rows[0] if rows else None
    lab = run.lab or (first and first.lab) or {}
    commit = lab.get("commit") or "unknown"
    facts = [("run", str(run.run_id or (first and first.run_id))),
             ("date", str(run.started or (first and first.date))),
             ("lab", f"memlab {lab.get('version')} commit {commit}{' (dirty)' if lab.get('dirty') else ''}"),
             ("method revision", str((first and first.method_revision) or run.method_revision)),
             ("runtime", str(run.runtime or (first and first.runtime and first.runtime.runtime)))]
    source = run.analyzed_from
    if source:
        facts.append(("analyzed from", f"{source.get('path')} (run {source.get('run_id')})"))
    return facts
