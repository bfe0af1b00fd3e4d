"""``memlab run --resume DIR``: continue a killed run from its observations (docs/resume.md).

What makes a resumed set one measurement, not two spliced ones:

- the same run: the lab's release and commit, the method revision, the runtime, the options that
  change what is measured (``run.json``'s ``options``), the same rows, each with the same profile
  file (``profiles``: a digest of its bytes) and the same driver folder (``drivers``: a digest of
  its files, pins included), and the same SUT environment (Python and packages).
  Anything else is refused with what differs and how to resume it (or why it cannot be).
- the same seeded store: the method copies *one* seeded store per row into every trial, and C3
  (and ``verify``) compare every case's store dump to it. A re-seeding would write other ids and
  timestamps, so the trials measured before and after a kill would start from two stores. So the
  seeded volumes of each row are kept in the set (``seeded/<row>/``, copied whole, then renamed
  into place) from the end of its seeding until the row ends, and a resume copies them back as
  the row's golden volumes, with the plan (nonce, markers) and the SUT's record ids its seed
  observation saved. A row killed before its seed observation was saved is seeded anew.
- trials already saved are not measured again: an observation file is written whole (renamed
  into place) or not at all, so a saved one is a finished trial; the logs of a trial killed
  before its observation was saved are set aside under ``logs/<row>/killed/``, so the trial
  measured again writes fresh ones.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

from edits import volumes as vol
from lab import METHOD_REVISION
from lab.cases.seedplan import SeedPlan
from lab.cases.variants import is_variant
from lab.judge.derive import TRIALS, read_trials
from lab.method.bed import Bed
from lab.profile import Profile, ProfileError, file_row
from lab.resultset.coherence import unsafe_files
from lab.resultset.loading import JSONProblem
from lab.resultset.files import lab_revision, read_json

#: Where a set keeps each row's seeded volumes until the row ends.
KEPT = "seeded"


class ResumeRefused(Exception):
    """The folder cannot be resumed by this run; the message says what differs and the fix."""


def identity(profiles: list[Profile], runtime: Any, nonce: str | None, records: int) -> dict[str, Any]:
    """What ``run.json`` records so that a resume can prove it continues the same run."""
    return {"options": {"nonce": nonce, "records": records,
                        "fork_server": bool(getattr(runtime, "use_fork_server", False))},
            "drivers": {p.row: driver_digest(p) for p in profiles},
            "profiles": {p.row: "sha256:" + hashlib.sha256(Path(p.path).read_bytes()).hexdigest() for p in profiles}}


def driver_digest(profile: Profile) -> str:
    """``sha256:<hex>`` over the driver folder's files (names and bytes; caches left out); a row whose
    own image is named by tag alone has no folder: its image reference stands for it."""
    if not profile.driver:
        return f"image:{profile.image.tag}"
    h = hashlib.sha256()
    root = profile.driver_dir
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        h.update(f"\0{path.relative_to(root)}\0".encode() + path.read_bytes())
    return "sha256:" + h.hexdigest()


def recorded(out: Path) -> dict[str, Any]:
    """The killed run's ``run.json``; ResumeRefused when there is none to continue."""
    path = Path(out) / "run.json"
    try:
        run = read_json(path)
    except FileNotFoundError:
        raise ResumeRefused(f"{path} is missing: {out} holds no run to resume; start one with --out {out}") from None
    except JSONProblem as exc:
        raise ResumeRefused(f"{exc}; a run.json the lab did not write cannot be resumed") from None
    if not isinstance(run, dict) or not isinstance(run.get("rows"), list):
        raise ResumeRefused(f"{path}: not a run record of memlab (no list of rows)")
    if run.get("status") == "completed" and (Path(out) / "manifest.json").is_file():
        raise ResumeRefused(f"{out} holds a completed result set: nothing to resume (`memlab verify {out}`)")
    unsafe = [(f, why) for f, why in unsafe_files(Path(out)) if not f.startswith(f"{KEPT}/")]  # seeded/: the SUT's
    if unsafe:
        raise ResumeRefused(f"{Path(out) / unsafe[0][0]}: {unsafe[0][1]} ({len(unsafe)} such entr"
                            f"{'y' if len(unsafe) == 1 else 'ies'}); memlab never writes through a link and a set it "
                            "wrote holds none, so this folder was changed after the run and cannot be resumed: "
                            "measure again into a new --out")
    if any(key not in run for key in ("options", "drivers", "profiles")):
        raise ResumeRefused(f"{path} records no options or drivers (a run of an older lab): it cannot be "
                            "proved to be the same run; measure it again into a new --out")
    return run


def refusals(run: dict[str, Any], now: dict[str, Any], profiles: list[Profile], invalid: list[ProfileError],
             runtime_name: str) -> list[str]:
    """Each way this run differs from the killed one, with the fix; empty when it may resume."""
    out_lines = []
    if run.get("method_revision") != METHOD_REVISION:
        out_lines.append(f"method revision {run.get('method_revision')!r}, this lab's {METHOD_REVISION!r}: "
                         "resume with the lab release that started it")
    lab = lab_revision()
    if run.get("lab") != lab:
        out_lines.append(f"lab {run.get('lab')}, now {lab}: check out the commit the run started from "
                         f"(git checkout {(run.get('lab') or {}).get('commit')}) with the same tree")
    if run.get("runtime") != runtime_name:
        out_lines.append(f"runtime {run.get('runtime')!r}, now {runtime_name!r}: give --runtime {run.get('runtime')}")
    for key, was in sorted((run.get("options") or {}).items()):
        if now["options"].get(key) != was:
            fix = {"nonce": f"--nonce {was}" if was else "no --nonce", "records": f"--records {was}",
                   "fork_server": "no --no-fork-server" if was else "--no-fork-server"}.get(key, "the same option")
            out_lines.append(f"option {key} {was!r}, now {now['options'].get(key)!r}: give {fix}")
    rows = sorted([p.row for p in profiles] + [file_row(e.path) for e in invalid])
    if sorted(run["rows"]) != rows:
        out_lines.append(f"rows {sorted(run['rows'])}, now {rows}: give no --sut (the recorded rows are taken) "
                         "or exactly those rows")
    for profile in profiles:
        was = (run.get("drivers") or {}).get(profile.row)
        if was is not None and was != now["drivers"].get(profile.row):
            out_lines.append(f"{profile.row}: its driver folder {profile.driver_dir} changed since the run started "
                             "(a digest of its files differs): put it back as it was")
        was = (run.get("profiles") or {}).get(profile.row)
        if was is not None and was != now["profiles"].get(profile.row):
            out_lines.append(f"{profile.row}: its profile {profile.path} differs from the one the run started "
                             "with (a digest of the file): put it back as it was")
    return out_lines


def check_environment(obs_dir: Path, environment: dict[str, Any]) -> None:
    """ResumeRefused when the SUT's environment (Python, packages) is not the one the saved trials ran in."""
    was = _saved(Path(obs_dir) / "environment.json") or {}
    for key in ("runtime", "python", "packages"):
        if was.get(key) != json.loads(json.dumps(environment.get(key), default=str)):
            raise ResumeRefused(f"{obs_dir.name}: its SUT environment's {key} differs from the one its saved "
                                f"trials ran in ({obs_dir / 'environment.json'}): rebuild that environment "
                                "or measure the row again into a new --out")


def saved_trials(obs_dir: Path) -> dict[str, dict[str, Any]]:
    """Trial -> observation for every trial of a row whose observation was saved: the seed's whole, of
    the others what a resumed run reads (the variants a base trial lists), so that a row's store dumps
    are not all held at once."""
    def read(trial: str) -> Any:
        data = _saved(Path(obs_dir) / f"{trial}.json")
        if trial == "seed" or not isinstance(data, dict):
            return data
        return {k: data[k] for k in ("variants",) if k in data}
    saved = read_trials(read)
    return {trial: data for trial, data in saved.items() if data is not None}


def plan_of(saved: dict[str, dict[str, Any]]) -> SeedPlan | None:
    """The seed plan a saved seed observation used (None before one was saved)."""
    plan = (saved.get("seed") or {}).get("plan")
    return SeedPlan.from_json(plan) if isinstance(plan, dict) else None


def keep(bed: Bed, folder: Path) -> None:
    """Keep the golden volumes in ``folder``: copied whole beside it, then renamed into place."""
    tmp = folder.with_name(folder.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    for name in bed.holders:
        vol.snapshot(bed.golden / name, tmp / name)
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(tmp, folder)


def restore(bed: Bed, folder: Path, seed: dict[str, Any]) -> None:
    """Make the kept volumes the row's golden ones again, with the ids the seeding recorded."""
    if not folder.is_dir():
        raise ResumeRefused(f"{folder} is missing: the seeded store of this row was not kept, so its "
                            "remaining trials cannot start from the store the saved ones started from")
    for name in bed.holders:
        vol.snapshot(folder / name, bed.golden / name)
    bed.seed_ids.update(seed.get("seed_ids") or {})
    bed.seed_versions.update(seed.get("seed_versions") or {})


def drop(folder: Path) -> None:
    """The row has ended: its kept volumes go (and the folder holding them, once empty)."""
    shutil.rmtree(folder, ignore_errors=True)
    shutil.rmtree(folder.with_name(folder.name + ".tmp"), ignore_errors=True)
    try:
        folder.parent.rmdir()
    except OSError:
        pass


def set_aside_logs(logs_dir: Path, saved: dict[str, Any]) -> list[str]:
    """Move the logs of trials without a saved observation to ``logs_dir/killed/``; their names."""
    moved = []
    for path in sorted(logs_dir.glob("*.log")) if logs_dir.is_dir() else []:
        trial = path.name.split("-", 1)[0]  # <trial>-<n>.log, <trial>-op-<n>.log
        trial = trial if trial in TRIALS or is_variant(trial) else None
        if trial is not None and trial not in saved:
            target = logs_dir / "killed" / path.name
            n = 1
            while target.exists():
                target, n = logs_dir / "killed" / f"{path.stem}.{n}.log", n + 1
            target.parent.mkdir(exist_ok=True)
            os.replace(path, target)
            moved.append(path.name)
    return moved


def _saved(path: Path) -> Any:
    try:
        return read_json(path)
    except FileNotFoundError:
        return None
    except JSONProblem as exc:
        raise ResumeRefused(f"{exc}: the lab writes each file whole, so this one was changed after; "
                            "it cannot be resumed") from None
