"""The procedure of docs/method.md for one row: seed once, then per case a fresh copy of the
seeded volumes -> (SUT stopped) fault step -> C3 -> restart -> read (-> audit).

The fault step is the case's: an :class:`~lab.method.edit_step.EditStep` (a storage edit by
the generic editor) or, for a case with its own SUT operation, a
:class:`~lab.method.restore_step.RestoreStep`. The procedure holds a session or none: a
profile with ``position: alive`` (a row of its own) keeps one SUT process running across the
step and reads without a restart (C3 still before the read); otherwise no SUT runs during the
step and a new process reads. It is one path with the held session as its parameter.

It only observes: every answer, the C3 evidence and the timings are written to the
observation store as they happen; verdicts are derived afterwards by
:mod:`lab.judge.verdicts`. Harness faults become an ``error`` in the observation of the
trial they hit; the other trials still run.
"""

from __future__ import annotations

import time
import traceback
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

from lab import moments
from lab.cases import CASES, Case, not_applicable
from edits.model import EditSpec
from lab.cases import variants
from lab.cases.seedplan import SeedPlan
from lab.judge.derive import trials_of
from lab.logs import get_logger
from lab.method import resume, seeding
from lab.method.bed import Bed
from lab.method.edit_step import EditStep
from lab.method.restore_step import RestoreStep
from lab.method.resume import ResumeRefused
from lab.method.row import Row
from lab.method.sessions import Session, Sessions, StageError
from lab.runtime import Prepared, Runtime
from lab.runtime.housekeeping import RunRegistry

log = get_logger(__name__)

Progress = Callable[[str], None]

__all__ = ["RowProcedure", "StageError", "step_for"]


def step_for(case: Case) -> EditStep | RestoreStep:
    """The fault step of a case: a restore around its own SUT op, or a storage edit."""
    return RestoreStep(case) if case.restores else EditStep(case)


def observe(row: str, name: str, body: Callable[[dict[str, Any]], None],
            head: dict[str, Any] | None = None) -> dict[str, Any]:
    """One trial's observation: ``body`` run on it (``head``: its first keys, else its case), timed;
    a fault of the step it hit (or a crash of the lab itself) is the trial's ``error``, never raised."""
    obs: dict[str, Any] = {**(head or {"case": name}), "status": "measured", "sut_stopped_during_edit": True,
                           "timings": {}, "logs": []}
    started = time.monotonic()
    try:
        body(obs)
    except StageError as exc:
        obs["status"] = "error"
        obs["error"] = {"stage": exc.stage, "message": str(exc), "log_tail": exc.log_tail}
    except Exception as exc:  # a crash of the lab itself is still a harness error of this trial
        obs["status"] = "error"
        obs["error"] = {"stage": "harness", "message": f"{type(exc).__name__}: {exc}",
                        "traceback": traceback.format_exc()}
    obs["timings"]["total"] = round(time.monotonic() - started, 6)
    if obs.get("error"):
        log.warning("trial.error", row=row, trial=name, **{
            k: v for k, v in obs["error"].items() if k in ("stage", "message")})
    return obs


class RowProcedure:
    """Runs the method for one profile and saves raw observations through ``save``."""

    def __init__(self, prepared: Prepared, runtime: Runtime, registry: RunRegistry, plan: SeedPlan,
                 save: Callable[[str, dict[str, Any]], Path], logs_dir: Path,
                 progress: Progress = lambda step: None, saved: dict[str, dict[str, Any]] | None = None,
                 kept: Path | None = None):
        self.profile = prepared.profile
        self.save, self.progress = save, progress
        self.saved = saved or {}  # a resumed run: the trials saved before the kill are not measured again
        bed = Bed(registry.scratch_root / self.profile.row, self.profile.volumes, self.profile.trials_in_place)
        self.row = Row(self.profile, plan, bed, Sessions(prepared, runtime, registry, bed, logs_dir), kept)

    def run(self) -> None:
        """Seed, C1, C2, then T1..T10 one after the other; every trial saved as it ends (those
        ``saved`` already, skipped). The kept seeded volumes go once every trial is saved."""
        for _, unit in self.trials(self.seed()):
            unit()
        if self.row.kept is not None:
            resume.drop(self.row.kept)

    def seed(self) -> str:
        """The row's first trial: seed the golden volumes through the SUT (or, resumed, take the
        saved seeding and its kept volumes); why the other trials cannot be measured, or ''."""
        seed = self.saved.get("seed")
        if seed is None:
            seed = self._trial("seed", lambda obs: seeding.seed(self.row, obs))
        else:
            self.progress("seed")
            if not seed.get("error") and not self.complete():
                try:
                    resume.restore(self.row.bed, self.row.kept, seed)
                except ResumeRefused as exc:
                    return f"not measured (resume: {exc})"
                self.row.bed.seeding_done()
        return "not measured (seeding failed)" if seed.get("error") else ""

    def complete(self) -> bool:
        """Whether every trial of the row was saved before this (resumed) run."""
        return set(trials_of(self.saved)) <= set(self.saved)

    def trials(self, failed: str = "") -> list[tuple[str, Callable[[], None]]]:
        """C1, C2 and T1..T10 as ``(name, unit)``: after seeding each is independent of the others
        (its own copy of the seeded volumes, scratch folder, logs and service ports), so the units
        may run in any order or side by side; each saves its observation when it ends. A trial saved
        before a resume only advances the progress; after a failed seeding (``failed``, the reason) a
        unit saves its trial as not measured."""
        units: list[tuple[str, Callable[[], None]]] = []
        for name, body in (("C1", seeding.c1), ("C2", seeding.c2)):
            if name in self.saved:
                units.append((name, lambda n=name: self.progress(n)))
            else:
                units.append((name, (lambda n=name, b=body: self._trial(n, lambda obs: b(self.row, obs)))
                              if not failed else (lambda n=name: self._skip(n, failed))))
        for case in CASES:
            reason = not_applicable(case, self.profile.capabilities)
            if case.id in self.saved and not failed:
                units.append((case.id, lambda c=case: self._variants(c, self.saved[c.id].get("variants"))))
            elif case.id in self.saved:
                units.append((case.id, lambda c=case: self.progress(c.id)))
            elif reason:
                units.append((case.id, lambda c=case, r=reason: self._not_applicable(c, r)))
            elif not failed:
                units.append((case.id, lambda c=case: self._variants(  # its list alone: not its records
                    c, self._trial(c.id, lambda obs: self._case(c, obs)).get("variants"))))
            else:
                units.append((case.id, lambda c=case: self._skip(c.id, failed)))
        return units

    def _variants(self, case: Case, listed: list[dict[str, Any]] | None) -> None:
        """The case's variant trials its base trial ``listed``, one after the other (those saved
        before a resume skipped): each on a fresh copy with exactly the listed edit."""
        for entry in listed or []:
            trial = entry["trial"]
            if trial in self.saved:
                continue
            spec = variants.spec_of(entry)
            self._trial(trial, lambda obs, t=trial, s=spec: self._case(case, obs, t, s),
                        {"case": case.id, "variant": entry["name"]})

    def _not_applicable(self, case: Case, reason: str) -> None:
        self.save(case.id, {"case": case.id, "status": "n/a", "na_reason": reason})
        self.progress(case.id)

    def _trial(self, name: str, body: Callable[[dict[str, Any]], None],
               head: dict[str, Any] | None = None) -> dict[str, Any]:
        """Run one trial (``head``: its first keys, a variant's case and name) and save its observation."""
        obs = observe(self.profile.row, name, body, head)
        self.save(name, obs)
        self.progress(name)
        return obs

    def _skip(self, name: str, why: str) -> None:
        self.save(name, {"case": name, "status": "error", "error": {"stage": "seed", "message": why}})
        self.progress(name)

    def _case(self, case: Case, obs: dict[str, Any], trial: str | None = None, spec: EditSpec | None = None) -> None:
        """Fresh copy -> fault step (C3 included) -> read by a restarted SUT, or by the held one.
        ``trial`` and ``spec``: a variant's trial and edit (else the case's base trial)."""
        trial = trial or case.id
        obs["read_label"] = case.read_label
        vols = self.row.bed.fresh(obs, trial)
        with self._held(obs, trial, vols) as held:
            started = time.monotonic()
            (EditStep(case, spec, trial) if spec is not None else step_for(case)).apply(self.row, obs, vols, held)
            obs["timings"]["edit_c3"] = round(time.monotonic() - started, 6)
            moments.reach("edited", self.profile.row, trial)
            edited_at = time.monotonic()
            with self.row.sessions.held_or_new(obs, trial, vols, held) as s:
                obs["timings"]["restart"] = 0.0 if held is not None else round(time.monotonic() - edited_at, 6)
                self._read(case, obs, s, vols, edited_at)

    @contextmanager
    def _held(self, obs: dict[str, Any], trial: str, vols: dict[str, Path]) -> Iterator[Session | None]:
        """The SUT held across the step: none (the SUT stopped during the edit, the metric), or in
        the process-alive position (its own row) one opened before the step and kept running
        across it (and across T9/T10's own op and restore)."""
        if self.profile.position != "alive":
            yield None
            return
        obs["sut_stopped_during_edit"] = False
        obs["position"] = "alive"
        if self.profile.services:
            raise StageError("position", "the process-alive position needs a store without a service: "
                                         "a running server's volume cannot be copied as a unit")
        with self.row.sessions.sut(obs, trial, vols) as session:
            yield session

    def _read(self, case: Case, obs: dict[str, Any], s: Session, vols: dict[str, Path], edited_at: float) -> None:
        """Read the affected context (and audit it, where the profile declares an audit point)."""
        ctx = self.row.plan.contexts[case.read_label]
        read_started = time.monotonic()
        obs["read"] = s.call("read", context=ctx)
        if "audit" in self.profile.detection_points:
            obs["audit"] = {"label": case.read_label, "context": ctx,
                            "against": {n: f"{p.relative_to(self.row.bed.work)} (trial copy of volume {n})"
                                        for n, p in vols.items()},
                            "interval_s": round(time.monotonic() - edited_at, 6),
                            "answer": s.call("audit", context=ctx)}
        obs["timings"]["read"] = round(time.monotonic() - read_started, 6)
