"""The restore step (T9, T10): copy the adversary's volumes, let the SUT make the case's own
operation (T9 a genuine write, T10 an erasure: ``case.sut_op``), put the copy back whole, then
C3: the operation changed exactly the records it names, the restored store equals the copy.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lab.cases import Case, CaseError
from lab.judge.c3 import check_restore
from lab.method.row import Row
from lab.method.sessions import Session, StageError


class RestoreStep:
    """Applies one restore case around the SUT's own operation, and its C3."""

    def __init__(self, case: Case, trial: str | None = None):
        self.case, self.trial = case, trial or case.id  # the trial it runs in (a composition's sequence)

    def apply(self, row: Row, obs: dict[str, Any], vols: dict[str, Path], held: Session | None = None) -> None:
        """Copy, operate, put back, C3. The operation runs in a SUT started for it, or in the
        ``held`` one (process-alive position)."""
        case, bed, sessions = self.case, row.bed, row.sessions
        digests_before = bed.digests(vols, True)
        copies = bed.copy_aside(vols, self.trial)
        before = sessions.store_records(obs, self.trial, vols, held)
        with sessions.held_or_new(obs, f"{self.trial}-op", vols, held) as session:
            answer, named = self._operate(row, obs, session)
        if not answer["ok"]:
            raise session.stage_error("sut-op", f"{case.id}: the SUT refused its own {obs['intended']['op']}: "
                                                f"{answer.get('error')}")
        mid = sessions.store_records(obs, self.trial, vols, held, before)
        bed.put_back(copies, vols)
        digests_after = bed.digests(vols, True)
        after = sessions.store_records(obs, self.trial, vols, held, before)
        obs["applied"] = {"case": case.id, "backend": "volumes",
                          "statements": [f"copy volume {n} before the SUT op; put it back whole after"
                                         for n in copies], "touched": sorted(copies)}
        result = check_restore(case.id, named, before, mid, after, digests_before, digests_after,
                               row.profile.store.to_json())
        obs["c3"] = {**result.to_json(), "records_before": before, "records_between": mid,
                     "records_after": after,  # the file digests too, so verify re-runs C3's byte half
                     "digests_before": digests_before, "digests_after": digests_after}

    def _operate(self, row: Row, obs: dict[str, Any], session: Session) -> tuple[dict[str, Any], list[str]]:
        """The case's SUT op through ``session``; the answer and the markers it names."""
        try:
            op = self.case.sut_op(row.plan, row.bed.seed_ids, row.profile.capabilities)
        except CaseError as exc:
            raise StageError("sut-op", str(exc)) from exc
        obs["intended"] = op.intended
        answer = session.call(op.op, **op.fields)
        if op.version_marker and (answer.get("record") or {}).get("version") is not None:
            obs["op_version"] = {str(answer["record"]["version"]): op.version_marker}  # names the new version row
        obs["sut_op"] = answer
        return answer, op.named
