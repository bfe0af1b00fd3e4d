"""Runtimes: start and stop a SUT process with its volumes; nothing else.

A runtime prepares a SUT's environment once (``prepare``) and launches a new
SUT process for every restart (``launch``), returning a
:class:`~lab.driver.DriverClient`. The local runtime runs the driver in a
cached virtual environment; the docker runtime (:mod:`lab.runtime.docker`) runs
it in a hardened container of an image built from the same driver folder. Also here: the
backend services (PostgreSQL, Redis) on their volumes, the images built without a registry,
the lab's own container, and the run registry with ``gc``.

May import: ``lab.profile``, ``lab.driver`` and ``lab.moments`` (the named moments of a run).
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from lab import RUNTIME_NAMES
from lab.driver import DriverClient
from lab.profile import Profile
from lab.runtime.prepared import Prepared
from lab.runtime.services import RunningService, ServiceSpec


class Runtime(Protocol):
    """Start/stop SUT processes with volumes mounted."""

    name: str

    def available(self) -> tuple[bool, str]:
        """Whether this runtime can run here, and why not."""
        ...

    def prepare(self, profile: Profile) -> Prepared:
        """Build (or reuse) the SUT's environment."""
        ...

    def launch(self, prepared: Prepared, volumes: dict[str, Path], scratch: Path, log_path: Path,
               run_id: str) -> DriverClient:
        """A new, started SUT process on these volumes."""
        ...


    def start_service(self, spec: ServiceSpec, data: Path, log_path: Path, run_id: str,
                      on_spawn=None) -> RunningService:
        """Start a backend service (PostgreSQL, Redis) on its data volume; loopback only; ``on_spawn``
        (when given) is told a local server's pid before the server is probed."""
        ...


class RuntimeUnavailable(RuntimeError):
    """The requested runtime cannot run on this host; the message says why and what to do."""


def runnable(runtime: Runtime, profile: Profile) -> tuple[bool, str]:
    """Whether ``profile`` can run on ``runtime`` here, and why not (with the fix)."""
    ok, why = runtime.available()
    if ok and profile.image and runtime.name == "local":
        return False, ("its own image (image: in the profile) runs on the docker runtime only: "
                       "memlab run --runtime docker")
    if ok and profile.image and profile.image.tag and runtime.name == "docker":
        from lab.runtime.own_image import missing

        problem = missing(profile)
        if problem:
            return False, problem
    if ok and runtime.name == "local":
        from lab.runtime.services import missing_local

        for spec in profile.services:
            missing = missing_local(spec)
            if missing:
                return False, f"service {spec.name}: {missing}"
    return ok, why


def enabling_command(runtime: Runtime, profile: Profile) -> str:
    """For a row ``runnable`` refuses: what makes it run (a missing server's install command, or
    ``--runtime docker``), else the command that says why it cannot."""
    if runtime.name == "local" and profile.image:
        return "--runtime docker"
    if runtime.name == "local":
        from lab.runtime.services import enabling_command as service_command
        from lab.runtime.services import missing_local

        for spec in profile.services:
            if missing_local(spec):
                return service_command(spec)
    from lab.runtime.shell import memlab

    return f"{memlab()} list --runtime {runtime.name}"


def get_runtime(name: str) -> Runtime:
    """The runtime called ``name``; ``auto`` is docker where an engine answers, else local."""
    from lab.runtime.local import LocalRuntime

    if name == "local":
        return LocalRuntime()
    if name in ("docker", "auto"):
        from lab.runtime.docker import DockerRuntime

        docker = DockerRuntime()
        ok, why = docker.available()
        if ok:
            return docker
        if name == "docker":
            raise RuntimeUnavailable(f"the docker runtime cannot run here: {why}\n  fix: start an engine "
                                     "(.ci/docker-up does it on Debian), or use --runtime local")
        return LocalRuntime()
    raise RuntimeUnavailable(f"unknown runtime {name!r}; use one of {', '.join(RUNTIME_NAMES)}")
