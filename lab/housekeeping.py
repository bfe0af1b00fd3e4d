"""Run ids, the run registry, and ``gc``: nothing a crashed run leaves behind survives.

Every SUT process and scratch folder of a run is recorded under the run's state
folder (``$MEMLAB_CACHE/runs/<run_id>``, default ``~/.cache/memlab``) and carries
the run id (processes in their environment, scratch folders under
``$MEMLAB_CACHE/scratch`` in their name). ``gc``
removes whatever belongs to a run whose owning memlab process is gone.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import structlog

log = structlog.get_logger(__name__)


def cache_dir() -> Path:
    """The lab's cache folder (virtual environments, run registry)."""
    return Path(os.environ.get("MEMLAB_CACHE") or Path.home() / ".cache" / "memlab")


def new_run_id() -> str:
    """A sortable, unique run id."""
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ") + f"-{os.getpid()}"


class RunRegistry:
    """What one run started, so that a crash or Ctrl-C can be cleaned up."""

    def __init__(self, run_id: str):
        self.run_id = run_id
        self.dir = cache_dir() / "runs" / run_id
        (self.dir / "pids").mkdir(parents=True, exist_ok=True)
        (self.dir / "owner").write_text(_identity(os.getpid()))
        (cache_dir() / "scratch").mkdir(parents=True, exist_ok=True)
        self.scratch_root = Path(tempfile.mkdtemp(prefix=f"{run_id}-", dir=cache_dir() / "scratch"))
        (self.dir / "scratch").write_text(str(self.scratch_root))

    def track(self, client) -> None:
        """Record a started SUT process."""
        (self.dir / "pids" / str(client.pid)).touch()

    def untrack(self, client) -> None:
        """Forget a stopped SUT process."""
        (self.dir / "pids" / str(client.pid)).unlink(missing_ok=True)

    def kill_all(self) -> list[str]:
        """Kill every SUT process of this run now (Ctrl-C)."""
        return _kill_tracked(self.dir, self.run_id)

    def close(self, keep_scratch: bool = False) -> None:
        """Kill anything still tracked, remove the scratch folder and the registry entry."""
        _reap(self.dir, self.run_id, keep_scratch)


def gc() -> list[str]:
    """Remove what runs whose memlab process is gone left behind; returns what was removed."""
    removed: list[str] = []
    runs = cache_dir() / "runs"
    for entry in sorted(runs.iterdir()) if runs.is_dir() else []:
        owner = (entry / "owner").read_text().strip() if (entry / "owner").is_file() else ""
        if owner and _identity(int(owner.split()[0])) == owner:
            continue  # its memlab process still runs
        removed += _reap(entry, entry.name, keep_scratch=False)
    for stray in (cache_dir() / "scratch").glob("*"):
        run_id = stray.name.rsplit("-", 1)[0]
        if stray.is_dir() and not (runs / run_id).exists():
            shutil.rmtree(stray, ignore_errors=True)
            removed.append(f"scratch {stray}")
    return removed


def _kill_tracked(state: Path, run_id: str) -> list[str]:
    removed = []
    for pid_file in (state / "pids").glob("*") if (state / "pids").is_dir() else []:
        pid = int(pid_file.name)
        if _alive(pid) and _belongs(pid, run_id):
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
            removed.append(f"process {pid}")
        pid_file.unlink(missing_ok=True)
    return removed


def _reap(state: Path, run_id: str, keep_scratch: bool) -> list[str]:
    removed = _kill_tracked(state, run_id)
    scratch = state / "scratch"
    if scratch.is_file() and not keep_scratch:
        path = Path(scratch.read_text().strip())
        if path.exists():
            shutil.rmtree(path, ignore_errors=True)
            removed.append(f"scratch {path}")
    shutil.rmtree(state, ignore_errors=True)
    removed.append(f"run {run_id}")
    if removed[:-1]:
        log.info("gc.removed", run=run_id, items=removed[:-1])
    return removed


def _identity(pid: int) -> str:
    """``pid`` plus its start time, so a reused pid is not taken for a live run."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return f"{pid} {stat.rsplit(')', 1)[1].split()[19]}"
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
