"""One row's work, as tasks for the run's workers (:mod:`lab.method.schedule`).

The first task saves the profile, prepares the SUT's environment (a row that cannot be prepared
is an error row) and seeds; it then submits each of the row's other trials as a task of its own
(:meth:`lab.method.procedure.RowProcedure.trials`). The task that ends the row's last trial
derives its rows from the saved observations. Every trial saves its observation as it ends, so
a crash or Ctrl-C keeps what was measured; :meth:`RowWork.finish` derives a row cut short.
Each task binds its row and trial to the log context (``row``, ``trial``: ``prepare``, ``seed``,
``C1`` ...), so what a runtime logs on the way (a server started) says which row it is for.
"""

from __future__ import annotations

import threading
import time
import traceback
from typing import Any, Callable

from structlog.contextvars import bind_contextvars, bound_contextvars

from edits.registry import warm
from lab.cases.seedplan import SeedPlan
from lab.logs import get_logger
from lab.method import resume as resuming
from lab.method.procedure import RowProcedure
from lab.method.schedule import Workers
from lab.profile import Profile
from lab.resultset.results import ResultSet
from lab.resultset.saved import SavedTrials
from lab.runtime import Runtime
from lab.runtime.housekeeping import RunRegistry

log = get_logger(__name__)


class Interrupted(Exception):
    """The run was cancelled (Ctrl-C); what was measured is kept."""


class RowWork:
    """The tasks of one row (the ``index``-th of the run): open it (prepare, seed), then its trials."""

    def __init__(self, index: int, profile: Profile, runtime: Runtime, registry: RunRegistry,
                 results: ResultSet, run: dict[str, Any], plan: SeedPlan, cancel: threading.Event,
                 progress: Callable[[str], None], done: Callable[[list[dict[str, Any]], str | None], None],
                 saved: dict[str, dict[str, Any]] | None = None):
        self.index, self.profile, self.runtime, self.registry = index, profile, runtime, registry
        self.saved = saved or {}  # resumed: the trials saved before the kill (not measured again)
        self.kept = results.root / resuming.KEPT / profile.row  # the seeded volumes, until every trial is saved
        self.results, self.run, self.plan, self.cancel = results, run, plan, cancel
        self.progress, self.done = progress, done
        self._lock = threading.Lock()
        self._opened = self._finished = False
        self._left = 0
        self._environment: dict[str, Any] | None = None
        self._procedure: RowProcedure | None = None

    def start(self, pool: Workers) -> None:
        """Queue the row's first task (prepare and seed); it queues the rest."""
        pool.submit((self.index, 0), lambda: self._open(pool))

    def finish(self) -> None:
        """Derive the row's rows from what is saved, once (a row never opened has nothing to derive);
        the kept seeded volumes go when every trial is saved (a row cut short keeps them for --resume)."""
        with self._lock:
            if not self._opened or self._finished:
                return
            self._finished = True
        if self._complete():  # no trial held in memory
            resuming.drop(self.kept)
        changed = self._procedure.row.bed.changed() if self._procedure is not None else []
        if changed:  # a trial wrote outside its copy: the trials were not independent
            log.error("row.seeded_changed", row=self.profile.row, files=changed[:10])
            if self._environment is not None:
                self._environment["seeded_changed"] = changed
        fault = (f"{self.profile.row}: the seeded volumes changed while its trials ran ({', '.join(changed[:3])}): a "
                 "trial wrote outside its copy, so its trials were not independent; a SUT that records its store's "
                 "absolute path needs `trials_in_place: true` in its profile") if changed else None
        try:
            if self._environment is not None:  # again: a runtime may settle its detail at its first start
                self.results.saver(self.profile.row)("environment", self._environment)
        finally:  # the evidence budget passed at this save still leaves the row derived
            self.done(self.results.write_rows(self.profile.row, self.run), fault)

    def _complete(self) -> bool:
        """Whether every trial of the row is saved (a composition's too: lab.resultset.composition.pending)."""
        obs_dir = self.results.observation_dir(self.profile.row)
        if not SavedTrials(obs_dir).complete():
            return False
        if not self.run.get("compose"):
            return True
        from lab.resultset.composition import pending, searched
        return not pending(obs_dir, *searched(self.run))

    def _open(self, pool: Workers) -> None:
        with bound_contextvars(row=self.profile.row, trial="prepare"):
            self._open_bound(pool)

    def _open_bound(self, pool: Workers) -> None:
        if self.cancel.is_set():
            return
        with self._lock:
            self._opened = True
        if self.saved and self._complete():  # resumed after its last trial: only its rows are left to write
            self.finish()
            return
        resuming.set_aside_logs(self.results.root / "logs" / self.profile.row, self.saved)
        if self.profile.store is not None:  # its editor's client, imported while the SUT is prepared and seeded
            warm(self.profile.store.backend)
        procedure = self._procedure = self._prepare()
        if procedure is None:
            self.finish()
            return
        bind_contextvars(trial="seed")
        try:
            failed = procedure.seed()
        except Interrupted:
            self.finish()
            return
        units = procedure.trials(failed)
        if not self.profile.side_by_side or self.profile.trials_in_place:  # one after another (the profile says so)
            units = [("trials", lambda us=units: [u() for _, u in us])]
        with self._lock:
            self._left = len(units)
        for number, (name, unit) in enumerate(units, 1):
            if not pool.submit((self.index, number), lambda u=unit, n=name: self._trial(u, n)):
                break  # cancelled: the row is derived from what was saved (finish, at the run's end)

    def _trial(self, unit: Callable[[], None], name: str) -> None:
        try:
            if not self.cancel.is_set():
                with bound_contextvars(row=self.profile.row, trial=name):
                    unit()
        except Interrupted:
            pass  # the trial's observation is saved; the run's end derives the row
        finally:
            with self._lock:
                self._left -= 1
                last = self._left == 0
        if last:
            self.finish()

    def _prepare(self) -> RowProcedure | None:
        """Save the profile and the environment; the row's procedure, or None when it cannot be prepared."""
        profile, save = self.profile, self.results.saver(self.profile.row)
        save("profile", profile.to_json())
        started = time.monotonic()
        try:
            prepared = self.runtime.prepare(profile)
        except Exception as exc:  # an environment that cannot be built is this row's harness error
            log.error("row.prepare_failed", row=profile.row, error=str(exc))
            save("environment", {"runtime": self.runtime.name, "error": str(exc), "traceback": traceback.format_exc()})
            save("seed", {"case": "seed", "status": "error",
                          "error": {"stage": "prepare", "message": f"could not prepare the SUT: {exc}"}})
            self.progress("prepare-failed")
            return None
        environment = {"runtime": self.runtime.name, "python": prepared.python, "packages": prepared.packages,
                       "detail": prepared.detail, "prepare_seconds": round(time.monotonic() - started, 3)}
        if self.saved:  # resumed: the environment the saved trials ran in stays their evidence, and must be this one
            resuming.check_environment(self.results.observation_dir(profile.row), environment)  # else ResumeRefused
        else:
            self._environment = environment
            save("environment", environment)
        args = (prepared, self.runtime, self.registry, self.plan, self._unless_cut(save),
                self.results.root / "logs" / profile.row, self._step, self.saved, self.kept)
        if self.run.get("compose"):  # memlab compose: the method's trials, then the sequences around each edit
            from lab.method.composition import ComposeProcedure
            from lab.resultset.composition import restores, searched
            length, edits = searched(self.run)
            return ComposeProcedure(*args, obs_dir=self.results.observation_dir(profile.row), length=length,
                                    edits=edits, restores=restores(self.run))
        return RowProcedure(*args)

    def _unless_cut(self, save: Callable[[str, dict[str, Any]], Any]) -> Callable[[str, dict[str, Any]], Any]:
        """``save``, except a trial's error once the run is cancelled: its SUT was killed by the interrupt,
        so it was cut short, not measured (Interrupted; ``--resume`` measures it)."""
        def guarded(trial: str, data: dict[str, Any]) -> Any:
            if self.cancel.is_set() and data.get("status") == "error":
                raise Interrupted(trial)
            return save(trial, data)
        return guarded

    def _step(self, name: str) -> None:
        if self.cancel.is_set():
            raise Interrupted(name)
        self.progress(name)
