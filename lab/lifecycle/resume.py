"""``memlab lifecycle run --resume DIR``: the targets of a lifecycle run that did not complete.

A lifecycle set records what each (row, position) states about its SUT (run.json ``rows``) and
the options that built it (``options``: the profile folder; a shim's config path in its meta).
A resume rebuilds each target from them — the same row's profile on the same runtime, the same
shim config — keeps its meta (so the set stays one run), and the gate then measures only the
(scenario, seed) runs without an observation (``partial.missing``), each in a fresh SUT
process on fresh volumes, exactly as they would have run: every scenario starts from a reset,
in its own namespace. Erasure-at-rest attribution sees the resumed runs on their own volumes.

Refused (:class:`ResumeRefused`, with the fix): a folder without a lifecycle run, a run that
completed, a lab that changed since (another commit, or edits to lab/, edits/, images/ or
sut_profiles/), a profile or a shim config that is gone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lab.lifecycle.gate_run import Target, http_target, sut_target
from lab.lifecycle.partial import lifecycle_partial, missing
from lab.lifecycle.results import row_key
from lab.lifecycle.run_record import LifecycleRun, LifecycleRunShapeError, read_lifecycle_run
from lab.profile import PROFILES_DIR, ProfileError, load_profile
from lab.resultset.loading import JSONProblem, read_strict
from lab.resultset.files import lab_revision


class ResumeRefused(Exception):
    """The folder cannot be resumed; the message says why and the fix."""


def resume_targets(root: Path, no_fork_server: bool = False) -> tuple[LifecycleRun, list[Target]]:
    """(the run's run.json record, its targets, each with the runs it still has to measure)."""
    root = Path(root)
    try:
        data = read_strict(root / "run.json")
    except (OSError, JSONProblem) as exc:
        raise ResumeRefused(f"{root}: no lifecycle run to resume ({exc})\n  fix: point --resume at the --out folder "
                            "of the run that did not finish") from None
    if not isinstance(data, dict) or data.get("kind") != "lifecycle":
        raise ResumeRefused(f"{root} holds no lifecycle run\n  fix: an at-rest run resumes with memlab run --resume")
    try:
        run = read_lifecycle_run(data)
    except LifecycleRunShapeError as exc:
        raise ResumeRefused(f"{root}/run.json is no lifecycle run record: {exc}\n  fix: memlab verify {root} names "
                            "what changed; run the pack again into a new --out") from None
    if lifecycle_partial(root) is None:
        raise ResumeRefused(f"{root}: the run completed; there is nothing to resume\n  fix: memlab verify {root}")
    now, then = lab_revision(), run.lab or {}
    if any(now.get(k) != then.get(k) for k in ("commit", "dirty", "code")):  # code: known without git too
        raise ResumeRefused(f"{root}: the lab changed since the run (commit {then.get('commit')}, dirty "
                            f"{then.get('dirty')}, code {then.get('code')}; now {now.get('commit')}, dirty "
                            f"{now.get('dirty')}, code {now.get('code')}): a resumed set would splice two labs' "
                            "measurements\n  fix: run the pack again into a new --out")
    todo = missing(root, run)
    targets = [_target(meta.to_json(), root, run, no_fork_server) for meta in run.rows or []]
    for target in targets:
        target.todo = set(todo.get(row_key(target.meta), []))
    return run, targets


def _target(meta: dict[str, Any], root: Path, run: LifecycleRun, no_fork_server: bool) -> Target:
    position = meta.get("position", "live")
    if meta.get("adapter") == "http":
        from lab.lifecycle.adapters.http_config_checks import load_http_config

        path = meta.get("config_path")
        if not path:
            raise ResumeRefused(f"{root}: {row_key(meta)} names no shim config (a set written before configs were "
                                "recorded)\n  fix: run the pack again into a new --out")
        try:
            return http_target(load_http_config(path), position, meta=meta)
        except ProfileError as exc:
            raise ResumeRefused(f"{root}: {row_key(meta)}'s shim config: {exc}") from None
    profiles = Path((run.options or {}).get("profiles") or PROFILES_DIR)
    try:
        profile = load_profile(profiles / f"{meta['row']}.yaml")
    except ProfileError as exc:
        raise ResumeRefused(f"{root}: {row_key(meta)}'s profile: {exc}") from None
    from lab.runtime import RuntimeUnavailable, get_runtime

    try:
        runtime = get_runtime(meta.get("runtime") or run.runtime)
    except RuntimeUnavailable as exc:
        raise ResumeRefused(f"{root}: {row_key(meta)}'s runtime: {exc}") from None
    if hasattr(runtime, "use_fork_server"):
        runtime.use_fork_server = not no_fork_server and position == "restarted"
    return sut_target(profile, runtime, root, position, meta=meta)
