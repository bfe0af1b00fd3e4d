"""The procedure of METHOD.md for one row: seed once, then per case a fresh copy of
the seeded volumes -> (SUT stopped) edit -> C3 -> restart -> read (-> audit).
A profile with ``position: alive`` (a row of its own) instead keeps one SUT process
running across the edit and reads without a restart (C3 still before the read).

It only observes: every answer, the C3 evidence and the timings are written to
the observation store as they happen; verdicts are derived afterwards by
:mod:`lab.verdicts`. Harness faults become an ``error`` in the observation of the
trial they hit; the other trials still run.
"""

from __future__ import annotations

import time
import traceback
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

import structlog

from edits import volumes as vol
from edits.base import editor_for
from edits.model import EditError
from lab.c3 import check_edit, check_restore
from lab.cases import C2_EXTRA_INDEX, CASES, T9_EXTRA_INDEX, Case, not_applicable, spec_for
from lab.driver import DriverClient, DriverError
from lab.housekeeping import RunRegistry
from lab.runtime import Prepared, Runtime
from lab.services import ServiceError
from lab.seedplan import FACT_INDEX, SeedPlan, markers_in

log = structlog.get_logger(__name__)

Progress = Callable[[str], None]


class StageError(Exception):
    """A harness fault at a named stage of a trial."""

    def __init__(self, stage: str, message: str, log_tail: str = ""):
        super().__init__(message)
        self.stage, self.log_tail = stage, log_tail


class RowProcedure:
    """Runs the method for one profile and saves raw observations through ``save``."""

    def __init__(self, prepared: Prepared, runtime: Runtime, registry: RunRegistry, plan: SeedPlan,
                 save: Callable[[str, dict[str, Any]], Path], logs_dir: Path,
                 progress: Progress = lambda step: None):
        self.prepared, self.profile = prepared, prepared.profile
        self.runtime, self.registry, self.plan = runtime, registry, plan
        self.save, self.progress, self.logs_dir = save, progress, logs_dir
        self.work = registry.scratch_root / self.profile.row
        self.golden = self.work / "seeded"
        self.seed_ids: dict[str, str] = {}
        self.seed_versions: dict[str, str] = {}  # version the SUT reported after a seeding write -> marker

    # ---- the row ---------------------------------------------------------------
    def run(self) -> None:
        """Seed, C1, C2, then T1..T10; every trial saved as it ends."""
        seed = self._trial("seed", self._seed)
        ok = not seed.get("error")
        for name, body in (("C1", self._c1), ("C2", self._c2)):
            self._trial(name, body) if ok else self._skip(name, seed)
        for case in CASES:
            reason = not_applicable(case, self.profile.capabilities)
            if reason:
                self.save(case.id, {"case": case.id, "status": "n/a", "na_reason": reason})
                self.progress(case.id)
            elif ok:
                self._trial(case.id, lambda obs, c=case: self._case(c, obs))
            else:
                self._skip(case.id, seed)

    def _trial(self, name: str, body: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        obs: dict[str, Any] = {"case": name, "status": "measured", "sut_stopped_during_edit": True,
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
            log.warning("trial.error", row=self.profile.row, trial=name, **{
                k: v for k, v in obs["error"].items() if k in ("stage", "message")})
        self.save(name, obs)
        self.progress(name)
        return obs

    def _skip(self, name: str, seed: dict[str, Any]) -> None:
        self.save(name, {"case": name, "status": "error",
                         "error": {"stage": "seed", "message": "not measured (seeding failed)"}})
        self.progress(name)

    # ---- SUT sessions ----------------------------------------------------------
    @contextmanager
    def _sut(self, obs: dict[str, Any], trial: str, volumes: dict[str, Path]) -> Iterator[_Session]:
        """A started SUT (after its services) that has opened its store; stopped on exit."""
        with self._services(obs, trial, volumes) as urls:
            scratch = self.work / "scratch" / f"{trial}-{len(obs['logs'])}"
            log_path = self.logs_dir / f"{trial}-{len(obs['logs'])}.log"
            obs["logs"].append(log_path.name)
            client = self.runtime.launch(self.prepared, volumes, scratch, log_path, self.registry.run_id)
            client.on_start, client.on_stop = self.registry.track, self.registry.untrack
            session = _Session(client, self.profile.timeouts, urls)
            extra = {"services": urls} if urls else {}
            try:
                client.start()
                obs["open"] = session.call("open", "start", volumes=client.volume_paths,
                                           config=self.profile.configuration, **extra)
                yield session
            except DriverError as exc:
                raise StageError("driver", str(exc), exc.log_tail) from exc
            finally:
                client.stop()

    @contextmanager
    def _services(self, obs: dict[str, Any], trial: str, volumes: dict[str, Path]) -> Iterator[dict[str, str]]:
        """Start the profile's backend services on their volumes; stop them cleanly on exit."""
        running = []
        try:
            for spec in self.profile.services:
                log_path = self.logs_dir / f"{trial}-{spec.name}-{len(obs['logs'])}.log"
                obs["logs"].append(log_path.name)
                try:
                    svc = self.runtime.start_service(spec, volumes[spec.volume], log_path, self.registry.run_id)
                except ServiceError as exc:
                    raise StageError("service", f"{spec.name} ({spec.kind}): {exc}") from exc
                running.append(svc)
                self.registry.track(svc)
                obs.setdefault("services", {})[spec.name] = {"kind": spec.kind, "version": svc.version}
            yield {svc.spec.name: svc.url for svc in running}
        finally:
            for svc in reversed(running):
                svc.stop()
                self.registry.untrack(svc)

    @contextmanager
    def _store(self, obs: dict[str, Any], trial: str, volumes: dict[str, Path],
               session: _Session | None = None) -> Iterator[Any]:
        """The generic editor on the store: for a service-backed store, with its server up
        (the SUT's own when it runs, else started for this access and stopped after)."""
        versions = {**self.seed_versions, **obs.get("op_version", {})}
        if not self.profile.services:
            yield editor_for(self.profile.store, volumes, versions=versions)
        elif session is not None:
            yield editor_for(self.profile.store, volumes, session.services, versions=versions)
        else:
            with self._services(obs, f"{trial}-store", volumes) as urls:
                yield editor_for(self.profile.store, volumes, urls, versions=versions)

    def _fresh_volumes(self, obs: dict[str, Any], trial: str) -> dict[str, Path]:
        started = time.monotonic()
        target = self.work / "trials" / trial
        vols = {}
        for name in self.profile.volumes:
            vols[name] = target / name
            vol.snapshot(self.golden / name, vols[name])
        obs["timings"]["copy"] = round(time.monotonic() - started, 6)
        return vols

    def _digests(self, vols: dict[str, Path], adversary: bool) -> dict[str, Any]:
        return {name: vol.digest_tree(path) for name, path in vols.items()
                if self.profile.volumes[name] == adversary}

    # ---- seed and controls -----------------------------------------------------
    def _seed(self, obs: dict[str, Any]) -> None:
        vols = {name: self.golden / name for name in self.profile.volumes}
        for path in vols.values():
            path.mkdir(parents=True, exist_ok=True)
        obs["plan"] = self.plan.to_json()
        with self._sut(obs, "seed", vols) as s:
            obs["describe"] = s.call("describe")
            obs["writes"] = []
            for rec in self.plan.records:
                answer = s.call("write", context=self.plan.contexts[rec.label], text=rec.text, meta=rec.meta)
                if not answer["ok"]:
                    raise StageError("seed", f"the SUT refused a seeding write: {answer.get('error')}")
                self.seed_ids[rec.marker] = str((answer.get("record") or {}).get("id"))
                if (answer.get("record") or {}).get("version") is not None:
                    self.seed_versions[str(answer["record"]["version"])] = rec.marker
                obs["writes"].append(answer)
            obs["reads"] = {label: s.call("read", context=ctx) for label, ctx in self.plan.contexts.items()}
        obs["seed_ids"] = self.seed_ids
        if self.seed_versions:
            obs["seed_versions"] = self.seed_versions
        for label, read in obs["reads"].items():
            served = [m for r in read.get("records") or [] for m in markers_in(str(r.get("text", "")))]
            want = [r.marker for r in self.plan.of(label)]
            if not self.profile.capabilities.order:  # unordered memory: the same records, in any order
                served, want = sorted(served), sorted(want)
            if served != want:
                raise StageError("seed", f"after seeding, context {label} served {served}, written {want}")

    def _c1(self, obs: dict[str, Any]) -> None:
        vols = self._fresh_volumes(obs, "C1")
        with self._sut(obs, "C1", vols) as s:
            obs["reads"] = {label: s.call("read", context=ctx) for label, ctx in self.plan.contexts.items()}
            if "audit" in self.profile.detection_points:
                obs["audits"] = {label: {"label": label, "context": ctx, "answer": s.call("audit", context=ctx)}
                                 for label, ctx in self.plan.contexts.items()}

    def _c2(self, obs: dict[str, Any]) -> None:
        vols = self._fresh_volumes(obs, "C2")
        extra = self.plan.extra("A", C2_EXTRA_INDEX)
        obs["marker"] = extra.marker
        with self._sut(obs, "C2", vols) as s:
            obs["write"] = s.call("write", context=self.plan.contexts["A"], text=extra.text, meta=extra.meta)
            obs["read"] = s.call("read", context=self.plan.contexts["A"])

    # ---- cases -----------------------------------------------------------------
    def _case(self, case: Case, obs: dict[str, Any]) -> None:
        obs["read_label"] = case.read_label
        vols = self._fresh_volumes(obs, case.id)
        if self.profile.position == "alive":
            return self._case_alive(case, obs, vols)
        started = time.monotonic()
        digests = self._digests(vols, True), self._digests(vols, False)
        if case.kind == "edit":
            self._edit(case, obs, vols, digests)
        else:
            self._restore_case(case, obs, vols, digests[0])
        obs["timings"]["edit_c3"] = round(time.monotonic() - started, 6)
        edited_at = time.monotonic()
        self._observe(case, obs, vols, edited_at)

    def _case_alive(self, case: Case, obs: dict[str, Any], vols: dict[str, Path]) -> None:
        """Process-alive position (its own row, never the stopped metric): the SUT process opened
        before the edit keeps running across it (and across T9/T10's own op and restore); C3 runs
        before the read, which the same process serves without a restart."""
        obs["sut_stopped_during_edit"] = False
        obs["position"] = "alive"
        if self.profile.services:
            raise StageError("position", "the process-alive position needs a store without a service: "
                                         "a running server's volume cannot be copied as a unit")
        with self._sut(obs, case.id, vols) as s:
            started = time.monotonic()
            digests = self._digests(vols, True), self._digests(vols, False)
            if case.kind == "edit":
                self._edit(case, obs, vols, digests, session=s)
            else:
                self._restore_case(case, obs, vols, digests[0], session=s)
            obs["timings"]["edit_c3"] = round(time.monotonic() - started, 6)
            obs["timings"]["restart"] = 0.0
            self._read(case, obs, s, vols, time.monotonic())

    def _edit(self, case, obs, vols, digests, session=None) -> None:
        """One storage edit and its C3; the raw digests are taken with every server stopped."""
        spec = spec_for(case, self.plan, self.profile.store)
        obs["intended"] = spec.to_json()
        with self._store(obs, case.id, vols, session) as editor:
            before = self._records(editor)
            try:
                applied = editor.apply(spec)
            except EditError as exc:
                raise StageError("edit", f"{case.id}: {exc}") from exc
            obs["applied"] = applied.to_json()
            after = self._records(editor)
        files = _merge_diffs(digests[0], self._digests(vols, True))
        untouched = _merge_diffs(digests[1], self._digests(vols, False))
        result = check_edit(obs["intended"], self.profile.store.to_json(), before, after, files, untouched)
        obs["c3"] = {**result.to_json(), "files": files, "untouched_volumes": untouched,
                     "records_before": before, "records_after": after}

    def _restore_case(self, case, obs, vols, digests_before, session=None) -> None:
        """T9/T10: copy the adversary's volumes, let the SUT write/erase, put the copy back whole."""
        snap_root = self.work / "trials" / f"{case.id}-copy"
        adversary = {n: p for n, p in vols.items() if self.profile.volumes[n]}
        for name, path in adversary.items():
            vol.snapshot(path, snap_root / name)
        before = self._store_records(obs, case.id, vols, session)
        if session is not None:  # process-alive position: the running SUT makes the genuine op
            answer, named = self._sut_op(case, obs, session)
        else:
            with self._sut(obs, f"{case.id}-op", vols) as s:
                answer, named = self._sut_op(case, obs, s)
        if not answer["ok"]:
            raise StageError("sut-op", f"{case.id}: the SUT refused its own {obs['intended']['op']}: "
                                       f"{answer.get('error')}")
        mid = self._store_records(obs, case.id, vols, session)
        for name, path in adversary.items():
            vol.restore(snap_root / name, path)
        digests_after = self._digests(vols, True)
        after = self._store_records(obs, case.id, vols, session)
        obs["applied"] = {"case": case.id, "backend": "volumes",
                          "statements": [f"copy volume {n} before the SUT op; put it back whole after"
                                         for n in adversary], "touched": sorted(adversary)}
        result = check_restore("added" if case.id == "T9" else "removed", named, before, mid, after,
                               digests_before, digests_after, self.profile.store.to_json())
        obs["c3"] = {**result.to_json(), "records_before": before, "records_between": mid,
                     "records_after": after}

    def _store_records(self, obs, trial, vols, session=None) -> list[dict[str, Any]]:
        with self._store(obs, trial, vols, session) as editor:
            return self._records(editor)

    def _sut_op(self, case: Case, obs: dict[str, Any], s: _Session) -> tuple[dict[str, Any], list[str]]:
        """T9's genuine write or T10's erasure through the SUT; the answer and the markers it names."""
        ctx = self.plan.contexts["A"]
        if case.id == "T9":
            extra = self.plan.extra("A", T9_EXTRA_INDEX)
            obs["intended"] = {"op": "write", "context": ctx, "marker": extra.marker, "text": extra.text}
            answer = s.call("write", context=ctx, text=extra.text, meta=extra.meta)
            named = [extra.marker]
            if (answer.get("record") or {}).get("version") is not None:  # names the new version row
                obs["op_version"] = {str(answer["record"]["version"]): extra.marker}
        else:
            named, record = self._erasure_target()
            obs["intended"] = {"op": "erase", "context": ctx, "record": record, "markers": named}
            answer = s.call("erase", context=ctx, record=record)
        obs["sut_op"] = answer
        return answer, named

    def _erasure_target(self) -> tuple[list[str], str | None]:
        if self.profile.capabilities.erasure == "context":
            return [r.marker for r in self.plan.of("A")], None
        victim = self.plan.of("A")[FACT_INDEX]
        if victim.marker not in self.seed_ids:
            raise StageError("sut-op", f"no SUT record id known for {victim.marker}")
        return [victim.marker], self.seed_ids[victim.marker]

    def _observe(self, case: Case, obs: dict[str, Any], vols: dict[str, Path], edited_at: float) -> None:
        started = time.monotonic()
        with self._sut(obs, case.id, vols) as s:
            obs["timings"]["restart"] = round(time.monotonic() - started, 6)
            self._read(case, obs, s, vols, edited_at)

    def _read(self, case: Case, obs: dict[str, Any], s: _Session, vols: dict[str, Path], edited_at: float) -> None:
        """Read the affected context (and audit it, where the profile declares an audit point)."""
        ctx = self.plan.contexts[case.read_label]
        read_started = time.monotonic()
        obs["read"] = s.call("read", context=ctx)
        if "audit" in self.profile.detection_points:
            obs["audit"] = {"label": case.read_label, "context": ctx,
                            "against": {n: f"{p.relative_to(self.work)} (trial copy of volume {n})"
                                        for n, p in vols.items()},
                            "interval_s": round(time.monotonic() - edited_at, 6),
                            "answer": s.call("audit", context=ctx)}
        obs["timings"]["read"] = round(time.monotonic() - read_started, 6)

    def _records(self, editor) -> list[dict[str, Any]]:
        try:
            return [r.to_json() for r in editor.records()]
        except (EditError, OSError, ValueError) as exc:
            raise StageError("records", f"the generic editor could not read the store: {exc}") from exc


class _Session:
    """A running SUT: calls with the profile's timeouts."""

    def __init__(self, client: DriverClient, timeouts: dict[str, float], services: dict[str, str]):
        self.client, self.timeouts, self.services = client, timeouts, services

    def call(self, op: str, timeout_key: str = "op", **fields: Any) -> dict[str, Any]:
        """One op; ``timeout_key`` picks the profile timeout (``start`` for open)."""
        return self.client.call(op, self.timeouts[timeout_key], **fields)


def _merge_diffs(before: dict[str, Any], after: dict[str, Any]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {"added": [], "removed": [], "changed": []}
    for name in sorted(set(before) | set(after)):
        diff = vol.diff_digests(before.get(name, {}), after.get(name, {}))
        for kind in out:
            out[kind] += [f"{name}/{path}" for path in diff.get(kind, [])]
    return out
