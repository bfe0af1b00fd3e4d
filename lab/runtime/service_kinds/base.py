"""What a kind of backend server is to the lab: one class, one module a kind.

A kind says why it cannot run here and what installs it, how it starts on a data folder as a local
process (and as the command of a container of its backend image), how the lab knows the server on a
port is ours (it reports our data folder), what it does once up, and how it stops cleanly.
"""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

from lab.profile.model import ServiceSpec
from lab.runtime.service_process import RunningService, Spawned


class ServiceKind:
    """A kind of backend server (``postgres``, ``redis``, ``redis-stack``)."""

    name: str = ""
    #: The signal that stops it cleanly, its data folder consistent afterwards.
    stop_signal: int = signal.SIGTERM

    def backend(self, spec: ServiceSpec) -> str:
        """The backend image (``lab.runtime.images.BACKENDS``) a service of this kind runs from."""
        return self.name

    def missing(self, spec: ServiceSpec) -> str | None:
        """Why a local server for ``spec`` cannot run here, and how to fix it; None when it can."""
        raise NotImplementedError

    def enabling_command(self, spec: ServiceSpec) -> str:
        """What makes the local server runnable here, as the user types it."""
        raise NotImplementedError

    def start_local(self, spec: ServiceSpec, data: Path, log_path: Path, env: dict[str, str],
                    on_spawn: Spawned) -> RunningService:
        """Start the server as a local process on ``data`` and confirm it is ours."""
        raise NotImplementedError

    def container_command(self, spec: ServiceSpec, data: str, port: int) -> list[str]:
        """The command of a container of the backend image: the same server on ``data``, on ``port``."""
        raise NotImplementedError

    def ready(self, proc: subprocess.Popen, port: int, data: str, log_path: Path) -> tuple[str, str]:
        """Wait until the server on ``port`` answers as ours (it reports ``data``); its URL and version."""
        raise NotImplementedError

    def after_start(self, spec: ServiceSpec, url: str, version: str, proc: subprocess.Popen) -> str:
        """What the kind does once its server is up (PostgreSQL: the declared extensions); the version."""
        return version
