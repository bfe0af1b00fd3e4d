"""Fork servers of the local runtime: a SUT's imports paid once, each start a fresh forked child.

A :class:`ForkServer` is one process in the SUT's environment (the kit's
``memlab_driver/fork_server.py``) that ran the driver's top level and imported the modules a
first start had loaded, and that never opens a store. A launch through it is a launcher
(``memlab_driver/fork_launch.py``, ``python -I -S``) in place of ``python -u driver.py``: the
:class:`~lab.driver.DriverClient` is unchanged. :class:`ForkServers` keeps one server per
environment (venv, driver, preload) for a runtime, starts it at ``prepare`` (so the row's
environment detail says whether it serves, or why not), registers it with each run that
launches through it (``housekeeping.track_server``: the run's end, Ctrl-C and ``gc`` end it),
and starts it again when it ended itself (idle, or a run's end). docs/fork-server.md.
"""

from __future__ import annotations

import ast
import atexit
import hashlib
import json
import os
import select
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from lab import safewrite
from lab.logs import get_logger
from lab.profile import IMAGES_DIR, Profile
from lab.runtime.housekeeping import scratch_base, server_folder, track_server

log = get_logger(__name__)

KIT = IMAGES_DIR / "driverkit" / "memlab_driver"
#: A server with no driver running for this long exits (its memory is the SUT's imports).
IDLE_SECONDS = 30.0
#: Longest Unix socket path the kernel takes (sun_path, less its terminating NUL).
MAX_SOCKET_PATH = 107


class ForkServer:
    """One fork server process: start it, ask whether it serves, build launcher argv, stop it."""

    def __init__(self, python: str, driver: Path, env: dict[str, str], modules: list[str], timeout: float,
                 optional: list[str] = (), per_start: list[str] = (), unused_paths: list[str] = ()):
        self.python, self.driver, self.env, self.timeout = python, driver, env, timeout
        #: Modules to preload: named in the profile (a failure refuses) and recorded (skipped on failure).
        self.modules, self.optional = list(modules), list(optional)
        #: Distributions whose modules each start imports itself (they read the trial's environment at import).
        self.per_start = list(per_start)
        #: Module globals the profile says keep the server's path from import unused (not a refusal).
        self.unused_paths = list(unused_paths)
        self.folder = Path(tempfile.mkdtemp(prefix=f"forkserver-{os.getpid()}-", dir=scratch_base()))
        self.socket = self.folder / "server.sock"
        self.log_path = self.folder / "server.log"
        self.proc: subprocess.Popen | None = None
        self.status: dict[str, Any] = {}
        self.runs: set[str] = set()

    def start(self) -> dict[str, Any]:
        """Start the server and wait for its status: ``{"ready": True, ...}`` or ``{"refused": why}``."""
        if len(str(self.socket)) > MAX_SOCKET_PATH:
            self.status = {"refused": f"socket path {self.socket} is longer than {MAX_SOCKET_PATH} bytes"}
            return self.status
        for sub in ("home", "config", "tmp", "placeholder"):
            (self.folder / sub).mkdir(exist_ok=True)
        env = {**self.env, "HOME": str(self.folder / "home"), "XDG_CONFIG_HOME": str(self.folder / "config"),
               "TMPDIR": str(self.folder / "tmp")}
        spec = {"socket": str(self.socket), "driver": str(self.driver), "modules": self.modules,
                "optional": self.optional, "per_start": self.per_start, "private": str(self.folder),
                "unused_paths": self.unused_paths,
                "idle": IDLE_SECONDS}
        spec_path = self.folder / "spec.json"  # not an argument: a recorded module list outgrows one (128 KiB)
        safewrite.write_text(spec_path, json.dumps(spec))
        read, write = os.pipe()
        began = time.monotonic()
        with safewrite.open_file(self.log_path) as logfile:
            self.proc = subprocess.Popen([self.python, "-u", "-m", "memlab_driver.fork_server", str(spec_path),
                                          str(write)], cwd=self.driver.parent, env=env, stdin=subprocess.DEVNULL,
                                         stdout=logfile, stderr=logfile, pass_fds=(write,), start_new_session=True)
        os.close(write)
        try:
            self.status = self._read_status(read)
        finally:
            os.close(read)
        if not self.status.get("ready"):
            self.stop()
        log.debug("fork_server.status", driver=str(self.driver), waited=round(time.monotonic() - began, 3),
                  **self.status)
        return self.status

    def _read_status(self, fd: int) -> dict[str, Any]:
        data = b""
        deadline = time.monotonic() + self.timeout
        while not data.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return {"refused": f"no status within {self.timeout:g} s (log {self.log_path})"}
            chunk = os.read(fd, 65536)
            if not chunk:
                tail = self.log_path.read_text(errors="replace").strip().splitlines()[-3:]
                return {"refused": f"the server ended before serving: {' | '.join(tail) or 'no output'}"}
            data += chunk
        try:
            return json.loads(data)
        except ValueError:
            return {"refused": f"unreadable status {data[:200]!r}"}

    def alive(self) -> bool:
        """Whether the server still runs (it ends itself when idle)."""
        return self.proc is not None and self.proc.poll() is None

    def launcher(self, plain: list[str], run_id: str, record: Path | None) -> list[str]:
        """The launcher's argv for one start (registers the server with the run first)."""
        track = server_folder(run_id)
        if track is not None and run_id not in self.runs and self.proc is not None:
            track_server(run_id, self.proc.pid, self.folder)
            self.runs.add(run_id)
        return [self.python, "-I", "-S", str(KIT / "fork_launch.py"), str(self.socket),
                str(track) if track else "-", str(record) if record else "-", "--", *plain]

    def stop(self) -> None:
        """End the server (it kills its children first) and remove its folder."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


class ForkServers:
    """The fork servers of one runtime, one per environment, started at prepare (see the module)."""

    def __init__(self) -> None:
        self._servers: dict[tuple, ForkServer] = {}
        self._recording: set[tuple] = set()
        self._lock = threading.Lock()
        self._locks: dict[tuple, threading.Lock] = {}
        atexit.register(self.close)

    def prepare(self, profile: Profile, python: str, venv: Path, env: dict[str, str]) -> dict[str, Any]:
        """Start (or reuse) the environment's server; the note for the environment's detail."""
        why = refusal(profile)
        if why:
            return {"used": False, "reason": why}
        key = self._key(profile, venv)
        with self._lock_of(key):
            server = self._servers.get(key)
            if server is None or not server.alive():
                server = self._start(key, profile, python, venv, env)
        if not server.status.get("ready"):
            log.debug("fork_server.refused", row=profile.row, reason=server.status.get("refused"))
            return {"used": False, "reason": server.status.get("refused")}
        return {"used": True, "preloaded_modules": server.status.get("modules"),
                "preload_seconds": server.status.get("seconds"), "preload": list(_preload(profile)),
                "skipped": server.status.get("skipped", []),
                **({"per_start": list(_per_start(profile))} if _per_start(profile) else {})}

    def launcher(self, profile: Profile, venv: Path, plain: list[str], run_id: str) -> list[str] | None:
        """The launcher's argv for a start through the environment's server, or None (plain path)."""
        key = self._key(profile, venv)
        with self._lock_of(key):
            server = self._servers.get(key)
            if server is None or not server.status.get("ready"):
                return None
            if not server.alive():
                if server.proc is None or server.proc.returncode != 0:
                    return None  # killed (a run's end, Ctrl-C, gc): no new server for a run that is ending
                server = self._start(key, profile, server.python, venv, server.env)  # it ended itself (idle)
                if not server.status.get("ready"):
                    log.warning("fork_server.restart_refused", row=profile.row, reason=server.status.get("refused"))
                    return None
            record = None
            if key not in self._recording:  # the first start of each server records what it loaded
                self._recording.add(key)
                record = _recorded_path(profile, venv)
        return server.launcher(plain, run_id, record)

    def folders(self) -> list[Path]:
        """The folders of this runtime's servers (their own HOME, XDG_CONFIG_HOME and TMPDIR inside)."""
        with self._lock:
            return [server.folder for server in self._servers.values()]

    def close(self) -> None:
        """Stop every server of this runtime."""
        with self._lock:
            servers, self._servers = list(self._servers.values()), {}
        for server in servers:
            server.stop()

    def _lock_of(self, key: tuple) -> threading.Lock:
        """The lock of one environment (rows of other environments prepare side by side)."""
        with self._lock:
            return self._locks.setdefault(key, threading.Lock())

    def _start(self, key: tuple, profile: Profile, python: str, venv: Path, env: dict[str, str]) -> ForkServer:
        old = self._servers.pop(key, None)
        if old is not None:
            old.stop()
        server = self._server(profile, python, env, venv)
        cut = server.status.get("cut_at")
        if cut:  # a recorded module starts a thread or imports a per-start one: preload only what came before it
            _recorded_path(profile, venv).with_suffix(".cut").write_text(cut)
            server = self._server(profile, python, env, venv)
        self._servers[key] = server
        self._recording.discard(key)
        return server

    @staticmethod
    def _server(profile: Profile, python: str, env: dict[str, str], venv: Path) -> ForkServer:
        server = ForkServer(python, profile.driver_dir / "driver.py", env, list(_preload(profile)),
                            float(profile.timeouts.get("start", 60.0)), _recorded(profile, venv),
                            list(_per_start(profile)), list(_setting(profile, "unused_paths")))
        server.start()
        return server

    @staticmethod
    def _key(profile: Profile, venv: Path) -> tuple:
        return (str(venv), str(profile.driver_dir), _preload(profile), _per_start(profile),
                _setting(profile, "unused_paths"))


def refusal(profile: Profile) -> str | None:
    """Why ``profile``'s driver is never fork-served (the profile opts out, or the driver is not the
    kit's), whatever the runtime; None when a server may try."""
    setting = getattr(profile, "fork_server", None)
    if setting is not None and not setting.enabled:
        return "the profile opts out (fork_server: {enabled: false})"
    if getattr(profile, "image", None) is not None:
        return "the row brings its own image, whose entrypoint is its driver: every start is a new container"
    if not uses_kit(profile.driver_dir / "driver.py"):
        return ("the driver does not import the driver kit (memlab_driver), whose stdio guard a forked "
                "start takes over: it keeps its own stdio")
    return None


def uses_kit(driver: Path) -> bool:
    """Whether ``driver`` imports the driver kit (``import memlab_driver`` / ``from memlab_driver ...``)
    anywhere; a driver that speaks the protocol on its own stdio is never forked, as the child's stdio
    is the kit's. A file that does not parse is not the kit's either."""
    try:
        tree = ast.parse(driver.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "memlab_driver" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "memlab_driver":
            return True
    return False


def _setting(profile: Profile, name: str) -> tuple[str, ...]:
    """One list of the profile's ``fork_server`` setting (empty when absent)."""
    return tuple(getattr(getattr(profile, "fork_server", None), name, ()) or ())


def _preload(profile: Profile) -> tuple[str, ...]:
    return _setting(profile, "preload")


def _per_start(profile: Profile) -> tuple[str, ...]:
    return _setting(profile, "per_start")


def _recorded_path(profile: Profile, venv: Path) -> Path:
    """Where a first start records its loaded modules: in the venv, keyed by the driver's bytes."""
    digest = hashlib.sha256((profile.driver_dir / "driver.py").read_bytes()).hexdigest()[:12]
    return venv / f".memlab-modules-{digest}.json"


def _recorded(profile: Profile, venv: Path) -> list[str]:
    """The modules an earlier start of this driver had loaded at its first answer ([] if none), up
    to the first one whose import started a thread (``.cut``, written when a server said so)."""
    try:
        names = json.loads(_recorded_path(profile, venv).read_text())
    except (OSError, ValueError):
        return []
    names = [n for n in names if isinstance(n, str)] if isinstance(names, list) else []
    try:
        cut = _recorded_path(profile, venv).with_suffix(".cut").read_text().strip()
    except OSError:
        return names
    return names[:names.index(cut)] if cut in names else names
