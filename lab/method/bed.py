"""The test bed of one row: the seeded (golden) volumes, a fresh copy of them per trial, the raw
digests of the volumes by who holds them, copies of the adversary's volumes put back whole, and
what the SUT said about its seeded records (their ids, the versions its writes made)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from edits import volumes as vol


class Bed:
    """Volumes of one row under ``work``; ``holders`` maps each volume to ``adversary`` true/false."""

    def __init__(self, work: Path, holders: dict[str, bool]):
        self.work, self.holders = work, holders
        self.golden = work / "seeded"
        self.seed_ids: dict[str, str] = {}  # marker -> the SUT's record id of that seeding write
        self.seed_versions: dict[str, str] = {}  # version the SUT reported after a seeding write -> marker

    def seeded(self) -> dict[str, Path]:
        """The golden volumes (created empty, for the seeding SUT to fill)."""
        vols = {name: self.golden / name for name in self.holders}
        for path in vols.values():
            path.mkdir(parents=True, exist_ok=True)
        return vols

    def fresh(self, obs: dict[str, Any], trial: str) -> dict[str, Path]:
        """A fresh copy of the seeded volumes for one trial (its time in ``timings.copy``)."""
        started = time.monotonic()
        target = self.work / "trials" / trial
        vols = {}
        for name in self.holders:
            vols[name] = target / name
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
