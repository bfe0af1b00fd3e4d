"""The edit step (T1..T8): one storage edit by the generic editor, with no SUT code loaded, then
C3 over the records read before and after it and the raw digests of every volume.

Jepsen's nemesis in small: the step is given the case, applies its edit and saves both the
intended edit and the one the editor reports it actually applied. The step of a case's base
trial also lists the case's variants on this store (:mod:`lab.cases.variants`), read from the
same records before its edit; a variant's step is given its spec. A sidecar variant's operation
on its own volume follows the editor's edit (:mod:`lab.method.sidecar_step`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from edits.model import EditError, EditSpec
from lab.cases import Case, specs_for
from lab.cases.variants import enumerate_variants, spec_json
from lab.judge.c3 import check_edit
from lab.method import sidecar_step
from lab.method.bed import merge_diffs
from lab.method.row import Row
from lab.method.sessions import Session, StageError, read_records, records


class EditStep:
    """Applies one case's storage edit and its C3 to a trial's volumes."""

    def __init__(self, case: Case, spec: EditSpec | None = None, trial: str | None = None):
        self.case, self.spec, self.trial = case, spec, trial or case.id

    def apply(self, row: Row, obs: dict[str, Any], vols: dict[str, Path], held: Session | None = None) -> None:
        """Edit and C3; the raw digests are taken with every server stopped (or the ``held`` SUT's
        server up, in the process-alive position)."""
        case = self.case
        digests = row.bed.digests(vols, True), row.bed.digests(vols, False)
        specs = specs_for(case, row.plan, row.profile.store) if self.spec is None else [self.spec]
        spec = specs[0]
        obs["intended"] = spec_json(spec)
        with row.sessions.store(obs, self.trial, vols, held) as editor:
            read = read_records(editor)  # once: the C3 evidence before the edit, and the variants listed from it
            before = [r.to_json() for r in read]
            if self.spec is None:
                obs["variants"] = _variants(case, specs, editor, read, sidecar_step.volumes(row, vols))
            try:
                if case.check is not None:  # what the case itself asks of the records (lab.cases.replay)
                    case.check(spec, read)
                del read  # the before views are C3's: never the store's Records beside them through the edit
                applied = editor.apply(replace(spec, sidecar=None))  # the store's edit; the sidecar's below
            except EditError as exc:
                raise StageError("edit", f"{case.id}: {exc}") from exc
            obs["applied"] = applied.to_json()
            after = records(editor, before)  # what the edit left unchanged, shared with before
        sidecar_step.apply(row, spec, vols, obs["applied"])
        held_after = row.bed.digests(vols, True)
        files = merge_diffs(digests[0], held_after)
        untouched = merge_diffs(digests[1], row.bed.digests(vols, False))
        sidecar = sidecar_step.evidence(spec, digests[0], held_after)
        result = check_edit(obs["intended"], row.profile.store.to_json(), before, after, files, untouched, sidecar)
        obs["c3"] = {**result.to_json(), "files": files, "untouched_volumes": untouched,
                     "records_before": before, "records_after": after, **({"sidecar": sidecar} if sidecar else {})}


def _variants(case: Case, specs: list[EditSpec], editor, read: list, sidecars: list[str]) -> list[dict[str, Any]]:
    """The case's variants on this store, from the records ``read`` before the edit; a failure to list
    them is a StageError."""
    try:
        return enumerate_variants(case.id, specs, editor, read, sidecars)
    except (EditError, OSError, ValueError) as exc:
        raise StageError("variants", f"{case.id}: the generic editor could not list the variants: {exc}") from exc
