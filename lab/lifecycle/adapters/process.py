"""SutProcess: one running SUT (its services, then its driver) on the lifecycle adapter's volumes.

The volumes live in the run's scratch folder and outlive every process: ``stop`` ends the
driver, then the services; ``start`` starts the services again, then a new driver process, on
the same folders, and sends ``open``. ``DriverAdapter`` (``driver.py``) owns one.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable

from lab.driver import DriverClient, DriverError
from lab.lifecycle.adapters import AdapterError
from lab.logs import get_logger
from lab.profile import Profile
from lab.runtime import Prepared, Runtime
from lab.runtime.housekeeping import RunRegistry
from lab.runtime.services import ServiceError

log = get_logger(__name__)


class SutProcess:
    """One running SUT (its services, then the driver) on the adapter's volumes."""

    def __init__(self, profile: Profile, runtime: Runtime, registry: RunRegistry, logs_dir: Path | None = None):
        self.profile, self.runtime, self.registry = profile, runtime, registry
        self.work = Path(tempfile.mkdtemp(prefix=f"lifecycle-{profile.row}-", dir=registry.scratch_root))
        self.work.chmod(0o711)  # a service that runs as another user (initdb, postgres) must reach its volume
        self.logs_dir = Path(logs_dir) if logs_dir else self.work / "logs"
        self.volumes = {name: self.work / "volumes" / name for name in profile.volumes}
        self.prepared: Prepared | None = None
        self.client: DriverClient | None = None
        self.services: list = []
        self.starts = 0
        self.timings: dict[str, float] = {}
        self.open_answer: dict[str, Any] = {}

    @property
    def log_path(self) -> Path:
        """The log (stderr) of the current SUT process."""
        return self.logs_dir / f"{self.profile.row}-{self.starts}.log"

    def start(self) -> None:
        """Prepare once, then start the services and a new driver process, and ``open`` it."""
        began = time.monotonic()
        if self.prepared is None:
            for path in self.volumes.values():
                path.mkdir(parents=True, exist_ok=True)
            try:
                self.prepared = self.runtime.prepare(self.profile)
            except Exception as exc:  # a venv or image that cannot be built: the harness's fault
                raise AdapterError(f"{self.profile.row}: the {self.runtime.name} runtime could not prepare the "
                                   f"SUT: {exc}\n  fix: check {self.profile.driver_dir} (driver.py, "
                                   "requirements.txt) and the runtime") from exc
            self.timings["prepare"] = round(time.monotonic() - began, 6)
            began = time.monotonic()
        self.starts += 1
        urls = self._start_services()
        client = self.runtime.launch(self.prepared, self.volumes, self.work / f"scratch-{self.starts}",
                                     self.log_path, self.registry.run_id)
        client.on_start, client.on_stop = self.registry.track, self.registry.untrack
        client.limit(**self.profile.limits)
        try:
            self.client = client.start()
        except DriverError as exc:
            raise AdapterError(f"{self.profile.row}: the SUT did not start: {exc}{self.log_note('')}") from exc
        extra = {"services": urls} if urls else {}
        self.open_answer = self.call("open", "start", volumes=client.volume_paths,
                                     config=self.profile.configuration, **extra)
        if not self.open_answer["ok"]:
            raise AdapterError(f"the SUT refused to open its store: {self.open_answer.get('error')}"
                               f"{self.log_note()}\n  fix: check the profile's configuration and volumes")
        self.timings["start"] = round(time.monotonic() - began, 6)
        log.info("lifecycle.sut_started", row=self.profile.row, pid=self.client.pid, **self.timings)

    def call(self, op: str, timeout_key: str = "op", **fields: Any) -> dict[str, Any]:
        """One op with the profile's timeout; a DriverError becomes an AdapterError with the log."""
        if self.client is None:
            raise AdapterError(f"{op}: the SUT is not running\n  fix: call start() (or use `with`) first")
        began = time.monotonic()
        try:
            return self.client.call(op, self.profile.timeouts[timeout_key], **fields)
        except DriverError as exc:
            raise AdapterError(f"{op} after {time.monotonic() - began:.3f} s: {exc}{self.log_note(exc.log_tail)}"
                               ) from exc

    def log_note(self, tail: str | None = None) -> str:
        """Where the SUT's log is, and its last lines."""
        tail = self.client.log_tail() if tail is None and self.client else tail or ""
        lines = "".join(f"\n    {line}" for line in tail.splitlines()[-10:])
        return f"\n  SUT log: {self.log_path}" + (f"\n  last lines:{lines}" if lines else "")

    def restart(self, while_stopped: Callable[[], Any] | None = None) -> dict[str, float]:
        """``stop``, call ``while_stopped``, ``start``; seconds of the stop and of the start."""
        began = time.monotonic()
        self.stop()
        stopped = time.monotonic()
        if while_stopped is not None:
            while_stopped()
        resumed = time.monotonic()
        self.start()
        return {"stop": round(stopped - began, 6), "start": round(time.monotonic() - resumed, 6)}

    def stop(self) -> None:
        """Stop the driver process through the kit's finish path, then its services. A line beyond
        one answer per request (found at the finish) is an AdapterError, after both are stopped."""
        fault = None
        if self.client is not None:
            try:
                self.client.finish()
            except DriverError as exc:
                fault = exc
            finally:
                self.client.stop()
                self.client = None
        self._stop_services()
        if fault is not None:
            raise AdapterError(f"{self.profile.row}: {fault}{self.log_note(fault.log_tail)}")

    @contextmanager
    def services_alone(self) -> Iterator[dict[str, str]]:
        """The profile's services started on the volumes without the driver (the SUT stopped), for a
        generic editor to read a store that lives in one; stopped on exit."""
        if self.client is not None:
            raise AdapterError(f"{self.profile.row}: the SUT is running; stop it before starting its services alone")
        try:
            yield self._start_services()
        finally:
            self._stop_services()

    def _stop_services(self) -> None:
        for svc in reversed(self.services):
            svc.stop()
            self.registry.untrack(svc)
        self.services = []

    def _start_services(self) -> dict[str, str]:
        for spec in self.profile.services:
            log_path = self.logs_dir / f"{self.profile.row}-{spec.name}-{self.starts}.log"
            try:
                svc = self.runtime.start_service(spec, self.volumes[spec.volume], log_path, self.registry.run_id,
                                                 self.registry.track_pid)
            except ServiceError as exc:
                raise AdapterError(f"service {spec.name} ({spec.kind}) did not start: {exc}\n"
                                   f"  service log: {log_path}") from exc
            self.services.append(svc)
            self.registry.track(svc)
        return {svc.spec.name: svc.url for svc in self.services}
