"""The matrix runner: rows side by side, each row a short nest of phases.

prepare the SUT's environment -> save profile and environment -> run the
procedure (observations saved as they happen) -> derive the rows -> manifest.
A row that cannot be prepared is recorded as an error row; the rest still runs.
Ctrl-C kills every SUT process of the run and still writes what was measured.
"""

from __future__ import annotations

import threading
import time
import traceback
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import structlog

from lab import METHOD_REVISION
from lab.cases import CASE_IDS
from lab.runtime.housekeeping import RunRegistry, new_run_id
from lab.judge.derive import TRIALS
from lab.method import resume as resuming
from lab.method.procedure import RowProcedure
from lab.profile import Profile, ProfileError, file_row
from lab.resultset.results import ResultSet, lab_revision, write_json
from lab.runtime import Runtime
from lab.cases.seedplan import RECORDS_PER_CONTEXT, SeedPlan, make_plan

log = structlog.get_logger(__name__)

TRIALS_PER_ROW = 3 + len(CASE_IDS)  # seed, C1, C2, T1..T10


class Interrupted(Exception):
    """The run was cancelled (Ctrl-C); what was measured is kept."""


@dataclass
class RunSummary:
    """What a run wrote and how it ended."""

    out: Path
    run: dict[str, Any]
    rows: list[dict[str, Any]] = field(default_factory=list)

    def problems(self) -> list[str]:
        """Why the run is not a clean measurement, one line each: a row not evaluable (an invalid
        profile's error row among them), a trial with a harness error. Empty when clean."""
        out = []
        for row in self.rows:
            name = f"{row.get('row')}@{row.get('detection_point')}"
            errors = [cid for cid, cell in sorted((row.get("cells") or {}).items(), key=lambda kv: (len(kv[0]), kv[0]))
                      if isinstance(cell, dict) and cell.get("verdict") == "error"]
            if not row.get("evaluable"):
                out.append(f"{name}: not evaluable: {row.get('not_evaluable_reason') or 'C1 or C2 did not hold'}")
            elif errors:
                out.append(f"{name}: harness error in {', '.join(errors)}")
        return out


def run_matrix(profiles: list[Profile], runtime: Runtime, out: Path, jobs: int = 1,
               nonce: str | None = None, records: int = RECORDS_PER_CONTEXT,
               progress: Callable[[str, str], None] = lambda row, step: None,
               invalid: list[ProfileError] = (), resume: bool = False) -> RunSummary:
    """Run every profile's row(s) and write a result set to ``out``; ``invalid`` profiles become error rows.
    Each row is seeded with its own plan of ``records`` per context (run.json states a count other than
    the method's five). ``resume``: continue the killed run in ``out`` (lab.method.resume): its saved
    trials are kept, the others measured; ``ResumeRefused`` when this run is not the same run."""
    results = ResultSet(out, resume=resume)
    registry = RunRegistry(new_run_id())  # marks this process's SUTs; a resume keeps the set's own run id
    try:
        run = _begin(results, profiles, invalid, runtime, nonce, records, resume, registry.run_id)
    except resuming.ResumeRefused:
        registry.close()
        raise
    cancel = threading.Event()
    summary = RunSummary(out=out, run=run)
    log.info("run.start", run_id=run["run_id"], rows=len(profiles), out=str(out), runtime=runtime.name,
             resumed=resume)

    def one(profile: Profile) -> list[dict[str, Any]]:
        saved = resuming.saved_trials(results.observation_dir(profile.row)) if resume else {}
        plan = resuming.plan_of(saved) or make_plan(nonce, records)
        return _run_row(profile, runtime, registry, results, run, plan, cancel,
                        lambda step: progress(profile.row, step), saved)

    for err in invalid:
        summary.rows += _record_invalid(err, results, run)
    try:
        with ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="row") as pool:
            pending = {pool.submit(one, p) for p in profiles}
            try:
                while pending:
                    done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                    for fut in done:
                        summary.rows += fut.result()
            except KeyboardInterrupt:
                cancel.set()
                registry.kill_all()
                for fut in pending:
                    fut.cancel()
                run["status"] = "interrupted"
                raise Interrupted("interrupted: SUT processes killed, measured trials kept") from None
        run["status"] = "completed"
    finally:
        run["finished"] = _now()
        write_json(out / "run.json", run)
        results.write_manifest(run)
        registry.close()
        log.info("run.end", run_id=run["run_id"], status=run["status"], out=str(out))
    return summary


def _begin(results: ResultSet, profiles: list[Profile], invalid: list[ProfileError], runtime: Runtime,
           nonce: str | None, records: int, resume: bool, run_id: str) -> dict[str, Any]:
    """run.json of a new run, or of the killed one this run continues (after proving it the same run)."""
    ident = resuming.identity(profiles, runtime, nonce, records)
    if resume:
        try:
            run = resuming.recorded(results.root)
            differ = resuming.refusals(run, ident, profiles, list(invalid), runtime.name)
            if differ:
                raise resuming.ResumeRefused(f"{results.root} was measured by another run than this one:\n  "
                                             + "\n  ".join(differ))
        except resuming.ResumeRefused:
            results.close()
            raise
        run.update(status="running", finished=None,
                   resumed=run.get("resumed", []) + [{"at": _now(), "process_run": run_id}])
    else:
        run = {"run_id": run_id, "started": _now(), "finished": None, "status": "running",
               "runtime": runtime.name, "method_revision": METHOD_REVISION, "lab": lab_revision(),
               **({"records_per_context": records} if records != RECORDS_PER_CONTEXT else {}),
               "rows": [p.row for p in profiles] + [file_row(e.path) for e in invalid], **ident}
    write_json(results.root / "run.json", run)
    return run


def _run_row(profile: Profile, runtime: Runtime, registry: RunRegistry, results: ResultSet,
             run: dict[str, Any], plan: SeedPlan, cancel: threading.Event,
             progress: Callable[[str], None], saved: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    save = results.saver(profile.row)
    kept = results.root / resuming.KEPT / profile.row
    if set(TRIALS) <= set(saved):  # resumed after its last trial: only its rows are left to write
        resuming.drop(kept)
        return results.write_rows(profile.row, run)
    resuming.set_aside_logs(results.root / "logs" / profile.row, saved)
    save("profile", profile.to_json())
    started = time.monotonic()
    try:
        prepared = runtime.prepare(profile)
    except Exception as exc:  # an environment that cannot be built is this row's harness error
        log.error("row.prepare_failed", row=profile.row, error=str(exc))
        save("environment", {"runtime": runtime.name, "error": str(exc), "traceback": traceback.format_exc()})
        save("seed", {"case": "seed", "status": "error",
                      "error": {"stage": "prepare", "message": f"could not prepare the SUT: {exc}"}})
        progress("prepare-failed")
        return results.write_rows(profile.row, run)
    environment = {"runtime": runtime.name, "python": prepared.python, "packages": prepared.packages,
                   "detail": prepared.detail, "prepare_seconds": round(time.monotonic() - started, 3)}
    if saved:  # resumed: the environment the saved trials ran in stays their evidence, and must be this one
        resuming.check_environment(results.observation_dir(profile.row), environment)
    else:
        save("environment", environment)

    def step(name: str) -> None:
        if cancel.is_set():
            raise Interrupted(name)
        progress(name)

    try:
        RowProcedure(prepared, runtime, registry, plan, save, results.root / "logs" / profile.row, step,
                     saved, kept).run()
    except Interrupted:
        pass  # the observations saved so far stay; the rows are still derived from them
    return results.write_rows(profile.row, run)


def _record_invalid(err: ProfileError, results: ResultSet, run: dict[str, Any]) -> list[dict[str, Any]]:
    """An invalid profile is an error row (named after its file), so nobody mistakes it for absent."""
    row = file_row(err.path)
    save = results.saver(row)
    save("profile", {"row": row, "title": f"invalid profile {Path(err.path).name}", "invalid": str(err),
                     "detection_points": ["read"], "signals": []})
    save("seed", {"case": "seed", "status": "error",
                  "error": {"stage": "profile", "message": f"invalid profile: {err}"}})
    return results.write_rows(row, run)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
