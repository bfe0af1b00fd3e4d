"""Fork servers of the docker runtime: one hardened container per (SUT image, row) imports the SUT once.

A :class:`ContainerForkServer` is the kit's fork server (``memlab_driver/fork_server.py``) run as
the main process of a container of the SUT image, with the flags every SUT container gets
(:meth:`~lab.runtime.docker.DockerRuntime._hardened`, the row's network) and two bind mounts at
their host paths: the server's own folder (its socket, its status pipe, its log, its ``HOME``)
and the row's folder (``<run scratch>/<row>``: the seeded volumes, every trial's copy and
scratch; nothing of another row). A start is the kit's launcher run on the host
(``python -I -S fork_launch.py`` with ``MEMLAB_FORK_REMOTE=1``): it hands its stdio to the server
over the mounted socket, so the forked driver runs inside the container, in its namespaces,
cgroup limits and seccomp profile, with its stderr on the start's own log file. A killed
launcher closes its connection and the server kills the driver's group at once; SIGTERM goes
over the connection. The server starts at a row's first start (its mounts are fixed then), is
registered with the run (its end, Ctrl-C and ``gc`` remove the container) and ends by itself
after 30 s with no driver running. docs/fork-server.md, "The docker runtime".
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import sys
from pathlib import Path
from typing import Any, Callable

from lab import safewrite
from lab.driver import DriverClient
from lab.logs import get_logger
from lab.profile import Profile
from lab.runtime.prepared import Prepared
from lab.runtime.dockercli import RUN_LABEL, DockerError, docker, init_pid, remove, running
from lab.runtime.forkserver import IDLE_SECONDS, KIT, MAX_SOCKET_PATH, ForkServer, ForkServers, _per_start, _preload, \
    _recorded, _recorded_path, _setting, refusal
from lab.runtime.housekeeping import cache_dir, scratch_base, track_container

log = get_logger(__name__)
HandOver = Callable[[list[Path]], None]

CONTAINER_PYTHON = "/opt/memlab/venv/bin/python"
#: The driver inside every SUT image (images/sut.Dockerfile).
CONTAINER_DRIVER = "/opt/memlab/images/driver/driver.py"
#: Paths of the image a row's folder may not be mounted over (it is mounted at its host path).
_IMAGE_PATHS = ("/opt/memlab", "/proc", "/sys", "/dev", "/etc", "/usr", "/bin", "/lib", "/sbin")
_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


class ContainerForkServer(ForkServer):
    """A fork server in a container of ``image`` that sees ``root`` (see the module)."""

    def __init__(self, image: str, root: Path, flags: list[str], env: dict[str, str], modules: list[str],
                 optional: list[str], timeout: float, keep_record: Path, hand_over: HandOver,
                 per_start: list[str] = (), unused_paths: list[str] = ()):
        super().__init__(sys.executable, Path(CONTAINER_DRIVER), env, modules, timeout, optional, per_start,
                         unused_paths)
        self.image, self.root, self.flags, self.hand_over = image, root, flags, hand_over
        row, suffix = re.sub(r"[^a-zA-Z0-9_.-]", "_", root.name), self.folder.name.rsplit("-", 1)[-1]
        self.name = f"memlab-{env.get('MEMLAB_RUN_ID', 'norun')}-{row}-forkserver-{suffix}"
        # The folder stays the lab's: the SUT's uid owns only the files and folders it must write, so it
        # cannot put a link where the lab reads (the log's tail) or connects (the socket, once bound).
        self.folder.chmod(0o755)
        self.socket = self.folder / "sock" / "server.sock"
        self.record = self.folder / "record" / "modules.json"
        #: Where the first start's list of loaded modules is kept for the next server of this image.
        self.keep_record = keep_record
        self.init_pid = 0

    def start(self) -> dict[str, Any]:
        """Start the container and wait for the server's status on its pipe."""
        if len(str(self.socket)) > MAX_SOCKET_PATH:
            self.status = {"refused": f"socket path {self.socket} is longer than {MAX_SOCKET_PATH} bytes"}
            return self.status
        owned = [self.folder / sub for sub in ("home", "config", "tmp", "placeholder", "sock", "record")]
        for path in owned:
            path.mkdir()
        status = self.folder / "status"
        os.mkfifo(status, 0o600)
        self.log_path.touch()
        self.hand_over([*owned, status, self.log_path])
        read = os.open(status, os.O_RDONLY | os.O_NONBLOCK)  # before the writer, so its open does not block
        try:
            docker(*self._run_args(status), timeout=self.timeout)
            self.status = self._read_status(read)
            self.init_pid = init_pid(self.name)
        except DockerError as exc:
            self.status = {"refused": f"the server container did not start: {exc}"}
        finally:
            os.close(read)
        if self.status.get("ready") and os.geteuid() == 0:
            os.chown(self.folder / "sock", 0, 0)  # the socket is bound: nothing in the container may replace it
        if not self.status.get("ready"):
            self.stop()
        log.debug("fork_server.status", image=self.image, container=self.name, **self.status)
        return self.status

    def _run_args(self, status: Path) -> list[str]:
        """``docker run`` of the server: detached, the runtime's flags, two mounts, status on fd 3."""
        spec = {"socket": str(self.socket), "driver": CONTAINER_DRIVER, "modules": self.modules,
                "optional": self.optional, "per_start": self.per_start, "private": str(self.folder),
                "unused_paths": self.unused_paths, "idle": IDLE_SECONDS}
        spec_path = self.folder / "spec.json"  # a file, as on the local runtime: a recorded list outgrows an argument
        spec_path.write_text(json.dumps(spec))
        spec_path.chmod(0o644)
        env = {**self.env, "HOME": str(self.folder / "home"), "XDG_CONFIG_HOME": str(self.folder / "config"),
               "TMPDIR": str(self.folder / "tmp")}
        return ["run", "-d", "--rm", "--init", "--name", self.name, *self.flags,
                "--mount", f"type=bind,source={self.folder},target={self.folder}",
                "--mount", f"type=bind,source={self.root},target={self.root}",
                *[arg for key, value in env.items() for arg in ("-e", f"{key}={value}")],
                "--entrypoint", "/bin/sh", self.image, "-c",
                'exec "$0" -u -m memlab_driver.fork_server "$1" 3 3>"$2" 2>>"$3" 1>&2',
                CONTAINER_PYTHON, str(spec_path), str(status), str(self.log_path)]

    def alive(self) -> bool:
        """Whether the server's container still runs (the server ends it when idle): its init's pid
        here, else (another PID namespace than the engine's) the engine's word."""
        return bool(self.status.get("ready")) and running(self.name, self.init_pid)

    def launcher(self, plain: list[str], run_id: str, record: Path | None) -> list[str]:
        """The launcher's argv on the host (registers the container with the run first)."""
        if run_id not in self.runs:
            track_container(run_id, self.name)
            self.runs.add(run_id)
        return [self.python, "-I", "-S", str(KIT / "fork_launch.py"), str(self.socket), "-",
                str(self.record) if record else "-", "--", *plain]

    def stop(self) -> None:
        """Remove the container (its processes die with it), keep the module record, remove the folder."""
        remove("container", [self.name])
        names = read_record(self.record)
        if names is not None:
            self.keep_record.parent.mkdir(parents=True, exist_ok=True)
            safewrite.write_text(self.keep_record, json.dumps(names))
        shutil.rmtree(self.folder, ignore_errors=True)


def read_record(path: Path) -> list[str] | None:
    """The module names a start recorded in ``path`` (a file the SUT's uid could write): read without
    following a link, at most 1 MiB, kept only if it is a JSON list of module names; else None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            return None
        data = fh.read(1 << 20)
    try:
        names = json.loads(data)
    except ValueError:
        return None
    if not isinstance(names, list) or not all(isinstance(n, str) and _MODULE.fullmatch(n) for n in names):
        return None
    return names


class ContainerForkServers(ForkServers):
    """The docker runtime's fork servers, one per (image, row folder), started at the row's first start.

    The local runtime's pool (its servers by key, per-key locks, ``close``, ended at exit); a docker
    row asks for a :meth:`note` at prepare and a :meth:`launch` per start instead of its ``prepare``
    and ``launcher``."""

    def __init__(self, flags: Callable[[Prepared], list[str]], hand_over: HandOver):
        super().__init__()
        self.flags, self.hand_over = flags, hand_over
        self._envs: dict[str, dict[str, str]] = {}

    @staticmethod
    def note(profile: Profile) -> dict[str, Any]:
        """The environment's note at prepare: a refusal known from the profile, or the server to come
        (``pending``; the row's first start replaces it with what the server said)."""
        why = refusal(profile)
        if why:
            return {"used": False, "reason": why}
        return {"used": False, "pending": True, "reason": "no start yet: the server's container starts at the "
                                                          "row's first start (it mounts the row's folder)"}

    def launch(self, prepared: Prepared, volumes: dict[str, Path], scratch: Path, log_path: Path,
               run_id: str) -> DriverClient | None:
        """A driver client whose start is forked in the row's server container, or None (plain path)."""
        root = row_folder(scratch, volumes.values(), run_id)
        if root is None:
            log.debug("fork_server.outside_row", scratch=str(scratch))
            return None
        key = (prepared.detail["image_id"], str(root))
        with self._lock_of(key):
            server = self._servers.get(key)
            if server is None or (server.status.get("ready") and not server.alive()):
                server = self._start(key, prepared, root, run_id)
            if not server.status.get("ready"):
                return None
            record = key not in self._recording
            self._recording.add(key)
        for sub in ("home", "config", "tmp"):
            (scratch / sub).mkdir(parents=True, exist_ok=True)
        self.hand_over([scratch])
        env = {**self._image_env(prepared.detail["image_id"]), **trial_env(scratch, run_id), "MEMLAB_FORK_REMOTE": "1"}
        argv = server.launcher([CONTAINER_PYTHON, "-u", CONTAINER_DRIVER], run_id, record)
        client = DriverClient(argv, env, scratch, log_path)
        client.volume_paths = {name: str(Path(path).resolve()) for name, path in volumes.items()}
        return client

    def _start(self, key: tuple, prepared: Prepared, root: Path, run_id: str) -> ContainerForkServer:
        """Start the row's server (again, with the cut, when a recorded module starts a thread); the note."""
        profile, image = prepared.profile, prepared.detail["image_id"]
        records = cache_dir() / "forkservers" / image.split(":")[-1][:16]
        records.mkdir(parents=True, exist_ok=True)
        server = self._server(prepared, root, run_id, records)
        cut = server.status.get("thread_after")
        if cut:
            _recorded_path(profile, records).with_suffix(".cut").write_text(cut)
            server = self._server(prepared, root, run_id, records)
        self._servers[key] = server
        self._recording.discard(key)
        status = server.status
        prepared.detail["fork_server"] = (
            {"used": True, "preloaded_modules": status.get("modules"), "preload_seconds": status.get("seconds"),
             "preload": list(_preload(profile)), "skipped": status.get("skipped", []),
             "container": "one per row, started at its first start"} if status.get("ready")
            else {"used": False, "reason": status.get("refused")})
        return server

    def _server(self, prepared: Prepared, root: Path, run_id: str, records: Path) -> ContainerForkServer:
        profile, image = prepared.profile, prepared.detail["image_id"]
        labels = ["--label", f"{RUN_LABEL}={run_id}", "--label", f"memlab.row={profile.row}",
                  "--label", "memlab.role=fork-server"]
        server = ContainerForkServer(image, root, [*labels, *self.flags(prepared)],
                                     {"MEMLAB_RUN_ID": run_id, "MEMLAB_RUNTIME": "docker"},
                                     list(_preload(profile)), _recorded(profile, records),
                                     float(profile.timeouts.get("start", 60.0)), _recorded_path(profile, records),
                                     self.hand_over, list(_per_start(profile)), list(_setting(profile, "unused_paths")))
        server.start()
        return server

    def _image_env(self, image: str) -> dict[str, str]:
        """The environment the image sets (``ENV``), as a plain container of it starts with."""
        if image not in self._envs:
            out = docker("image", "inspect", "--format", "{{json .Config.Env}}", image, timeout=30).stdout
            self._envs[image] = dict(item.split("=", 1) for item in json.loads(out) or [] if "=" in item)
        return self._envs[image]


def trial_env(scratch: Path, run_id: str) -> dict[str, str]:
    """A fork-served start's own folders and names: its ``HOME``, ``XDG_CONFIG_HOME`` and ``TMPDIR``
    under its scratch (the server container's ``/tmp`` is shared by the row's starts)."""
    return {"HOME": str(scratch / "home"), "XDG_CONFIG_HOME": str(scratch / "config"), "TMPDIR": str(scratch / "tmp"),
            "MEMLAB_RUN_ID": run_id, "MEMLAB_RUNTIME": "docker", "MEMLAB_FORK_SERVED": "1"}


def row_folder(scratch: Path, volumes, run_id: str) -> Path | None:
    """The row's folder that holds ``scratch`` and every volume: the child of the run's scratch root
    (``<scratch base>/<run id>-*``) on their path; None when there is none, or it is an image path."""
    base = scratch_base().resolve()
    scratch = Path(scratch).resolve()
    root = next((p for p in [scratch, *scratch.parents] if p.parent.parent == base
                 and p.parent.name.startswith(f"{run_id}-")), None)
    if root is None or any(str(root).startswith(prefix + "/") for prefix in _IMAGE_PATHS):
        return None
    if not all(Path(v).resolve().is_relative_to(root) for v in volumes):
        return None
    return root
