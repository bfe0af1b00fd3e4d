"""A whole sweep: each release resolved, written as its own row, measured and verified, one after the
other (or in the order the halving asks), the record rewritten after every release.

The record is written before the first release and again after each one, so a sweep that is stopped
(Ctrl-C, SIGTERM, a crash) keeps every finished release's set and says which release was cut short
(its partial set kept) and which were not reached. Run again with the same ``--out``, a sweep keeps
the releases already measured (their sets verified again, not measured again), completes a partial set
with ``--resume`` and measures the rest; the requirements a release was resolved to are kept in the
sweep (``requirements/<version>.txt``) and reused, so a release is measured again from the same pins.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from lab.profile import Profile
from lab.resultset.loading import Unreadable
from lab.resultset.files import lab_revision
from lab.runtime.housekeeping import cache_dir
from lab.sweep import summary
from lab.sweep.halving import halve
from lab.sweep.measure import Interrupted, Measured, Options, measure_release
from lab.sweep.resolve import Resolution, pinned_version, resolve
from lab.sweep.versionrow import check_sweepable, version_row, write_version_row


class SweepRefused(ValueError):
    """The sweep cannot start: the message says why and what to do."""


@dataclass
class Request:
    """One sweep: the row, the releases chosen (oldest first), how they were chosen, where it goes."""

    profile: Profile
    versions: list[str]
    out: Path
    selection: dict[str, Any]
    bisect: bool = False
    options: Options = field(default_factory=Options)


Say = Callable[[str], None]


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def took(started: float) -> str:
    """The time since ``started`` (time.monotonic), as a release's last line says it: ``48 s``, ``3 min 5 s``."""
    seconds = round(time.monotonic() - started)
    return f"{seconds} s" if seconds < 60 else f"{seconds // 60} min {seconds % 60} s"


def start_record(request: Request) -> dict[str, Any]:
    """The record as the sweep starts (the previous run's entries kept, for a sweep run again)."""
    profile = request.profile
    check_sweepable(profile)
    pins = (profile.driver_dir / "requirements.txt").read_text(encoding="utf-8")
    package = str(profile.sut["package"])
    for version in request.versions:
        version_row(profile.row, version)  # a version that cannot name a row: refused before anything runs
    previous: dict[str, Any] = {}
    if (request.out / summary.RECORD).is_file():
        try:
            old = summary.load(request.out)
        except (Unreadable, ValueError) as exc:
            raise SweepRefused(f"{request.out} holds a sweep record that cannot be read ({exc}); give a new --out") from None
        if old["row"] != profile.row or old["package"] != package:
            raise SweepRefused(f"{request.out} holds the sweep of {old['row']} ({old['package']}); give a new --out "
                               f"for {profile.row}")
        if old.get("selection") != request.selection:
            raise SweepRefused(f"{request.out} holds a sweep of other releases ({old.get('selection')}); run it again "
                               "with the same selection to continue it, or give a new --out")
        previous = {r["version"]: r for r in old["releases"]}
    elif request.out.exists() and any(request.out.iterdir()):
        raise SweepRefused(f"{request.out} is not empty and holds no sweep: give a new folder (or the --out of the "
                           "sweep to continue)")
    releases = []
    for version in request.versions:
        entry = summary.release_entry(version, version_row(profile.row, version))
        if previous.get(version, {}).get("resolution"):
            entry["resolution"] = previous[version]["resolution"]
        releases.append(entry)
    return {"schema": summary.SCHEMA, "row": profile.row, "package": package,
            "pinned": pinned_version(pins, package) or str(profile.sut.get("version")),
            "selection": request.selection, "options": {"runtime": request.options.runtime,
                                                         "jobs": request.options.jobs,
                                                         "lifecycle_fail_on": request.options.fail_on,
                                                         "fork_server": request.options.fork_server},
            "measurements": list(profile.measurements), "lab": lab_revision(), "started": now(), "finished": None,
            "status": "running", "releases": releases, "cells": {}, "variants": {}, "changes": [],
            "variant_changes": []}


def run_sweep(request: Request, say: Say = lambda text: None) -> dict[str, Any]:
    """Measure the request's releases; the record, written after each release (and as it ends)."""
    doc = start_record(request)
    out = request.out
    out.mkdir(parents=True, exist_ok=True)
    summary.write(out, doc)
    entries = {r["version"]: r for r in doc["releases"]}
    count = [0]

    def measure(version: str) -> dict[str, str] | None:
        count[0] += 1
        entry = entries[version]
        shown = f"[{count[0]}{'' if request.bisect else '/' + str(len(request.versions))}] {doc['package']} {version}"
        measured = _measure(request, version, entry, lambda text: say(f"{shown}: {text}"))
        if measured is not None:
            doc["cells"][version] = measured.cells or {}
            doc["variants"][version] = measured.variants or {}
        summary.write(out, doc)
        # the halving compares releases on their cells and their variants: a fix of one expression counts
        return None if measured is None else {**(measured.cells or {}),
                                              **{f"variant {k}": v for k, v in (measured.variants or {}).items()}}

    try:
        if request.bisect:
            done = halve(request.versions, measure)
            for version, (low, high) in done.skipped.items():
                entries[version].update(status="skipped", skipped_between=[low, high])
        else:
            for version in request.versions:
                measure(version)
        doc["status"] = "completed"
    except (Interrupted, KeyboardInterrupt):
        doc["status"] = "interrupted"
        raise
    finally:
        doc["finished"] = now()
        summary.write(out, doc)
    return doc


def _measure(request: Request, version: str, entry: dict[str, Any], say: Say) -> Measured | None:
    """One release, start to end: resolved, written as its row, measured; its entry updated."""
    profile, out = request.profile, request.out
    started = time.monotonic()
    pins = (profile.driver_dir / "requirements.txt").read_text(encoding="utf-8")
    kept = out / "requirements" / f"{version}.txt"
    if kept.is_file():
        requirements = kept.read_text(encoding="utf-8")
        say(f"installing from {kept.relative_to(out)} (resolved by an earlier run of this sweep)")
    else:
        say("resolving its environment (the row's pins, this release in place of the pinned one)")
        resolution: Resolution = resolve(pins, str(profile.sut["package"]), version)
        entry["resolution"] = {**resolution.to_json(), "requirements": str(kept.relative_to(out)) if resolution.ok else None}
        if not resolution.ok:
            entry.update(status="not-installed", message=resolution.message)
            say(f"could not be installed ({took(started)}): " + (resolution.message.splitlines() or ["pip failed"])[0])
            return None
        requirements = resolution.requirements
        kept.parent.mkdir(parents=True, exist_ok=True)
        kept.write_text(requirements, encoding="utf-8")
        for item in resolution.released:
            say(f"pin released: {item['package']} {item['pinned']} -> {item['resolved']} ({item['because']})")
    scratch = cache_dir() / "sweeps" / hashlib.sha256(str(out.resolve()).encode()).hexdigest()[:12] / version
    row = write_version_row(profile, version, requirements, scratch)
    entry["status"] = "interrupted"  # until it ends: what a record written meanwhile says of it
    say(f"measuring {row}" + (" at rest and through the lifecycle gate" if "lifecycle" in profile.measurements
                              and "at_rest" in profile.measurements else ""))
    measured = measure_release(version, row, scratch, out / version, "at_rest" in profile.measurements,
                               "lifecycle" in profile.measurements, request.options)
    entry.update(status=measured.status, sets=summary.relative_sets(measured.sets, out))
    entry.pop("message", None)
    if measured.message:
        entry["message"] = measured.message
    if measured.status == "measured":
        say(("kept from an earlier run, verified" if measured.kept else "measured and verified")
            + f": {len(measured.cells or {})} cells ({took(started)})")
        return measured
    say(f"{summary.STATUS_WORDS[measured.status]} ({took(started)}): " + (measured.message.splitlines() or [""])[0])
    return None
