"""The edit step (T1..T8): one storage edit by the generic editor, with no SUT code loaded, then
C3 over the records read before and after it and the raw digests of every volume.

Jepsen's nemesis in small: the step is given the case, applies its edit and saves both the
intended edit and the one the editor reports it actually applied.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from edits.model import EditError
from lab.cases import Case, spec_for
from lab.judge.c3 import check_edit
from lab.method.bed import merge_diffs
from lab.method.row import Row
from lab.method.sessions import Session, StageError, records


class EditStep:
    """Applies one case's storage edit and its C3 to a trial's volumes."""

    def __init__(self, case: Case):
        self.case = case

    def apply(self, row: Row, obs: dict[str, Any], vols: dict[str, Path], held: Session | None = None) -> None:
        """Edit and C3; the raw digests are taken with every server stopped (or the ``held`` SUT's
        server up, in the process-alive position)."""
        case = self.case
        digests = row.bed.digests(vols, True), row.bed.digests(vols, False)
        spec = spec_for(case, row.plan, row.profile.store)
        obs["intended"] = spec.to_json()
        with row.sessions.store(obs, case.id, vols, held) as editor:
            before = records(editor)
            try:
                applied = editor.apply(spec)
            except EditError as exc:
                raise StageError("edit", f"{case.id}: {exc}") from exc
            obs["applied"] = applied.to_json()
            after = records(editor)
        files = merge_diffs(digests[0], row.bed.digests(vols, True))
        untouched = merge_diffs(digests[1], row.bed.digests(vols, False))
        result = check_edit(obs["intended"], row.profile.store.to_json(), before, after, files, untouched)
        obs["c3"] = {**result.to_json(), "files": files, "untouched_volumes": untouched,
                     "records_before": before, "records_after": after}
