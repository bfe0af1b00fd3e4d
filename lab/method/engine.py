"""The matrix runner: rows and their trials side by side, each row a short nest of phases.

prepare the SUT's environment -> save profile and environment -> seed -> the other trials,
each a task of its own (observations saved as they happen) -> derive the rows -> manifest
(:mod:`lab.method.rowwork`, on the run's workers: :mod:`lab.method.schedule`).
A row that cannot be prepared is recorded as an error row; the rest still runs.
Ctrl-C (or SIGTERM, which the CLI raises as one) kills every SUT process of the run and still writes
what was measured (status ``interrupted``, with the ``signal``); a run that fails (a full disk, a
crash of the lab) still kills them and pins what it can (status ``failed``): never a set that
verifies as complete.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from lab import METHOD_REVISION
from lab.cases import CASE_IDS
from lab.logs import get_logger
from lab.runtime.housekeeping import RunRegistry, new_run_id
from lab.method import resume as resuming
from lab.method.rowwork import Interrupted, RowWork
from lab.method.schedule import Workers
from lab.profile import Profile, ProfileError, file_row
from lab.resultset.evidence_budget import DEFAULT_LIMIT, EvidenceBudget, EvidenceOverBudget
from lab.resultset.results import ResultSet, lab_revision, write_json
from lab.resultset.run_record import run_json
from lab.runtime import Runtime
from lab.cases.seedplan import RECORDS_PER_CONTEXT, make_plan

log = get_logger(__name__)

TRIALS_PER_ROW = 3 + len(CASE_IDS)  # seed, C1, C2, T1..T10

__all__ = ["Interrupted", "RunSummary", "TRIALS_PER_ROW", "run_matrix"]


@dataclass
class RunSummary:
    """What a run wrote and how it ended."""

    out: Path
    run: dict[str, Any]
    rows: list[dict[str, Any]] = field(default_factory=list)
    #: Faults of a row beyond its cells (its trials were not independent), one line each.
    faults: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        """Why the run is not a clean measurement, one line each: a row not evaluable (an invalid
        profile's error row among them), a trial with a harness error. Empty when clean."""
        out = list(self.faults)
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
               invalid: list[ProfileError] = (), run_id: str | None = None,
               shard: dict[str, Any] | None = None, resume: bool = False, compose: dict[str, int] | None = None,
               evidence_budget: int = DEFAULT_LIMIT) -> RunSummary:
    """Run every profile's row(s) and write a result set to ``out``; ``invalid`` profiles become error rows.
    Each row is seeded with its own plan of ``records`` per context (run.json states a count other than
    the method's five). ``jobs`` trials run side by side, of one row (after its seeding) or of several.
    ``run_id`` names the run in run.json (shards of one run share it; default: this process's own id,
    which also labels what the run starts); ``shard`` is recorded in run.json as it is given.
    ``resume``: continue the killed run in ``out`` (lab.method.resume): its saved trials are kept, the
    others measured; ``ResumeRefused`` when this run is not the same run. ``compose``: also search the
    sequences of ``length`` moves around each edit, a pair of them with ``edits`` 2 (lab.compose; run.json
    records it as given).
    ``evidence_budget``: the bytes the run may write (lab.resultset.evidence_budget); past it the SUTs are
    killed as on Ctrl-C, the set is pinned as interrupted and EvidenceOverBudget is raised."""
    results = ResultSet(out, resume=resume)
    registry = RunRegistry(new_run_id())  # marks this process's SUTs; a resume keeps the set's own run id
    cancel = threading.Event()
    results.budget = EvidenceBudget(out, evidence_budget, on_over=lambda: (cancel.set(), registry.kill_all()))
    try:
        run = _begin(results, profiles, invalid, runtime, nonce, records, resume, run_id or registry.run_id,
                     registry.run_id, shard, compose)
    except BaseException:  # refused, or run.json not writable: nothing of this run is left behind
        registry.close()
        results.close()
        raise
    summary = RunSummary(out=out, run=run)
    lock = threading.Lock()
    log.info("run.start", run_id=run["run_id"], rows=len(profiles), out=str(out), runtime=runtime.name, jobs=jobs,
             resumed=resume)

    def done(rows: list[dict[str, Any]], fault: str | None = None) -> None:
        with lock:
            summary.rows.extend(rows)
            summary.faults.extend([fault] if fault else [])

    for err in invalid:
        summary.rows += _record_invalid(err, results, run)
    pool = Workers(jobs)
    works = []
    for i, p in enumerate(profiles):
        saved = resuming.saved_trials(results.observation_dir(p.row)) if resume else {}
        works.append(RowWork(i, p, runtime, registry, results, run, resuming.plan_of(saved) or make_plan(nonce, records),
                             cancel, lambda step, row=p.row: progress(row, step), done, saved))
    run["status"] = "failed"  # until the pool has ended as it should
    try:
        for work in works:
            work.start(pool)
        try:
            pool.wait()
        except KeyboardInterrupt as exc:
            cancel.set()
            pool.cancel()
            registry.kill_all()
            pool.drain()
            run.update(status="interrupted", signal=getattr(exc, "signal", None) or "SIGINT")
            stop = Interrupted(f"interrupted ({run['signal']}): SUT processes killed, measured trials kept")
            stop.signal = run["signal"]
            raise stop from None
        except EvidenceOverBudget as exc:  # its trial saved; the others were stopped as Ctrl-C stops them
            run.update(status="interrupted", stopped=exc.record())
            raise
        run["status"] = "completed"
    except BaseException:
        _end(pool, works, registry, results, run, ending=True)
        raise
    _end(pool, works, registry, results, run)
    return summary


def _end(pool: Workers, works: list[RowWork], registry: RunRegistry, results: ResultSet, run: dict[str, Any],
         ending: bool = False) -> None:
    """However the run ended: its rows derived from what they saved, run.json and the manifest written,
    every SUT process killed and the scratch removed. A step that fails (a full disk) is logged and
    the next still runs; the first failure is raised after the last step, unless the run is
    ``ending`` with an exception of its own."""
    failures: list[BaseException] = []

    def step(name: str, do: Callable[[], Any]) -> bool:
        try:
            do()
            return True
        except Exception as exc:  # never hides what ended the run, never skips the cleanup
            log.error("run.end_step_failed", step=name, error=f"{type(exc).__name__}: {exc}")
            failures.append(exc)
            return False

    pool.cancel()
    pool.drain()
    for work in works:  # a row cut short (Ctrl-C, a crash of the lab) is derived from what it saved
        step(f"derive {work.profile.row}", work.finish)
    run["finished"] = _now()
    if run["status"] == "completed" and failures:  # a row not derived: the set is not whole
        run["status"] = "failed"
    if step("run.json", lambda: write_json(results.root / "run.json", run_json(run))):
        step("manifest", lambda: results.write_manifest(run))  # never a manifest beside a stale run.json
    step("registry", registry.close)
    log.info("run.end", run_id=run["run_id"], status=run["status"], out=str(results.root))
    if failures and not ending:
        raise failures[0]


def _begin(results: ResultSet, profiles: list[Profile], invalid: list[ProfileError], runtime: Runtime,
           nonce: str | None, records: int, resume: bool, run_id: str, process_run: str,
           shard: dict[str, Any] | None, compose: dict[str, int] | None = None) -> dict[str, Any]:
    """run.json of a new run named ``run_id``, or of the killed one this run continues (after proving it
    the same run); ``process_run`` is this process's own id, which marks what it starts."""
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
        run.pop("signal", None)  # what interrupted it before
        run.pop("stopped", None)
        run.update(status="running", finished=None,
                   resumed=run.get("resumed", []) + [{"at": _now(), "process_run": process_run}])
    else:
        run = {"run_id": run_id, "started": _now(), "finished": None, "status": "running",
               "runtime": runtime.name, "method_revision": METHOD_REVISION, "lab": lab_revision(),
               **({"records_per_context": records} if records != RECORDS_PER_CONTEXT else {}),
               **({"shard": shard} if shard is not None else {}),
               **({"compose": dict(compose)} if compose else {}),
               "rows": [p.row for p in profiles] + [file_row(e.path) for e in invalid], **ident}
    write_json(results.root / "run.json", run_json(run))
    return run


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
