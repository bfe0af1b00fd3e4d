"""SUT profiles: what a row is, loaded from ``sut_profiles/*.yaml`` (and ``*.yml``) and validated.
May import: ``edits`` (the store layout) only.

Every error names the file, the line, the field and the fix. The file is read safely
(:mod:`lab.profile.yamlfile`: size, depth, aliases, duplicate keys), its shape checked by one strict
schema (:mod:`lab.profile.schema`), the rules across sections by :mod:`lab.profile.validate`. A profile::

    row: reference-naive                  # the row's name (unique; letters, digits, . _ + -; no ..)
    title: One line for people
    status: runnable                      # runnable | unavailable
    unavailable_reason: ...               # required when unavailable
    sut: {package: memlab-reference, version: 0.1.0, commit: null}
    driver: reference                     # folder under images/, or ./path from this file's folder (no ..),
                                          # or an absolute /path
    volumes:                              # every volume and who holds it
      store: {adversary: true}
      anchor: {adversary: false}
    services:                             # backends the store lives in (optional)
      db: {kind: postgres, volume: pgdata}  # postgres | redis, on a declared volume
    store: {...}                          # the layout, see edits.layout
    sidecars: [{volume: store, path: trace}]   # sidecar folders inside held volumes (optional): the
                                          # sidecar variants empty or remove their files only
    capabilities: {erasure: record, order: true, metadata: true, snapshot: true}
    configuration: {...}                  # features, head placement; passed to the driver
    detection_points: [read]              # read | audit (two points = two rows)
    signals: [{channel: log, level: WARNING, pattern: "integrity"}]   # level DEBUG..CRITICAL; pattern a regex
    dut_boundary: what is inside the device under test
    timeouts: {start: 60, op: 60}         # seconds, 0.5 to 3600
    limits: {line_bytes: 16777216, answer_bytes: 16777216}   # driver boundary, 4096 to 268435456 bytes
    notes: free text
    for_users: {at_rest: ..., lifecycle: ...}   # optional: what the published results mean for a user of
                                          # the SUT, a line per measurement the row takes (docs/rows.md,
                                          # docs/rows-lifecycle.md; never part of a result set)
    position: stopped                     # stopped (the metric) | alive: the SUT process runs across
                                          # the edit and is read without a restart (its own row)
    measurements: [at_rest, lifecycle]    # which measurements the row takes (default [at_rest];
                                          # frontdoor too, with its block below);
                                          # a lifecycle-only row has no store:
    lifecycle: {capabilities: [ttl, tenants, update, erase], scope: separate, isolation: sut}
                                          # what the lifecycle gate may ask: TTL with logical time,
                                          # tenant and user kept apart (else scope: folded into
                                          # one context "tenant/user"), the SUT's own update,
                                          # erase: one record erased by the SUT (else deletes are NOT TESTED);
                                          # isolation: who keeps contexts apart (sut | separate-store |
                                          # driver; scope leakage is counted only for sut)
    frontdoor: {isolation: sut, label: "remember(source=...)", signature: null}
                                          # the front door: who keeps contexts apart, and the SUT's
                                          # own mechanism a write's label and signature go to (null:
                                          # none; without a label the three channels are one cell)
    fork_server: {enabled: true, preload: [sqlite3], per_start: [my-sut], unused_paths: [m.CONF_DIR]}
                                          # start the driver from a pre-imported, forked server (default
                                          # on), importing these modules first (default none); the
                                          # distributions in per_start read the trial's environment at
                                          # import: never preloaded, each start imports them itself;
                                          # unused_paths: module globals that keep the server's path
                                          # from import and are never used after it (say why)
"""

from __future__ import annotations

import difflib
import fnmatch
from pathlib import Path
from typing import Callable, Iterable, Sequence

from lab.profile.names import file_row
from lab.profile.model import (IMAGES_DIR, PROFILES_DIR, PROJECT_ROOT, Capabilities, ForkServer, LifecycleSpec, Profile,
                               ProfileError, ServiceSpec, SignalFilter, driver_dir)
from lab.profile.yamlfile import line_index, load_yaml, read_text

__all__ = ["IMAGES_DIR", "PROFILES_DIR", "PROJECT_ROOT", "Capabilities", "ForkServer", "LifecycleSpec", "Profile", "ProfileError", "ServiceSpec",
           "SignalFilter", "driver_dir", "file_row", "line_index", "load_profile", "load_profiles", "profile_files", "read_text", "scan_named",
           "no_row_matches", "scan_profiles", "select"]


def load_profile(path: Path) -> Profile:
    """Load and validate one profile file."""
    from lab.profile.validate import Validator  # the schema (pydantic) only once a profile is read

    data, lines, texts = load_yaml(path)
    return Validator(path, data, lines, texts).profile()


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
    for path in profile_files(directory):
        try:
            prof = load_profile(path)
            if prof.row in seen:
                raise ProfileError(path, 1, "row", f"duplicate row {prof.row!r} (also in {seen[prof.row].name})",
                                   "give every profile its own row name")
        except ProfileError as exc:
            errors.append(exc)
            continue
        except Exception as exc:  # noqa: BLE001 -- one file the checks missed must not stop the others
            errors.append(ProfileError(path, None, "(file)", f"could not be checked: {type(exc).__name__}: {exc}",
                                       "fix the file (and report the file to the lab: it should have been a "
                                       "clear error)"))
            continue
        seen[prof.row] = path
        profiles.append(prof)
    return profiles, errors


def scan_named(directory: Path, patterns: list[str],
               load: Callable[[Path], Profile] = load_profile) -> tuple[list[Profile], list[ProfileError]] | None:
    """The profiles of rows named outright (no glob), each read from its own file ``<row>.yaml``
    alone (by ``load``: :func:`load_profile`, or a cache of it), as ``scan_profiles`` then ``select``
    would give them; None when a pattern is a glob or has no file of its name (then scan the folder).
    Reading one file instead of every profile is what a command naming one row waits for."""
    if not patterns or any(set(p) & set("*?[") for p in patterns):
        return None
    paths = [Path(directory) / f"{p}.yaml" for p in dict.fromkeys(patterns)]
    if not all(p.is_file() for p in paths):
        return None
    profiles, errors = [], []
    for path in paths:
        try:
            prof = load(path)
        except ProfileError as exc:
            errors.append(exc)
            continue
        if prof.row != path.stem:
            return None  # a file that holds another row: let the scan say so
        profiles.append(prof)
    return profiles, errors


def profile_files(directory: Path = PROFILES_DIR) -> list[Path]:
    """The profile files of a folder: every ``*.yaml`` and ``*.yml`` (any case), in name order."""
    return sorted(p for p in Path(directory).iterdir() if p.suffix.lower() in (".yaml", ".yml") and not p.is_dir())


def select(profiles: list[Profile], patterns: list[str] | None) -> list[Profile]:
    """Profiles whose row matches any of the names or globs (all when none given)."""
    if not patterns:
        return list(profiles)
    chosen = [p for p in profiles if any(fnmatch.fnmatchcase(p.row, pat) for pat in patterns)]
    return chosen


def no_row_matches(patterns: Sequence[str], rows: Iterable[str], where: Path | str | None = None) -> str:
    """The error of every command whose ``--sut`` names or globs select no row: what was given, the
    rows closest to each (``difflib.get_close_matches``, case aside: a "did you mean" as click's
    options have) among ``rows`` (the rows of the profile folder ``where``), and where rows are listed.

    >>> print(no_row_matches(["reference-naiv"], ["reference-naive", "agno-sqlite", "mem0-qdrant-local"]))
    no row 'reference-naiv'
      did you mean reference-naive?
      fix: give a row's name or a glob (`memlab list` shows the rows)

    A name that begins rows no typo is near gets those rows (``mem0``: ``mem0-qdrant-local``).
    """
    by_case = {}
    for row in sorted(set(rows)):
        by_case.setdefault(row.lower(), row)
    said = repr(patterns[0]) if len(patterns) == 1 else "matches any of " + ", ".join(map(repr, patterns))
    lines = [f"no row {said}" + (f" in {where}" if where is not None else "")]
    for pattern in patterns:
        close = [by_case[c] for c in difflib.get_close_matches(pattern.lower(), list(by_case), n=3, cutoff=0.6)]
        close = close or [row for low, row in by_case.items() if low.startswith(pattern.lower())][:3]
        if close:
            also = f" (also close: {', '.join(close[1:])})" if close[1:] else ""
            which = f"{pattern!r}: " if len(patterns) > 1 else ""
            lines.append(f"  {which}did you mean {close[0]}?{also}")
    lines.append("  fix: give a row's name or a glob (`memlab list` shows the rows)")
    return "\n".join(lines)


