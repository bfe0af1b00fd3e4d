"""SUT profiles: what a row is, loaded from ``sut_profiles/*.yaml`` and validated.
May import: ``edits`` (the store layout) only.

Every error names the file, the line, the field and the fix. A profile::

    row: reference-naive                  # the row's name (unique)
    title: One line for people
    status: runnable                      # runnable | unavailable
    unavailable_reason: ...               # required when unavailable
    sut: {package: memlab-reference, version: 0.1.0, commit: null}
    driver: reference                     # folder under images/, or ./path relative to this file
    volumes:                              # every volume and who holds it
      store: {adversary: true}
      anchor: {adversary: false}
    services:                             # backends the store lives in (optional)
      db: {kind: postgres, volume: pgdata}  # postgres | redis, on a declared volume
    store: {...}                          # the layout, see edits.layout
    capabilities: {erasure: record, order: true, metadata: true, snapshot: true}
    configuration: {...}                  # features, head placement; passed to the driver
    detection_points: [read]              # read | audit (two points = two rows)
    signals: [{channel: log, level: WARNING, pattern: "integrity"}]
    dut_boundary: what is inside the device under test
    timeouts: {start: 60, op: 60}
    notes: free text
    position: stopped                     # stopped (the metric) | alive: the SUT process runs across
                                          # the edit and is read without a restart (its own row)
    measurements: [at_rest, lifecycle]    # which measurements the row takes (default [at_rest]);
                                          # a lifecycle-only row has no store:
    lifecycle: {capabilities: [ttl, tenants, update, erase], scope: separate}
                                          # what the lifecycle gate may ask: TTL with logical time,
                                          # tenant and user kept apart (else scope: folded into
                                          # one context "tenant/user"), the SUT's own update,
                                          # erase: one record erased by the SUT (else deletes are NOT TESTED)
"""

from __future__ import annotations

import fnmatch
from pathlib import Path

import yaml

from lab.profile.model import (IMAGES_DIR, PROFILES_DIR, PROJECT_ROOT, Capabilities, LifecycleSpec, Profile,
                               ProfileError, ServiceSpec, SignalFilter, driver_dir)
from lab.profile.validate import Validator
from lab.profile.yamlfile import line_index, read_text

__all__ = ["IMAGES_DIR", "PROFILES_DIR", "PROJECT_ROOT", "Capabilities", "LifecycleSpec", "Profile", "ProfileError", "ServiceSpec",
           "SignalFilter", "driver_dir", "load_profile", "load_profiles", "scan_profiles", "select"]


def load_profile(path: Path) -> Profile:
    """Load and validate one profile file."""
    text = read_text(path)
    try:
        node = yaml.compose(text)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else None
        raise ProfileError(path, line, "(yaml)", f"not valid YAML: {getattr(exc, 'problem', exc)}",
                           "fix the YAML syntax at that line") from exc
    lines = line_index(node)
    return Validator(path, data, lines).profile()


def load_profiles(directory: Path = PROFILES_DIR) -> list[Profile]:
    """Load every profile in a folder; raise the first error (invalid profile or duplicate row)."""
    profiles, errors = scan_profiles(directory)
    if errors:
        raise errors[0]
    return profiles


def scan_profiles(directory: Path = PROFILES_DIR) -> tuple[list[Profile], list[ProfileError]]:
    """Every valid profile of a folder, and the errors of the invalid ones (a run goes on without them)."""
    profiles: list[Profile] = []
    errors: list[ProfileError] = []
    seen: dict[str, Path] = {}
    for path in sorted(Path(directory).glob("*.yaml")):
        try:
            prof = load_profile(path)
            if prof.row in seen:
                raise ProfileError(path, 1, "row", f"duplicate row {prof.row!r} (also in {seen[prof.row].name})",
                                   "give every profile its own row name")
        except ProfileError as exc:
            errors.append(exc)
            continue
        seen[prof.row] = path
        profiles.append(prof)
    return profiles, errors


def select(profiles: list[Profile], patterns: list[str] | None) -> list[Profile]:
    """Profiles whose row matches any of the names or globs (all when none given)."""
    if not patterns:
        return list(profiles)
    chosen = [p for p in profiles if any(fnmatch.fnmatchcase(p.row, pat) for pat in patterns)]
    return chosen


