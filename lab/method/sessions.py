"""SUT and service sessions: a started SUT (after its backend services) that has opened its
store, stopped on exit; the generic editor on the store, with its server up where it has one.

Every session appends its log file to the trial's ``logs``; a driver fault becomes a
:class:`StageError` of the trial it hits.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from edits.base import editor_for
from edits.confine import StoreEscape
from edits.model import EditError
from lab.driver import DriverClient, DriverError
from lab.method.bed import Bed
from lab.method.record_views import views
from lab.runtime import Prepared, Runtime
from lab.runtime.housekeeping import RunRegistry
from lab.runtime.services import ServiceError


class StageError(Exception):
    """A harness fault at a named stage of a trial."""

    def __init__(self, stage: str, message: str, log_tail: str = ""):
        super().__init__(message)
        self.stage, self.log_tail = stage, log_tail


class Session:
    """A running SUT: calls with the profile's timeouts."""

    def __init__(self, client: DriverClient, timeouts: dict[str, float], services: dict[str, str]):
        self.client, self.timeouts, self.services = client, timeouts, services

    def call(self, op: str, timeout_key: str = "op", **fields: Any) -> dict[str, Any]:
        """One op; ``timeout_key`` picks the profile timeout (``start`` for open)."""
        return self.client.call(op, self.timeouts[timeout_key], **fields)

    def stage_error(self, stage: str, message: str) -> "StageError":
        """A harness error of this trial that names the SUT's log and quotes its last lines."""
        return StageError(stage, message + self.client.log_note(), self.client.log_tail())


class Sessions:
    """Opens sessions for one row: SUT processes, their services, the generic editor."""

    def __init__(self, prepared: Prepared, runtime: Runtime, registry: RunRegistry, bed: Bed, logs_dir: Path):
        self.prepared, self.profile = prepared, prepared.profile
        self.runtime, self.registry, self.bed, self.logs_dir = runtime, registry, bed, logs_dir

    @contextmanager
    def sut(self, obs: dict[str, Any], trial: str, volumes: dict[str, Path]) -> Iterator[Session]:
        """A started SUT (after its services) that has opened its store; stopped on exit."""
        with self.services(obs, trial, volumes) as urls:
            scratch = self.bed.work / "scratch" / f"{trial}-{len(obs['logs'])}"
            log_path = self.logs_dir / f"{trial}-{len(obs['logs'])}.log"
            obs["logs"].append(log_path.name)
            client = self.runtime.launch(self.prepared, volumes, scratch, log_path, self.registry.run_id)
            client.on_start, client.on_stop = self.registry.track, self.registry.untrack
            client.limit(**self.profile.limits)
            session = Session(client, self.profile.timeouts, urls)
            extra = {"services": urls} if urls else {}
            try:
                client.start()
                obs["open"] = session.call("open", "start", volumes=client.volume_paths,
                                           config=self.profile.configuration, **extra)
                yield session
                client.finish()  # a line beyond one answer per request faults the trial (lab.driver)
            except DriverError as exc:
                raise StageError("driver", str(exc), exc.log_tail) from exc
            finally:
                client.stop()

    @contextmanager
    def held_or_new(self, obs: dict[str, Any], trial: str, volumes: dict[str, Path],
                    held: Session | None) -> Iterator[Session]:
        """``held`` (the SUT the process-alive position keeps running) or a newly started SUT."""
        if held is not None:
            yield held
            return
        with self.sut(obs, trial, volumes) as session:
            yield session

    @contextmanager
    def services(self, obs: dict[str, Any], trial: str, volumes: dict[str, Path]) -> Iterator[dict[str, str]]:
        """Start the profile's backend services on their volumes; stop them cleanly on exit."""
        running = []
        try:
            for spec in self.profile.services:
                log_path = self.logs_dir / f"{trial}-{spec.name}-{len(obs['logs'])}.log"
                obs["logs"].append(log_path.name)
                try:
                    svc = self.runtime.start_service(spec, volumes[spec.volume], log_path, self.registry.run_id,
                                                     self.registry.track_pid)
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
    def store(self, obs: dict[str, Any], trial: str, volumes: dict[str, Path],
              session: Session | None = None) -> Iterator[Any]:
        """The generic editor on the store: for a service-backed store, with its server up
        (the SUT's own when it runs, else started for this access and stopped after)."""
        versions = {**self.bed.seed_versions, **obs.get("op_version", {})}
        if not self.profile.services:
            yield _editor(self.profile.store, volumes, versions=versions)
        elif session is not None:
            yield _editor(self.profile.store, volumes, session.services, versions=versions)
        else:
            with self.services(obs, f"{trial}-store", volumes) as urls:
                yield _editor(self.profile.store, volumes, urls, versions=versions)

    def store_records(self, obs: dict[str, Any], trial: str, volumes: dict[str, Path],
                      session: Session | None = None, earlier: list | None = None) -> list[dict[str, Any]]:
        """The store's records as the generic editor reads them, in one access; those unchanged from
        ``earlier``'s shared with it (:mod:`lab.method.record_views`)."""
        with self.store(obs, trial, volumes, session) as editor:
            return records(editor, earlier)


def _editor(*args: Any, **kwargs: Any) -> Any:
    """The generic editor (edits.base.editor_for); a store it refuses to open (a link out of its
    volume: edits.confine) is a StageError naming why."""
    try:
        return editor_for(*args, **kwargs)
    except StoreEscape as exc:
        raise StageError("store", f"the generic editor refuses the store: {exc}") from exc


def records(editor, earlier: list | None = None) -> list[dict[str, Any]]:
    """Every record an open editor reads (``Record.to_json()``; those unchanged from ``earlier``'s
    shared with it: :func:`lab.method.record_views.views`); a read failure is a StageError."""
    return views(read_records(editor), earlier)


def read_records(editor) -> list:
    """Every record an open editor reads (``Record``s); a read failure is a StageError."""
    try:
        return editor.records()
    except (EditError, OSError, ValueError) as exc:
        raise StageError("records", f"the generic editor could not read the store: {exc}") from exc
