"""The local runtime: each SUT runs as a new OS process in its own cached virtual environment.

The environment is built once from the driver folder's pinned
``requirements.txt`` (keyed by its digest and the Python version) under
``$MEMLAB_CACHE/venvs``; a stop ends the process. Volumes are host folders.

The driver kit (the package ``images/driverkit/memlab_driver/``) reaches every driver, wherever its
folder is, on ``PYTHONPATH`` at launch: it is not installed into the environment, so the
cached environment does not depend on it (its key stays honest without naming the kit),
an edited kit takes effect at the next start, and the package listing is unchanged (a plain
module is no distribution). The kit's digest is recorded in the environment's detail.

With ``fork_server`` on (the default; ``--no-fork-server`` turns it off), each environment has
a fork server (:mod:`lab.runtime.forkserver`) that pays the SUT's imports once; a launch then
starts a small launcher that has the server fork the driver. The environment's detail says
whether the server serves (``fork_server.used``) or why not; everything else is as on the plain path.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from lab.driver import DriverClient
from lab.logs import get_logger
from lab.runtime.forkserver import ForkServers
from lab.runtime.housekeeping import cache_dir
from lab.profile import IMAGES_DIR, Profile
from lab.runtime.prepared import LIST_PACKAGES, Prepared
from lab.runtime.services import RunningService, ServiceSpec, Spawned, start_local

log = get_logger(__name__)


#: Bumped when what a cached environment records changes (2: package listing with ``python -I``;
#: 3: each package's requirements).
VENV_LAYOUT = 3
#: The driver kit's folder, put on every driver's ``PYTHONPATH``.
KIT_DIR = IMAGES_DIR / "driverkit"


class EnvironmentBuildError(RuntimeError):
    """The SUT's virtual environment could not be built; the message carries pip's output."""


class LocalRuntime:
    """Runs drivers as local processes; nothing but a Python interpreter needed."""

    name = "local"

    def __init__(self, fork_server: bool = True):
        #: Start drivers from a per-environment fork server (False: always the plain path).
        self.use_fork_server = fork_server
        self.fork_servers = ForkServers()

    def available(self) -> tuple[bool, str]:
        """Always available: it needs only this Python."""
        return True, f"python {sys.version.split()[0]}"

    def prepare(self, profile: Profile) -> Prepared:
        """Build or reuse the SUT's virtual environment; record its exact package list."""
        requirements = profile.driver_dir / "requirements.txt"
        pins = requirements.read_text() if requirements.is_file() else ""
        key = hashlib.sha256(f"{VENV_LAYOUT}\n{sys.version}\n{pins}".encode()).hexdigest()[:16]
        venv = cache_dir() / "venvs" / f"{profile.driver_dir.name}-{key}"
        venv.parent.mkdir(parents=True, exist_ok=True)
        with open(venv.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (venv / ".memlab-ready").is_file():
                _build(venv, requirements if _has_pins(pins) else None)
        python = str(venv / "bin" / "python")
        listing = json.loads((venv / ".memlab-ready").read_text())
        forked = (self.fork_servers.prepare(profile, python, venv, _env(None, None)) if self.use_fork_server
                  else {"used": False, "reason": "--no-fork-server"})
        return Prepared(profile=profile, runtime=self.name, python=listing["python"],
                        packages=listing["packages"],
                        detail={"venv": str(venv), "interpreter": python, "driverkit": kit_digest(),
                                "fork_server": forked, "requires": listing.get("requires")})

    def launch(self, prepared: Prepared, volumes: dict[str, Path], scratch: Path, log_path: Path,
               run_id: str) -> DriverClient:
        """A started driver process on the given host volumes."""
        for sub in ("home", "config", "tmp"):
            (scratch / sub).mkdir(parents=True, exist_ok=True)
        argv = [prepared.detail["interpreter"], "-u", str(prepared.profile.driver_dir / "driver.py")]
        if self.use_fork_server and (prepared.detail.get("fork_server") or {}).get("used"):
            argv = self.fork_servers.launcher(prepared.profile, Path(prepared.detail["venv"]), argv, run_id) or argv
        client = DriverClient(argv, _env(scratch, run_id), scratch, log_path)
        client.volume_paths = {name: str(path) for name, path in volumes.items()}
        return client

    def close(self) -> None:
        """Stop this runtime's fork servers (they also end with their run and with memlab)."""
        self.fork_servers.close()

    def start_service(self, spec: ServiceSpec, data: Path, log_path: Path, run_id: str,
                      on_spawn: Spawned | None = None) -> RunningService:
        """The service as a local server process (Debian's PostgreSQL 15 or Redis); ``on_spawn`` is
        told its pid before it is probed."""
        return start_local(spec, data, log_path, {"MEMLAB_RUN_ID": run_id}, on_spawn)


def _env(scratch: Path | None, run_id: str | None) -> dict[str, str]:
    """A driver's clean environment; without ``scratch`` the fork server's (its folders are its own)."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}
    if scratch is not None:
        env.update({"HOME": str(scratch / "home"), "XDG_CONFIG_HOME": str(scratch / "config"),
                    "TMPDIR": str(scratch / "tmp")})
    if run_id is not None:
        env["MEMLAB_RUN_ID"] = run_id
    return {**env, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1", "PYTHONPATH": str(KIT_DIR)}


def kit_digest() -> str:
    """12 hex digits of SHA-256 over the kit's files (name, then bytes), as recorded with each row."""
    h = hashlib.sha256()
    for path in sorted(p for p in KIT_DIR.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        h.update(f"\0{path.relative_to(KIT_DIR)}\0".encode() + path.read_bytes())
    return h.hexdigest()[:12]


def _has_pins(text: str) -> bool:
    return any(line.strip() and not line.strip().startswith("#") for line in text.splitlines())


def pinned_pip(text: str) -> str | None:
    """The ``pip==X`` a requirements file pins, or None: the environment is then built by that pip (the
    one a venv bundles may be too old for the set, e.g. pip 23's resolver fails on ``lxml[html_clean]``
    beside ``lxml[html-clean]``). ``images/sut.Dockerfile`` does the same."""
    found = [line.strip() for line in text.splitlines() if re.fullmatch(r"pip==[0-9][0-9A-Za-z.]*", line.strip())]
    return found[0] if found else None


def _build(venv: Path, requirements: Path | None) -> None:
    log.info("venv.build", venv=str(venv), requirements=str(requirements) if requirements else None)
    tmp = venv.with_name(venv.name + ".building")
    subprocess.run(["rm", "-rf", str(tmp)], check=True)
    args = [sys.executable, "-m", "venv", str(tmp)] + ([] if requirements else ["--without-pip"])
    _run(args, "create the virtual environment")
    if requirements:
        pip = [str(tmp / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
        if own := pinned_pip(requirements.read_text()):
            _run([*pip, own], f"install {own} (pinned by {requirements})")
        _run([*pip, "-r", str(requirements)], f"install {requirements}")
    listing = _run([str(tmp / "bin" / "python"), "-I", "-c", LIST_PACKAGES], "list the installed packages")
    (tmp / ".memlab-ready").write_text(listing)
    subprocess.run(["rm", "-rf", str(venv)], check=True)
    tmp.rename(venv)


def _run(args: list[str], what: str) -> str:
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode != 0:
        raise EnvironmentBuildError(f"could not {what} (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    return proc.stdout
