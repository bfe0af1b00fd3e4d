"""Slow commands started ahead: run one at a time in a background thread while the session's other
tests run, and waited for by the test that needs them.

Most tests wait on one memlab process at a time, so the machine's second core is mostly idle: a
long re-measurement started when the tests are collected runs beside them instead of after them.
Each command gets its own scratch folder (``MEMLAB_SCRATCH``), so the tests that check the
default scratch folder is left empty never see it. What is still running when the session ends
is interrupted (as Ctrl-C would) and its folders removed.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path


class Finished:
    """A command's exit, output and seconds."""

    def __init__(self, returncode: int, stdout: str, stderr: str, seconds: float):
        self.returncode, self.stdout, self.stderr, self.seconds = returncode, stdout, stderr, seconds


class Background:
    """Commands by key, run one after another in one background thread."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._jobs: dict[object, Future] = {}
        self._running: set[subprocess.Popen] = set()
        self._folders: list[Path] = []
        self._lock = threading.Lock()
        self._closed = False

    def folder(self, prefix: str) -> Path:
        """A new folder of this session's background work (removed at ``close``)."""
        path = Path(tempfile.mkdtemp(prefix=prefix))
        self._folders.append(path)
        return path

    def submit(self, key: object, argv: list[str], cwd: Path, timeout: float) -> None:
        """Queue ``argv`` under ``key`` (with a scratch folder of its own)."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ahead")
        env = {**os.environ, "MEMLAB_SCRATCH": str(self.folder("memlab-ahead-scratch-"))}
        self._jobs[key] = self._pool.submit(self._run, argv, cwd, env, timeout)

    def wait(self, key: object) -> Finished | None:
        """The finished command of ``key`` (waiting for it), or None when none was queued."""
        job = self._jobs.get(key)
        return None if job is None else job.result()

    def _run(self, argv: list[str], cwd: Path, env: dict[str, str], timeout: float) -> Finished:
        began = time.monotonic()
        with self._lock:
            if self._closed:
                return Finished(-1, "", "the session ended before this command started", 0.0)
            proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    start_new_session=True)
            self._running.add(proc)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill(proc)
            out, err = proc.communicate()
            err += f"\n(killed after {timeout:g} s)"
        finally:
            with self._lock:
                self._running.discard(proc)
        return Finished(proc.returncode, out, err, time.monotonic() - began)

    def close(self) -> None:
        """Kill what still runs, drop what never started, remove the folders."""
        with self._lock:
            self._closed = True
            running = list(self._running)
        for proc in running:
            _kill(proc)
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
        for path in self._folders:
            shutil.rmtree(path, ignore_errors=True)


def _kill(proc: subprocess.Popen) -> None:
    """Interrupt a command as Ctrl-C would (memlab then stops the SUTs and services it started), and
    kill its process group if it has not ended within a minute."""
    try:
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=60)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


#: The session's background commands.
AHEAD = Background()
