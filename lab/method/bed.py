"""The test bed of one row: the seeded (golden) volumes, a fresh copy of them per trial, the raw
digests of the volumes by who holds them, copies of the adversary's volumes put back whole, and
what the SUT said about its seeded records (their ids, the versions its writes made).

A trial's copy is a folder of its own, so trials may run side by side. A row whose SUT records its
store's resolved absolute path inside the store (a copy elsewhere would still point at the seeded
store, and a trial would change it) runs its trials **in place** (``in_place``): the seeded volumes
are kept aside as they were seeded (``pristine``) and put back into the folders they were seeded in
before every trial, which then runs there, one trial at a time. Either way the reference the trials
start from must not change while they run: :meth:`Bed.changed` says which of its files did.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from edits import volumes as vol


class Bed:
    """Volumes of one row under ``work``; ``holders`` maps each volume to ``adversary`` true/false."""

    def __init__(self, work: Path, holders: dict[str, bool], in_place: bool = False):
        self.work, self.holders, self.in_place = work, holders, in_place
        self.golden = work / "seeded"
        self.pristine = work / "pristine"  # in place: the seeded volumes as they were seeded
        self._reference: dict[str, dict] | None = None  # the digests of what every trial starts from
        self.seed_ids: dict[str, str] = {}  # marker -> the SUT's record id of that seeding write
        self.seed_versions: dict[str, str] = {}  # version the SUT reported after a seeding write -> marker

    def seeded(self) -> dict[str, Path]:
        """The golden volumes (created empty, for the seeding SUT to fill)."""
        vols = {name: self.golden / name for name in self.holders}
        for path in vols.values():
            path.mkdir(parents=True, exist_ok=True)
        return vols

    def seeding_done(self) -> None:
        """The seeded volumes are final: keep them aside (in place) and note their digests, which no
        trial may change."""
        if self.in_place:
            for name in self.holders:
                vol.snapshot(self.golden / name, self.pristine / name)
        self._reference = self._digests()

    def changed(self) -> list[str]:
        """The files of the volumes every trial starts from that changed since seeding (``volume/path``):
        a trial that wrote outside its copy. Empty before seeding is done."""
        if self._reference is None:
            return []
        now, out = self._digests(), []
        for name in self.holders:
            diff = vol.diff_digests(self._reference.get(name, {}), now.get(name, {}))
            out += [f"{name}/{path}" for kind in ("added", "removed", "changed") for path in diff.get(kind, [])]
        return sorted(out)

    def _digests(self) -> dict[str, dict]:
        root = self.pristine if self.in_place else self.golden
        return {name: vol.digest_tree(root / name) for name in self.holders}

    def fresh(self, obs: dict[str, Any], trial: str) -> dict[str, Path]:
        """A fresh copy of the seeded volumes for one trial (its time in ``timings.copy``): a folder of
        its own, or, in place, the seeded volumes put back where they were seeded."""
        started = time.monotonic()
        target = self.golden if self.in_place else self.work / "trials" / trial
        vols = {}
        for name in self.holders:
            vols[name] = target / name
            if self.in_place:
                vol.restore(self.pristine / name, vols[name])
            else:
                vol.snapshot(self.golden / name, vols[name])
        obs["timings"]["copy"] = round(time.monotonic() - started, 6)
        return vols

    def digests(self, vols: dict[str, Path], adversary: bool) -> dict[str, Any]:
        """File digests of the volumes the adversary holds (or of those it does not)."""
        return {name: vol.digest_tree(path) for name, path in vols.items() if self.holders[name] == adversary}

    def adversary(self, vols: dict[str, Path]) -> dict[str, Path]:
        """The volumes the adversary holds."""
        return {name: path for name, path in vols.items() if self.holders[name]}

    def copy_aside(self, vols: dict[str, Path], trial: str) -> dict[str, Path]:
        """Copy the adversary's volumes aside (as a unit each); the copies by volume name."""
        root = self.work / "trials" / f"{trial}-copy"
        copies = {name: root / name for name in self.adversary(vols)}
        for name, path in self.adversary(vols).items():
            vol.snapshot(path, copies[name])
        return copies

    def put_back(self, copies: dict[str, Path], vols: dict[str, Path]) -> None:
        """Put the copies back whole over the trial's volumes."""
        for name, copy in copies.items():
            vol.restore(copy, vols[name])


def merge_diffs(before: dict[str, Any], after: dict[str, Any]) -> dict[str, list[str]]:
    """The per-volume digest diffs as one: ``volume/path`` added, removed and changed."""
    out: dict[str, list[str]] = {"added": [], "removed": [], "changed": []}
    for name in sorted(set(before) | set(after)):
        diff = vol.diff_digests(before.get(name, {}), after.get(name, {}))
        for kind in out:
            out[kind] += [f"{name}/{path}" for path in diff.get(kind, [])]
    return out
