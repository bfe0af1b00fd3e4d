"""Which runtime a run uses, and why, said in one line.

``--runtime local`` and ``--runtime docker`` are taken as asked. ``auto`` chooses per run: where every
row is the lab's own pure-Python reference SUT and the local runtime can run them all (their servers
installed here), the local runtime, where they cost least and a container would sandbox only the lab's
own code; otherwise the docker runtime where an engine answers (a SUT with its own dependencies, a
team's image), else the local runtime, said to be not sandboxed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lab.profile import Profile
from lab.runtime import Runtime, get_runtime, runnable

#: The lab's own drivers whose SUT is pure Python shipped with the lab (no dependencies of its own).
OWN_PURE_DRIVERS = frozenset({"reference", "lifecycle-reference"})


@dataclass(frozen=True)
class Choice:
    """A runtime and the reason it was chosen."""

    runtime: Runtime
    why: str

    def line(self) -> str:
        """The run's first line: ``runtime: NAME (WHY)``."""
        return f"runtime: {self.runtime.name} ({self.why})"


def own_and_pure(profile: Profile) -> bool:
    """A row of the lab's own pure-Python reference SUT, with no image of its own."""
    return profile.driver in OWN_PURE_DRIVERS and profile.image is None


def choose(name: str, profiles: Sequence[Profile]) -> Choice:
    """The runtime for a run of ``profiles`` under ``--runtime NAME`` (RuntimeUnavailable when asked
    for one that cannot run here)."""
    from lab.runtime.local import LocalRuntime

    if name == "local":
        return Choice(LocalRuntime(), "asked: SUTs as local processes, not sandboxed")
    if name == "docker":
        return Choice(get_runtime("docker"), "asked: each SUT in its hardened container")
    local = LocalRuntime()
    if profiles and all(own_and_pure(p) and runnable(local, p)[0] for p in profiles):
        return Choice(local, "auto: only the lab's own pure-Python SUTs; --runtime docker contains them")
    from lab.runtime.docker import DockerRuntime

    docker = DockerRuntime()
    ok, why = docker.available()
    if ok:
        return Choice(docker, "auto: a SUT with its own code or dependencies, and an engine answers")
    return Choice(local, f"auto: no Docker engine answers, SUTs run unsandboxed: {why}")
