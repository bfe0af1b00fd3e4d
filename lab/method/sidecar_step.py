"""The sidecar part of an edit step: after the store's editor made the case's edit, a
``sidecar=<volume>:<op>`` variant empties or removes every file of its volume
(:mod:`edits.sidecars`), in the trial's fresh copy with the SUT stopped, as one adversarial action.

Which volumes are sidecars is read from the profile: every volume the adversary holds besides the
store's own and a service's data volume, that holds a file in the trial's copy (an empty volume
offers nothing to empty). The operation's file commands join the edit's statements; its volume's
digests before and after go to C3 (:func:`lab.cases.sidecars.problems`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from edits import sidecars
from edits.model import EditError, EditSpec
from lab.method.row import Row
from lab.method.sessions import StageError


def volumes(row: Row, vols: dict[str, Path]) -> list[str]:
    """The held sidecar volumes of this row that hold a file in ``vols``, sorted."""
    return sorted(name for name, held in row.bed.holders.items()
                  if held and name not in _own(row) and sidecars.holds_files(vols[name]))


def apply(row: Row, spec: EditSpec, vols: dict[str, Path], applied: dict[str, Any]) -> None:
    """Make ``spec``'s sidecar operation, if it names one, and add it to ``applied`` (the edit's
    saved JSON); a volume that is not a held sidecar of the row is a StageError of the edit."""
    if spec.sidecar is None:
        return
    try:
        volume, op = sidecars.parse(spec.sidecar)
    except EditError as exc:
        raise StageError("edit", f"{spec.case}: {exc}") from exc
    if not row.bed.holders.get(volume) or volume in _own(row):
        raise StageError("edit", f"{spec.case}: sidecar {spec.sidecar}: volume {volume!r} is not a volume the "
                                 "adversary holds besides the store's (the profile's volumes)")
    statements = [f"{volume}/: {s}" for s in sidecars.apply(vols[volume], op)]
    applied["statements"] = [*applied.get("statements", []), *statements]
    applied.setdefault("detail", {})["sidecar"] = {"volume": volume, "op": op, "files": len(statements)}


def evidence(spec: EditSpec, before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any] | None:
    """What C3 of a sidecar variant reads: its volume's file digests before and after the edit
    (``before``/``after``: the held volumes' digests by name); None for any other spec."""
    if spec.sidecar is None:
        return None
    volume = sidecars.parse(spec.sidecar)[0]
    return {"volume": volume, "before": before.get(volume, {}), "after": after.get(volume, {})}


def _own(row: Row) -> set[str]:
    """The volumes that are not sidecars: the store's own and every service's data volume."""
    return {row.profile.store.volume, *(s.volume for s in row.profile.services)}
