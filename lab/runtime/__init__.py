"""Runtimes: start and stop a SUT process with its volumes; nothing else.

A runtime prepares a SUT's environment once (``prepare``) and launches a new
SUT process for every restart (``launch``), returning a
:class:`~lab.driver.DriverClient`. The local runtime runs the driver in a
cached virtual environment; a container runtime is a sibling implementation of
the same interface.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from lab.driver import DriverClient
from lab.profile import Profile

RUNTIME_NAMES = ("auto", "local", "docker")


@dataclass(frozen=True)
class Prepared:
    """A SUT environment ready to launch: how to start the driver and what is installed."""

    profile: Profile
    runtime: str
    python: str
    packages: dict[str, str] = field(default_factory=dict)
    detail: dict[str, Any] = field(default_factory=dict)


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


class RuntimeUnavailable(RuntimeError):
    """The requested runtime cannot run on this host; the message says why and what to do."""


def get_runtime(name: str) -> Runtime:
    """The runtime called ``name``; ``auto`` picks the first available (docker, then local)."""
    from lab.runtime.local import LocalRuntime

    if name in ("local", "auto"):
        # The container runtime joins ``auto`` when it lands; until then local is the default.
        return LocalRuntime()
    if name == "docker":
        raise RuntimeUnavailable("the docker runtime is not built yet; use --runtime local")
    raise RuntimeUnavailable(f"unknown runtime {name!r}; use one of {', '.join(RUNTIME_NAMES)}")
