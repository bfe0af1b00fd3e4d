"""Run ids, the run registry, and ``gc``: nothing a crashed run leaves behind survives.

Every SUT process, container and scratch folder of a run is recorded under the
run's state folder (``$MEMLAB_CACHE/runs/<run_id>``, default ``~/.cache/memlab``)
and carries the run id (processes in their environment, containers, volumes and
networks in the labels ``memlab.run`` and ``memlab.cache``, scratch folders under
``scratch_base()`` in their name). The local runtime's fork servers, and the drivers they
fork, are recorded under ``servers/`` by pid and start time (``track_server``), the docker runtime's
fork-server containers under ``containers/`` (``track_container``). ``gc`` removes
whatever belongs to a run whose owning memlab process is gone.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import socket
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from lab import safewrite
from lab.logs import get_logger
from lab.runtime import reaper
from lab.runtime.scratch import scratch_base

log = get_logger(__name__)

#: How ``gc`` names a folder it did not remove (a live process still used it).
LEFT = "left "


def cache_dir() -> Path:
    """The lab's cache folder (virtual environments, run registry)."""
    return Path(os.environ.get("MEMLAB_CACHE") or Path.home() / ".cache" / "memlab")


def cache_key() -> str:
    """Names this host's cache folder (its run registry) in container labels, so a gc run
    against another cache (a test's, another user's) never touches this one's containers."""
    return hashlib.sha256(f"{socket.gethostname()}:{cache_dir().resolve()}".encode()).hexdigest()[:12]


def new_run_id() -> str:
    """A sortable, unique run id."""
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ") + f"-{os.getpid()}"


class RunRegistry:
    """What one run started, so that a crash or Ctrl-C can be cleaned up."""

    def __init__(self, run_id: str):
        self.run_id = run_id
        self.dir = cache_dir() / "runs" / run_id
        (self.dir / "pids").mkdir(parents=True, exist_ok=True)
        safewrite.write_text(self.dir / "owner", _identity(os.getpid()))
        self.scratch_root = Path(tempfile.mkdtemp(prefix=f"{run_id}-", dir=scratch_base()))
        self.scratch_root.chmod(0o711)  # a service run as its own user (PostgreSQL) reaches its volume
        safewrite.write_text(self.dir / "scratch", str(self.scratch_root))

    def track(self, client) -> None:
        """Record a started SUT process (and its container, if it runs in one)."""
        (self.dir / "pids" / str(client.pid)).touch()
        if getattr(client, "container", None):  # with its log (a SUT's), so a kill first saves the engine's copy
            (self.dir / "containers").mkdir(exist_ok=True)
            log_path = getattr(client, "log_path", None)
            safewrite.write_text(self.dir / "containers" / client.container,
                                 f"{log_path}\n{getattr(client, '_log_start', 0)}" if log_path else "")

    def track_pid(self, pid: int) -> None:
        """Record a process by pid alone, as soon as it exists (a service's server before it is probed)."""
        (self.dir / "pids" / str(pid)).touch()

    def untrack(self, client) -> None:
        """Forget a stopped SUT process."""
        (self.dir / "pids" / str(client.pid)).unlink(missing_ok=True)
        if getattr(client, "container", None):
            (self.dir / "containers" / client.container).unlink(missing_ok=True)

    def kill_all(self) -> list[str]:
        """Kill every SUT process of this run now (Ctrl-C)."""
        return _kill_tracked(self.dir, self.run_id)

    def close(self, keep_scratch: bool = False) -> None:
        """Kill anything still tracked, remove the scratch folder and the registry entry."""
        _reap(self.dir, self.run_id, keep_scratch)


def server_folder(run_id: str) -> Path | None:
    """Where run ``run_id`` records its fork servers and their children ("pid start-time" files);
    None when no registry of that run exists."""
    state = cache_dir() / "runs" / run_id
    if not state.is_dir():
        return None
    (state / "servers").mkdir(exist_ok=True)
    return state / "servers"


def track_server(run_id: str, pid: int, own: Path | None = None) -> None:
    """Record a fork server that serves run ``run_id``: the run's end, Ctrl-C and ``gc`` end it
    and remove its own folder ``own`` (socket, log).

    Recorded by identity (pid and start time), not by ``MEMLAB_RUN_ID``: a server outlives no
    run but may serve several runs of one memlab process, so its environment names none."""
    folder = server_folder(run_id)
    if folder is not None:
        safewrite.write_text(folder / str(pid), _identity(pid) + (f"\n{own}" if own else ""))


def track_container(run_id: str, name: str) -> None:
    """Record a container that serves run ``run_id`` without being one of its SUT starts (the docker
    runtime's fork server): the run's end, Ctrl-C and ``gc`` remove it, as they do its SUT containers."""
    state = cache_dir() / "runs" / run_id
    if state.is_dir():
        (state / "containers").mkdir(exist_ok=True)
        safewrite.write_text(state / "containers" / name, "")


def gc() -> list[str]:
    """Remove what runs whose memlab process is gone left behind; returns what was removed."""
    removed: list[str] = []
    runs = cache_dir() / "runs"
    for entry in sorted(runs.iterdir()) if runs.is_dir() else []:
        owner = (entry / "owner").read_text().strip() if (entry / "owner").is_file() else ""
        if owner and _identity(int(owner.split()[0])) == owner:
            continue  # its memlab process still runs
        removed += _reap(entry, entry.name, keep_scratch=False)
    removed += _gc_docker({entry.name for entry in runs.iterdir()} if runs.is_dir() else set())
    for stray in scratch_base().glob("*"):
        run_id = stray.name.rsplit("-", 1)[0]
        owner = run_id.rsplit("-", 1)[-1]
        if stray.is_dir() and not (runs / run_id).exists() and not (owner.isdigit() and _alive(int(owner))):
            removed.append(_remove_scratch(stray, end_holders=False))  # not provably a run's: nothing is killed
    return removed


def _engine_logs(state: Path) -> dict[str, tuple[Path, int, str | None]]:
    """Before anything is killed: each tracked container's log file, where its part starts, and what the
    engine kept of its stderr (a killed ``docker run`` client loses what it had not copied yet)."""
    folder = state / "containers"
    if not folder.is_dir():
        return {}
    from lab.runtime import dockercli

    out = {}
    for entry in sorted(folder.glob("*")):
        lines = entry.read_text().splitlines()
        if len(lines) == 2 and lines[1].isdigit():
            out[entry.name] = (Path(lines[0]), int(lines[1]), dockercli.container_stderr(entry.name))
    return out


def _kill_tracked(state: Path, run_id: str) -> list[str]:
    engine_logs = _engine_logs(state)
    removed = []
    for pid_file in (state / "pids").glob("*") if (state / "pids").is_dir() else []:
        pid = int(pid_file.name)
        if _alive(pid) and _belongs(pid, run_id) and _kill(pid):
            removed.append(f"process {pid}")
        pid_file.unlink(missing_ok=True)
    for record in sorted((state / "servers").glob("*")) if (state / "servers").is_dir() else []:
        try:
            identity, *own = record.read_text().splitlines() or [""]
        except FileNotFoundError:  # its start ended, and removed its record, since the listing
            continue
        if identity == _identity(int(record.name)) and _kill(int(record.name)):  # not a reused pid
            removed.append(f"fork-served process {record.name}")
        for folder in own:
            shutil.rmtree(folder, ignore_errors=True)
        record.unlink(missing_ok=True)
    containers = sorted(p.name for p in (state / "containers").glob("*")) if (state / "containers").is_dir() else []
    if containers:
        from lab.runtime import dockercli

        try:
            removed += [f"container {name}" for name in dockercli.remove("container", containers)]
        except dockercli.DockerError as exc:
            log.warning("gc.containers_left", run=run_id, containers=containers, error=str(exc))
        for name, (path, start, engine_log) in engine_logs.items():
            dockercli.complete_log(path, start, engine_log, name)
        shutil.rmtree(state / "containers", ignore_errors=True)
    return removed


def _gc_docker(live: set[str]) -> list[str]:
    """Containers, volumes and networks of this cache's runs that are not live runs."""
    from lab.runtime import dockercli

    if not shutil.which(dockercli.binary()):
        return []
    removed: list[str] = []
    try:
        for kind in ("container", "volume", "network"):
            ours = dockercli.labelled(kind, {dockercli.CACHE_LABEL: cache_key()})
            stale = [ident for ident, run_id in ours if run_id not in live]
            removed += [f"{kind} {ident}" for ident in dockercli.remove(kind, stale)]
    except dockercli.DockerError as exc:  # no engine here: nothing of ours can be in it
        log.info("gc.docker_skipped", error=str(exc))
    return removed


#: Where the driver kit's ``fixed_paths`` keeps a run's stable volume links (images/README.md).
MOUNT_LINKS = Path("/tmp/memlab-mounts")


def _reap(state: Path, run_id: str, keep_scratch: bool) -> list[str]:
    removed = _kill_tracked(state, run_id)
    marked = reaper.marked(run_id)  # what left the tracked sessions (setsid) still carries the run's mark
    left = reaper.end(marked)
    removed += [f"process {pid} (marked by the run)" for pid in marked if pid not in left]
    links = MOUNT_LINKS / run_id
    if links.is_dir() and not keep_scratch:
        shutil.rmtree(links, ignore_errors=True)
        removed.append(f"links {links}" if not links.exists() else f"{LEFT}links {links}: could not be removed")
    scratch = state / "scratch"
    if scratch.is_file() and not keep_scratch:
        path = Path(scratch.read_text().strip())
        if path.exists():
            removed.append(_remove_scratch(path))
    shutil.rmtree(state, ignore_errors=True)
    removed.append(f"run {run_id}" if not state.exists() else f"{LEFT}run {run_id}: its record {state} could "
                   "not be removed (another user's?)")
    if removed[:-1]:
        log.info("gc.removed", run=run_id, items=removed[:-1])
    return removed


def _remove_scratch(path: Path, end_holders: bool = True) -> str:
    """Remove a scratch folder once no live process works in it; one still held is left, and the line
    says so and by what. ``end_holders``: a dead run's own folder, whose holders (a server on a data
    directory in it) are ended first; a stray folder's holders are never ended, only named."""
    holders = reaper.holders(path)
    left = reaper.end(holders) if end_holders else holders
    if left:
        log.warning("gc.scratch_left", scratch=str(path), processes=[reaper.describe(p) for p in left])
        return (f"{LEFT}scratch {path}: still used by {', '.join(reaper.describe(p) for p in left)}; "
                "stop that process, then run `memlab gc` again")
    shutil.rmtree(path, ignore_errors=True)
    if path.exists():
        return f"{LEFT}scratch {path}: could not be removed (another user's?); remove it as its owner"
    return f"scratch {path}"


def _kill(pid: int) -> bool:
    """SIGKILL ``pid``'s process group (else ``pid`` alone); whether a signal was delivered (not: it is
    gone, or another user's, so ``gc`` does not report it as ended)."""
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
            return True
        except (ProcessLookupError, PermissionError):
            continue
    return False


def _identity(pid: int) -> str:
    """``pid`` plus its start time, so a reused pid is not taken for a live run."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text()
        return f"{pid} {fields.rsplit(')', 1)[1].split()[19]}"
    except (OSError, IndexError):
        return f"{pid} gone"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _belongs(pid: int, run_id: str) -> bool:
    try:
        return f"MEMLAB_RUN_ID={run_id}".encode() in Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return True


def wait_gone(pid: int, seconds: float = 5.0) -> bool:
    """True once ``pid`` has exited (used by tests and gc reports)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False
