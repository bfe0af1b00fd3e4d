"""The rows ``--sut`` selects for a measurement that runs SUTs through their drivers (the lifecycle gate,
the front door): each one the measurement takes and the chosen runtime can run here, or exit 2 with the
fix. Imports the profiles and the runtimes when it runs."""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Any

from lab.cli.results import err, fail
from lab.report.inert import inert


def rows_to_measure(profiles_dir: Path, patterns: tuple[str, ...], runtime_name: str,
                    measurement: str) -> tuple[list, Any]:
    """The selected profiles, each one ``measurement`` (the lifecycle gate, or the front door) can measure
    here (else exit 2 with the fix), and the runtime chosen for them (lab.runtime.choice.Choice). A row named
outright is read through the cache of validated profiles (lab.cli.profile_cache)."""
    from lab.cli.profile_cache import cached_load
    from lab.profile import file_row, no_row_matches, scan_named, scan_profiles, select
    from lab.runtime import RuntimeUnavailable
    from lab.runtime import runnable as runnable_here
    from lab.runtime.choice import choose

    if not profiles_dir.is_dir():
        fail(f"no profile folder at {profiles_dir}")
    profiles, errors = scan_named(profiles_dir, list(patterns), cached_load) or scan_profiles(profiles_dir)
    chosen = select(profiles, list(patterns))
    bad = [e for e in errors if any(fnmatch.fnmatchcase(file_row(e.path), p) for p in patterns)]
    for error in bad:
        err.print(f"[bold red]invalid profile[/] {inert(str(error), lines=True)}", highlight=False)
    if bad:
        fail("a selected profile is invalid; nothing was run")
    if not chosen:
        fail(no_row_matches(patterns, [p.row for p in profiles] + [file_row(e.path) for e in errors], profiles_dir))
    try:
        choice = choose(runtime_name, chosen)
    except RuntimeUnavailable as exc:
        fail(str(exc))
    runtime = choice.runtime
    for prof in chosen:
        if measurement not in prof.measurements:
            fail(f"{prof.row} does not take the {measurement} measurement (its profile's measurements: "
                 f"{list(prof.measurements)})\n  fix: add {measurement} to measurements and a {measurement}: "
                 f"block to {prof.path} (docs/own-sut.md), or pick a {measurement} row (`memlab list`)")
        if prof.status != "runnable":
            fail(f"{prof.row} is unavailable: {prof.unavailable_reason}")
        ok, why = runnable_here(runtime, prof)
        if not ok:
            fail(f"{prof.row} cannot run on the {runtime.name} runtime here: {why}")
    return chosen, choice
