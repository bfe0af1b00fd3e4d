"""A lifecycle set whose run did not complete: what it holds, and what a resume still has to measure.

A lifecycle run killed (no manifest) or interrupted (its manifest pins what was measured, and
run.json says ``interrupted``) is never called complete: ``memlab verify`` says PARTIAL (exit 3)
and lists, per (row, position), the (scenario, seed) runs that have no observation;
``memlab lifecycle run --resume DIR`` measures exactly those (:func:`missing`) and completes the
set. The expected runs are every scenario saved in the set, once per seed of run.json, on every
(row, position) of run.json.
"""

from __future__ import annotations

from pathlib import Path

from lab.lifecycle.results import MANIFEST_SCHEMA, observation_name, row_key
from lab.lifecycle.run_record import LifecycleRun, LifecycleRunShapeError, read_lifecycle_run
from lab.resultset.loading import JSONProblem, read_strict
from lab.resultset.partial import Partial


def missing(root: Path, run: LifecycleRun) -> dict[str, list[tuple[str, int]]]:
    """(row, position) key -> the (scenario, seed) runs without an observation in the set at ``root``."""
    root = Path(root)
    scenarios = sorted(p.stem for p in (root / "scenarios").glob("*.json"))
    seeds = range(_seeds(run))
    out = {}
    for meta in run.rows or []:
        key = row_key(meta.to_json())
        folder = root / "observations" / key
        out[key] = [(sid, seed) for seed in seeds for sid in scenarios
                    if not (folder / observation_name({"scenario": sid, "seed": seed})).is_file()]
    return out


def lifecycle_partial(root: Path) -> Partial | None:
    """The partial lifecycle set at ``root``, or None when its run completed with every run observed and
    its manifest written (or the folder holds no lifecycle run)."""
    root = Path(root)
    try:
        run = read_lifecycle_run(read_strict(root / "run.json"))
    except (OSError, JSONProblem, LifecycleRunShapeError):  # one of another shape: verify names it
        return None
    if run.kind != "lifecycle" or run.rows is None:
        return None
    if _other_manifest(root):  # run.json says lifecycle, the manifest another kind: verify says which differs
        return None
    gaps = missing(root, run)
    pinned = (root / "manifest.json").is_file()
    if run.status == "completed" and pinned and not any(gaps.values()):
        return None
    keys = [row_key(m.to_json()) for m in run.rows]
    have = {p.stem for p in (root / "rows").glob("*.json")} if (root / "rows").is_dir() else set()
    expected = len(keys) * len(list((root / "scenarios").glob("*.json"))) * _seeds(run)
    holes = [f"{key}:{sid}@s{seed}" for key, runs in gaps.items() for sid, seed in runs]
    return Partial(root, str(run.status), keys, sorted(set(keys) - have), holes, expected - len(holes),
                   pinned, expected, resume=f"memlab lifecycle run --resume {root}")


def _seeds(run: LifecycleRun) -> int:
    """run.json's seeds, 0 when it states none (or no count)."""
    seeds = run.seeds
    return seeds if isinstance(seeds, int) and not isinstance(seeds, bool) and seeds > 0 else 0


def _other_manifest(root: Path) -> bool:
    """Whether ``root`` holds a readable manifest of another kind of set than a lifecycle one."""
    try:
        manifest = read_strict(root / "manifest.json")
    except (OSError, JSONProblem):
        return False
    return not isinstance(manifest, dict) or manifest.get("schema") != MANIFEST_SCHEMA
