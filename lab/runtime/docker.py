"""The Docker runtime: every SUT start is a new, hardened container of the SUT's image.

``prepare`` ensures ``memlab/sut-<driver>:<digest>`` (built by :mod:`lab.runtime.images`
from the very driver folder the local runtime runs; a row with its own image, its Dockerfile's
build or its tagged image: :mod:`lab.runtime.own_image`) and reads the SUT
environment's exact package list from the image. ``launch`` returns a
:class:`ContainerClient` whose process is ``docker run -i --rm --init``: the
driver protocol runs over the container's stdio, its stderr is the SUT's log.

A SUT image is untrusted code, so the container runs as a non-root user (the
image's uid 10001, to which a root lab hands the volume folders; otherwise the
lab's own uid, which owns them), with every capability dropped,
``no-new-privileges``, a read-only root file system with a fresh tmpfs ``/tmp``
and only its volumes (``/vol/<name>``) writable, memory and pids limits, no
Docker socket, and ``--network none``. A SUT whose backend runs beside it on
loopback gets ``--network host`` (see :func:`backends_of`); never a bridge.

With ``fork_server`` on (the default; ``--no-fork-server`` turns it off), a row's starts are forked
in one equally hardened container per (image, row) that imported the SUT once
(:mod:`lab.runtime.docker_forkserver`); the environment's detail says whether it serves or why not.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path

from lab.logs import get_logger
from lab.runtime import images, own_image
from lab.driver import DriverClient
from lab.runtime.housekeeping import cache_key
from lab.profile import Profile
from lab.runtime.prepared import LIST_PACKAGES, Prepared
from lab.runtime.services import RunningService, ServiceSpec
from lab.runtime.docker_service_hosts import ServiceHosts
from lab.runtime.docker_services import start_container
from lab.runtime.docker_forkserver import CONTAINER_PYTHON, ContainerForkServers
from lab.runtime.dockercli import (CACHE_LABEL, RUN_LABEL, DockerError, binary, complete_log, container_stderr,
                                   docker, engine, environment, image_id, remove)

log = get_logger(__name__)

SUT_UID = 10001  # the image's user (images/sut.Dockerfile)
VOLUME_ROOT = "/vol"


@dataclass(frozen=True)
class Limits:
    """Resource limits of one SUT container."""

    memory: str = "1g"
    pids: int = 256
    tmpfs: str = "256m"


def backends_of(profile: Profile) -> list[str]:
    """Backend images a row needs beside its SUT (the kinds of its declared services).

    The hook for service backends: their images are ensured at ``prepare`` and
    the SUT then gets ``--network host`` to reach them on loopback.
    """
    return [images.backend_for(spec) for spec in profile.services if images.backend_for(spec) in images.BACKENDS]


def _build_progress(line: str) -> None:
    """A build inside a run: its steps and headlines as info events (the run's progress bar shows them)."""
    if line.startswith(" "):
        log.info("image.build", step=line.strip())
    else:
        log.info("image.build", note=line)


class ContainerClient(DriverClient):
    """A driver client whose process is ``docker run``: a kill or a forced stop removes the container too.

    The SUT's log is what the ``docker run`` client copies from the engine to its stderr. A
    client that is starved (load) or killed can miss what the engine still holds, so a kill
    first reads the engine's own log of the container, then ends the *container* and gives the
    client a moment to drain, and only then kills the client and removes the container; when
    the client's copy lacks part of the engine's, the engine's is added to the log file.
    """

    #: Seconds a client gets to drain the log after its container was killed.
    DRAIN_SECONDS = 5.0

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path, log_path: Path, container: str):
        super().__init__(argv, env, cwd, log_path)
        #: The container's name (the run registry records it; gc finds it by label).
        self.container = container
        self._removed = False
        self._log_start = 0

    def start(self) -> "ContainerClient":
        """Start ``docker run``; remember where this start's part of the log file begins."""
        self._log_start = self.log_path.stat().st_size if self.log_path.is_file() else 0
        super().start()
        return self

    def kill(self) -> None:
        """Read the engine's log, kill the container, let the client drain, kill it, remove the container."""
        proc = self._proc
        if proc is None or self._removed:
            return super().kill()
        engine_log = container_stderr(self.container) if proc.poll() is None else None
        if proc.poll() is None:
            try:
                docker("kill", self.container, check=False, timeout=30)  # fails harmlessly if it never started
                proc.wait(timeout=self.DRAIN_SECONDS)
            except (DockerError, subprocess.TimeoutExpired):
                pass  # the client is killed below; the engine's copy covers what it missed
        super().kill()
        self._remove()
        self._complete_log(engine_log)

    def _complete_log(self, engine_log: str | None) -> None:
        """Add the engine's copy of the container's stderr when the client's copy lacks part of it."""
        complete_log(self.log_path, self._log_start, engine_log, self.container)

    def stop(self, grace: float = 5.0) -> None:
        """Close the SUT's input and wait; a container that had to be signalled is removed."""
        proc = self._proc
        super().stop(grace)
        if proc is not None and (proc.returncode is None or proc.returncode < 0):
            self._remove()

    def _remove(self) -> None:
        if not self._removed:
            remove("container", [self.container])
            self._removed = True


class DockerRuntime:
    """Runs drivers in hardened containers of images the lab builds itself."""

    name = "docker"

    def __init__(self, limits: Limits = Limits(), ca_certs: list[Path] | None = None, fork_server: bool = True):
        self.limits, self.ca_certs = limits, ca_certs
        #: Fork every start of a row in its server container (False: every start a new container).
        self.use_fork_server = fork_server
        self.fork_servers = ContainerForkServers(self._server_flags, self._hand_over)
        #: The rows' service hosts: a service's starts are ``docker exec`` in one container per row.
        self.service_hosts = ServiceHosts()
        self._listings: dict[str, dict] = {}
        self._lock = threading.Lock()
        self._available: tuple[bool, str] | None = None

    def available(self) -> tuple[bool, str]:
        """An engine answers, and the base image is here or can be bootstrapped (asked once)."""
        if self._available is None:
            ok, why = engine()
            if ok and not (image_id(images.BASE_TAG) or shutil.which("mmdebstrap") or shutil.which("debootstrap")):
                ok, why = False, f"{why}, but no {images.BASE_TAG} and no mmdebstrap/debootstrap to make it"
            self._available = (ok, why)
        return self._available

    def prepare(self, profile: Profile) -> Prepared:
        """Ensure the SUT image (and its backend images); read its exact package list from the image."""
        if profile.image:
            rec = own_image.ensure(profile, self.ca_certs, _build_progress)
            found, source = own_image.packages(profile)
            listing = {"python": "", "packages": found, "requires": None, "packages_from": source}
        else:
            rec = images.ensure_sut(profile.driver_dir, self.ca_certs, _build_progress)
            listing = self._listing(rec.id)
        backends = {name: images.ensure_backend(name, _build_progress).id for name in backends_of(profile)}
        return Prepared(profile=profile, runtime=self.name, python=listing["python"],
                        packages=listing["packages"], detail={
                            "image": rec.tag, "image_id": rec.id, "base_image_id": rec.labels.get("memlab.base"),
                            "debian": {k: v for k, v in rec.labels.items() if k.startswith("memlab.deb.")},
                            "network": "host" if backends else "none", "backends": backends,
                             "limits": asdict(self.limits), "user": self._user_spec(),
                             "interpreter": "the image's entrypoint" if profile.image else CONTAINER_PYTHON,
                             "requires": listing.get("requires"),
                             "fork_server": (self.fork_servers.note(profile) if self.use_fork_server
                                             else {"used": False, "reason": "--no-fork-server"}),
                             **({"own_image": profile.image.to_json(), "packages_from": listing["packages_from"]}
                                if profile.image else {})})

    def launch(self, prepared: Prepared, volumes: dict[str, Path], scratch: Path, log_path: Path,
               run_id: str) -> DriverClient:
        """A driver client for a new container of the SUT image on these host volumes."""
        scratch.mkdir(parents=True, exist_ok=True)
        served = {spec.volume for spec in prepared.profile.services}  # the SUT reaches those over loopback
        volumes = {name: path for name, path in volumes.items() if name not in served}
        self._hand_over(volumes.values())
        note = prepared.detail.get("fork_server") or {}
        if self.use_fork_server and (note.get("used") or note.get("pending")):
            forked = self.fork_servers.launch(prepared, volumes, scratch, log_path, run_id)
            if forked is not None:
                return forked
        row = re.sub(r"[^a-zA-Z0-9_.-]", "_", prepared.profile.row)
        container = f"memlab-{run_id}-{row}-{uuid.uuid4().hex[:8]}"
        argv = [binary(), "run", "-i", "--rm", "--init", "--name", container, "--label", f"{RUN_LABEL}={run_id}",
                "--label", f"{CACHE_LABEL}={cache_key()}", "--label", f"memlab.row={prepared.profile.row}",
                *self._hardened(), "--network", prepared.detail["network"],
                "-e", f"MEMLAB_RUN_ID={run_id}", "-e", "MEMLAB_RUNTIME=docker", "-e", "HOME=/tmp",
                "-e", "XDG_CONFIG_HOME=/tmp/.config", "-e", "TMPDIR=/tmp"]
        paths = {}
        for name, path in volumes.items():
            if not re.fullmatch(r"[A-Za-z0-9_.-]+", name) or "," in str(path):
                raise ValueError(f"volume {name!r} at {path}: names are [A-Za-z0-9_.-], paths have no commas")
            paths[name] = f"{VOLUME_ROOT}/{name}"
            argv += ["--mount", f"type=bind,source={Path(path).resolve()},target={paths[name]}"]
        argv.append(prepared.detail["image_id"])
        client = ContainerClient(argv, environment({"MEMLAB_RUN_ID": run_id}), scratch, log_path, container)
        client.volume_paths = paths
        return client

    def close(self) -> None:
        """Remove this runtime's fork-server and service-host containers (they also go with their run and by
        ``gc``)."""
        self.fork_servers.close()
        self.service_hosts.close()

    def start_service(self, spec: ServiceSpec, data: Path, log_path: Path, run_id: str,
                      on_spawn=None) -> RunningService:
        """The service in a container of its backend image (host networking on loopback); its container
        carries the run's label from its creation, so ``gc`` finds it without ``on_spawn``."""
        return start_container(spec, data, log_path, run_id, self.service_hosts)

    # ---- helpers ---------------------------------------------------------------
    def _listing(self, image: str) -> dict:
        """The image's Python version and packages (the same listing the local runtime records)."""
        with self._lock:
            if image not in self._listings:
                out = docker("run", "--rm", *self._hardened(), "--network", "none", "--entrypoint", CONTAINER_PYTHON,
                             image, "-I", "-c", LIST_PACKAGES, timeout=120).stdout
                self._listings[image] = json.loads(out)
            return self._listings[image]

    def _server_flags(self, prepared: Prepared) -> list[str]:
        """A fork-server container's flags: a SUT container's (labels, hardening, the row's network)."""
        return ["--label", f"{CACHE_LABEL}={cache_key()}", *self._hardened(), "--network", prepared.detail["network"]]

    def _hardened(self) -> list[str]:
        """The flags every container of SUT code gets: who it runs as, what it may write, its limits."""
        lim = self.limits
        return ["--user", self._user_spec(), "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
                "--read-only", "--tmpfs", f"/tmp:rw,nosuid,nodev,size={lim.tmpfs},mode=1777",
                "--memory", lim.memory, "--memory-swap", lim.memory, "--pids-limit", str(lim.pids)]

    @staticmethod
    def _user_spec() -> str:
        """The container's uid:gid: the image's user when the lab runs as root, else the lab's own ids."""
        return f"{SUT_UID}:{SUT_UID}" if os.geteuid() == 0 else f"{os.getuid()}:{os.getgid()}"

    @staticmethod
    def _hand_over(paths) -> None:
        """A root lab gives the volume folders (and files) to the SUT's uid, so it can write them and nothing else."""
        if os.geteuid() != 0:
            return
        for root in paths:
            if os.lstat(root).st_uid != SUT_UID:  # a file too (a fork server's log and status pipe)
                os.lchown(root, SUT_UID, SUT_UID)
            for dirpath, dirnames, filenames in os.walk(root):
                for entry in [dirpath] + [os.path.join(dirpath, n) for n in dirnames + filenames]:
                    if os.lstat(entry).st_uid != SUT_UID:
                        os.lchown(entry, SUT_UID, SUT_UID)
