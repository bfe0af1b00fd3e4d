"""The lab itself in a container, started with testcontainers, driving the host's engine.

``LabContainer`` runs ``memlab ARGS`` in ``memlab/lab:latest`` (``memlab images build
lab``) with the Docker socket mounted into it — the lab's container only; the SUT
and backend containers it starts never get it — host networking, the scratch
folder at the same path on both sides (the engine bind-mounts trial volumes from
it) and the result set written to a host folder. No registry is needed: Ryuk (the
reaper image testcontainers would pull) is disabled; the container is removed when
the ``with`` block ends, and the SUT containers it started carry the lab's run
labels, so ``memlab gc`` removes them after a crash.

Example::

    from pathlib import Path
    from lab.runtime.labcontainer import LabContainer

    with LabContainer(["run", "--sut", "reference-sealed"], results=Path("results")) as lab:
        code = lab.wait_for_exit(timeout=900)
    print(code, list(Path("results").glob("*/rows/*.json")))
"""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("TESTCONTAINERS_RYUK_DISABLED", "true")

from testcontainers.core.container import DockerContainer  # noqa: E402

from lab.runtime.housekeeping import scratch_base  # noqa: E402
from lab.runtime.images import HOST_CA_DIRS, LAB_LATEST  # noqa: E402

SOCKET = "/var/run/docker.sock"


class LabContainer(DockerContainer):
    """``memlab ARGS`` in the lab's image; results in ``results`` (mounted at /work/results)."""

    def __init__(self, args: list[str], results: Path, profiles: Path | None = None, image: str = LAB_LATEST):
        super().__init__(image)
        scratch = scratch_base()
        Path(results).mkdir(parents=True, exist_ok=True)
        self.with_command(list(args))
        self.with_volume_mapping(SOCKET, SOCKET, "rw")
        self.with_volume_mapping(str(scratch), str(scratch), "rw")
        self.with_volume_mapping(str(Path(results).resolve()), "/work/results", "rw")
        if profiles is not None:
            self.with_volume_mapping(str(Path(profiles).resolve()), "/work/profiles", "ro")
        for folder in HOST_CA_DIRS:
            if folder.is_dir():
                self.with_volume_mapping(str(folder), "/usr/local/share/ca-certificates", "ro")
                break
        self.with_env("MEMLAB_SCRATCH", str(scratch))
        self.with_kwargs(network_mode="host", labels={"memlab.role": "lab"})

    def wait_for_exit(self, timeout: float = 1800) -> int:
        """Wait until ``memlab`` ends in the container; its exit code."""
        return int(self.get_wrapped_container().wait(timeout=timeout)["StatusCode"])

    def output(self) -> str:
        """What ``memlab`` printed (stdout and stderr)."""
        out, err = self.get_logs()
        return (out or b"").decode(errors="replace") + (err or b"").decode(errors="replace")
