"""What every backend server the lab starts shares, whatever its kind: the running service, the error,
a free loopback port, the wait until the server answers as ours, and the run's note of its pid.

The kinds themselves (how each is started, probed, stopped, installed) are :mod:`lab.runtime.service_kinds`.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from lab import moments
from lab.profile.model import ServiceSpec


class ServiceError(RuntimeError):
    """A service could not be started or did not answer as ours; the message says why."""


@dataclass
class RunningService:
    """A started service: how the lab and the SUT reach it, and how to stop it."""

    spec: ServiceSpec
    url: str
    version: str
    proc: subprocess.Popen | None = None
    container: str | None = None
    stop_signal: int = signal.SIGTERM

    @property
    def pid(self) -> int | None:
        """The server's process id (the run registry kills it after a crash)."""
        return self.proc.pid if self.proc else None

    def stop(self, timeout: float = 20.0) -> None:
        """Stop cleanly (the data directory is consistent afterwards)."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(self.stop_signal)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                if self.container:  # the docker CLI died; its container must not outlive it
                    subprocess.run(["docker", "rm", "-f", self.container], capture_output=True, timeout=60)


#: The ports ``free_port`` handed out last in this process: services started side by side (trials of
#: one row, rows of one run) never get the same one while a server has not bound its port yet. A port
#: handed out thousands of starts ago has long been bound or let go, so the memory is bounded.
_HANDED: deque[int] = deque(maxlen=4096)
_HANDED_LOCK = threading.Lock()


def free_port() -> int:
    """A free TCP port on 127.0.0.1, none of the last ports this process handed out."""
    with _HANDED_LOCK:
        while True:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
            if port not in _HANDED:
                _HANDED.append(port)
                return port


Spawned = Callable[[int], None]


def spawned(spec: ServiceSpec, proc: subprocess.Popen, on_spawn: Spawned) -> subprocess.Popen:
    """Tell ``on_spawn`` of a just spawned server (then the moment ``service-start``)."""
    on_spawn(proc.pid)
    moments.reach("service-start", spec.name, spec.kind)
    return proc


def wait_ready(proc: subprocess.Popen, probe, expected: str, log_path: Path, seconds: float = 60.0) -> str:
    """Poll ``probe`` until it answers ``expected`` (our data directory), or fail with the log."""
    deadline = time.monotonic() + seconds
    last = ""
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ServiceError(f"the server exited with code {proc.returncode}: {tail(log_path)}")
        try:
            answer = probe()
        except (ConnectionError, subprocess.TimeoutExpired, OSError) as exc:
            last = str(exc)
            time.sleep(0.05)
            continue
        if Path(answer).resolve() != Path(expected).resolve():
            proc.kill()
            raise ServiceError(f"the server on that port serves {answer!r}, not our {expected!r}")
        return answer
    proc.kill()
    raise ServiceError(f"the server did not answer within {seconds:g} s ({last}): {tail(log_path)}")


def checked(args: list[str], env: dict[str, str], what: str, **user) -> None:
    """Run a server's set-up program (``initdb``); a ServiceError with its output when it fails."""
    out = subprocess.run(args, capture_output=True, text=True, env=env, cwd="/", **user)
    if out.returncode != 0:
        raise ServiceError(f"{what} failed (exit {out.returncode}): {out.stderr[-1500:]}")


def tail(path: Path, lines: int = 15) -> str:
    """The last lines of a server's log, for an error message."""
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""
