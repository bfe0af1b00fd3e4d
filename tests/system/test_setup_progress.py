"""What a first ``memlab run`` shows: its progress bar says what it waits for (the SUT environment
being built), no log line appears without ``-v``, and ``-q`` leaves only the results (CI logs).

Real runs of ``reference-naive`` on the local runtime, each with a fresh cache, so the first
builds the row's environment (pip) under the bar; rich is told its stderr is an interactive
terminal (``TTY_COMPATIBLE``/``TTY_INTERACTIVE``), so every refresh of the bar is captured.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import structlog
from rich.console import Console
from structlog.contextvars import bound_contextvars

from lab.cli import progress
from lab.method.engine import run_matrix
from lab.profile import load_profiles, select

ROOT = Path(__file__).resolve().parents[2]
LOG_LINE = re.compile(r"\[(debug|info|warning)\s*\]")


def trials_saved(out: Path) -> list[Path]:
    """The trial observations of the reference-naive row a run saved."""
    return [p for p in (out / "observations" / "reference-naive").glob("*.json")
            if p.stem not in ("profile", "environment")]


def memlab_run(tmp_path: Path, *flags: str, terminal: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "MEMLAB_CACHE": str(tmp_path / "cache"), "COLUMNS": "160"}
    if terminal:
        env.update(TTY_COMPATIBLE="1", TTY_INTERACTIVE="1")
    return subprocess.run([sys.executable, "-m", "lab.cli", *flags, "run", "--runtime", "local", "--sut",
                           "reference-naive", "--nonce", "progress", "--no-reports", "--out", str(tmp_path / "out")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def test_the_first_run_shows_its_environment_build_on_the_bar_and_no_log_lines(tmp_path):
    done = memlab_run(tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "driver reference: building its environment (pip" in done.stderr  # pip runs for its pins, once
    assert not LOG_LINE.search(done.stderr), LOG_LINE.search(done.stderr).group(0)
    trials = len(trials_saved(tmp_path / "out"))  # seed, C1, C2, T1..T10 and the variant trials they listed
    assert trials > 13 and f"{trials}/{trials}" in done.stderr and "reference-naive" in done.stdout


def test_quiet_has_no_bar_and_verbose_has_the_log(tmp_path):
    quiet = memlab_run(tmp_path / "q", "-q")
    assert quiet.returncode == 0, quiet.stderr[-3000:]
    trials = len(trials_saved(tmp_path / "q" / "out"))
    assert "━" not in quiet.stderr and f"{trials}/{trials}" not in quiet.stderr and not LOG_LINE.search(quiet.stderr)
    assert "reference-naive" in quiet.stdout and "result set:" in quiet.stderr
    verbose = memlab_run(tmp_path / "v", "-v", terminal=False)
    assert verbose.returncode == 0, verbose.stderr[-3000:]
    assert re.search(r"\[info\s*\] venv.build", verbose.stderr) and "run.start" in verbose.stderr


def test_verbose_and_quiet_together_are_refused(tmp_path):
    done = memlab_run(tmp_path, "-v", "-q", terminal=False)
    assert done.returncode == 2 and "-v and -q contradict each other" in done.stderr


@pytest.mark.parametrize("event, fields, shown", [
    ("image.build", {"step": "Step 7/17 : RUN pip install"}, "image: Step 7/17 : RUN pip install"),
    ("service.starting", {"kind": "redis", "runtime": "docker"}, "starting redis server (container)"),
])
def test_long_steps_of_the_runtimes_are_worded_on_the_bar(event, fields, shown, capsys):
    progress.configure(verbose=0)
    log = structlog.get_logger("lab.runtime.test")
    with progress.RunProgress(Console(file=io.StringIO()), total=2) as bar:
        bar.step("row-a", "T2")
        with bound_contextvars(row="row-b", trial="seed"):  # a task of another row (the engine binds them)
            log.info(event, **fields)
        assert bar.description == f"row-b seed · {shown}"
        log.info(event, **fields)  # outside any row's task: after the last step counted
        assert bar.description == f"row-a T2 · {shown}"
    assert not LOG_LINE.search(capsys.readouterr().err)


class _Preparing:
    """A runtime whose every row's preparation logs that it starts a server, then fails (no SUT runs)."""

    name = "local"

    def prepare(self, profile):
        structlog.get_logger("lab.runtime.test").debug("service.starting", kind=profile.row)
        raise RuntimeError("not prepared in this test")


def test_a_server_start_is_shown_after_the_row_that_starts_it(tmp_path, monkeypatch):
    """Rows side by side (--jobs 2): each server start names its own row on the bar, whichever row
    counted a step last (issue 31: "reference-naive-redis T2 · starting postgres server")."""
    shown = []
    monkeypatch.setattr(progress.RunProgress, "doing", lambda self, text, where=None: shown.append((where, text)))
    progress.configure(verbose=0)
    profiles = select(load_profiles(ROOT / "sut_profiles"), ["reference-naive", "reference-naive-md",
                                                              "reference-audit"])
    with progress.RunProgress(Console(file=io.StringIO()), total=3) as bar:
        run_matrix(profiles, _Preparing(), tmp_path / "out", jobs=2, progress=bar.step)
    assert sorted(shown) == sorted((f"{p.row} prepare", f"starting {p.row} server") for p in profiles)
