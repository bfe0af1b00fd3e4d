"""The sidecar part of an edit step: after the store's editor made the case's edit, a
``sidecar=<target>:<op>`` variant empties or removes every file of its target
(:mod:`edits.sidecars`), in the trial's fresh copy with the SUT stopped, as one adversarial action.

Which targets are sidecars is read from the profile: every volume the adversary holds besides the
store's own and a service's data volume, and every sidecar folder the profile declares inside a
held volume (``sidecars:``, as ``<volume>/<folder>``), that holds a file in the trial's copy (an
empty one offers nothing to empty). The operation's file commands join the edit's statements; its
target's digests before and after go to C3 (:func:`lab.cases.sidecars.problems`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from edits import sidecars
from edits.model import EditError, EditSpec
from lab.method.row import Row
from lab.method.sessions import StageError


def volumes(row: Row, vols: dict[str, Path]) -> list[str]:
    """The sidecar targets of this row that hold a file in ``vols``: held sidecar volumes, then the
    declared sidecar folders, each sorted."""
    whole = sorted(name for name, held in row.bed.holders.items() if held and name not in _own(row))
    return [t for t in [*whole, *sorted(row.profile.sidecars)] if sidecars.holds_files(_path(vols, t))]


def apply(row: Row, spec: EditSpec, vols: dict[str, Path], applied: dict[str, Any]) -> None:
    """Make ``spec``'s sidecar operation, if it names one, and add it to ``applied`` (the edit's
    saved JSON); a target that is not a sidecar of the row is a StageError of the edit."""
    if spec.sidecar is None:
        return
    try:
        target, op = sidecars.parse(spec.sidecar)
    except EditError as exc:
        raise StageError("edit", f"{spec.case}: {exc}") from exc
    volume, folder = sidecars.where(target)
    if folder is None and (not row.bed.holders.get(volume) or volume in _own(row)):
        raise StageError("edit", f"{spec.case}: sidecar {spec.sidecar}: volume {volume!r} is not a volume the "
                                 "adversary holds besides the store's (the profile's volumes)")
    if folder is not None and target not in row.profile.sidecars:
        raise StageError("edit", f"{spec.case}: sidecar {spec.sidecar}: {target!r} is not a sidecar folder the "
                                 f"profile declares (its sidecars: {list(row.profile.sidecars)})")
    statements = [f"{target}/: {s}" for s in sidecars.apply(_path(vols, target), op)]
    applied["statements"] = [*applied.get("statements", []), *statements]
    applied.setdefault("detail", {})["sidecar"] = {"volume": target, "op": op, "files": len(statements)}


def evidence(spec: EditSpec, before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any] | None:
    """What C3 of a sidecar variant reads: its target's file digests before and after the edit, by
    their paths inside it (``before``/``after``: the held volumes' digests by name); None for any
    other spec."""
    if spec.sidecar is None:
        return None
    target = sidecars.parse(spec.sidecar)[0]
    volume, folder = sidecars.where(target)
    return {"volume": target, "before": sidecars.inside(before.get(volume, {}), folder),
            "after": sidecars.inside(after.get(volume, {}), folder)}


def _path(vols: dict[str, Path], target: str) -> Path:
    """The folder a sidecar target names in the trial's volumes."""
    volume, folder = sidecars.where(target)
    return vols[volume] / folder if folder else vols[volume]


def _own(row: Row) -> set[str]:
    """The volumes that are not sidecars: the store's own and every service's data volume."""
    return {row.profile.store.volume, *(s.volume for s in row.profile.services)}
