"""C3, "edit landed": did the raw store change exactly as the case intends?

Pure functions over saved evidence: the record views (``Record.to_json()``) read by the
generic editor before and after the edit, and the file digests of the raw volumes. What the
case intends is the case's own rule (``lab.cases.tN``: ``rule``, and ``state_rule`` for whole
version rows of a sealed state), found through the registry; this module adds what holds for
every case: the raw volume changed, a volume the adversary does not hold did not, a sidecar
variant's operation on its volume happened (:mod:`lab.cases.sidecars`), and -- for a restore
case -- the restored copy equals the pre-op store record for record and byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lab.cases import BY_ID
from lab.cases import sidecars
from lab.cases.evidence import Rec, RecordView


@dataclass
class C3Result:
    """Whether the edit landed, why not, and the evidence summary."""

    ok: bool
    reasons: list[str] = field(default_factory=list)
    evidence: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Plain data for the observation file."""
        return {"ok": self.ok, "reasons": list(self.reasons), "evidence": self.evidence}


def check_edit(spec: dict[str, Any], layout: dict[str, Any], before: list[Rec], after: list[Rec],
               files: dict[str, Any], untouched_files: dict[str, Any] | None = None,
               sidecar: dict[str, Any] | None = None) -> C3Result:
    """C3 for T1..T8: ``spec`` is ``EditSpec.to_json()``, ``files`` the digest diff of the held
    volumes, ``sidecar`` a sidecar variant's digests of its volume before and after the edit."""
    reasons: list[str] = []
    changed_files = files.get("added", []) + files.get("removed", []) + files.get("changed", [])
    if not changed_files:
        reasons.append("raw volume unchanged: no file of the store differs after the edit")
    if untouched_files and any(untouched_files.get(k) for k in ("added", "removed", "changed")):
        reasons.append(f"a volume the adversary does not hold changed: {untouched_files}")
    view = RecordView(layout)
    case = BY_ID.get(spec["case"])
    rule = None
    if case is not None and not case.restores:
        rule = case.state_rule if spec.get("unit") == "state" else case.rule
    if rule is None:
        return C3Result(False, [f"no C3 rule for {spec['case']}"])
    reasons += rule(view, {k: v for k, v in spec.items() if k != "sidecar"}, before, after)
    if spec.get("sidecar") is not None:
        reasons += sidecars.problems(spec["sidecar"], sidecar, files)
    evidence = {"records_before": len(before), "records_after": len(after),
                "files_changed": sorted(changed_files), "record_changes": view.changes(before, after)}
    return C3Result(not reasons, reasons, evidence)


def check_restore(case_id: str, named: list[str], before: list[Rec], mid: list[Rec], after: list[Rec],
                  digests_before: dict[str, Any], digests_after: dict[str, Any], layout: dict[str, Any]) -> C3Result:
    """C3 for a restore case (T9, T10): the SUT's own op changed exactly the ``named`` records (the
    case's rule), and the restored copy equals the pre-op store record for record and byte for byte."""
    case = BY_ID.get(case_id)
    if case is None or not case.restores:
        return C3Result(False, [f"no C3 rule for {case_id}"])
    view = RecordView(layout)
    reasons = case.rule(view, named, before, mid)
    if view.signatures(after) != view.signatures(before):
        reasons.append("the restored store differs from the copy record for record")
    if digests_after != digests_before:
        reasons.append("the restored volume differs from the copy byte for byte")
    added, removed = view.between(before, mid)
    evidence = {"records_before": len(before), "records_between": len(mid), "records_after": len(after),
                "between": {"added": added, "removed": removed}, "restored_equal": not reasons}
    return C3Result(not reasons, reasons, evidence)
