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

from lab.cli import progress

ROOT = Path(__file__).resolve().parent.parent
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
    assert "building the environment of driver reference (pip" in done.stderr  # pip runs for its pins, once
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
    with progress.RunProgress(Console(file=io.StringIO()), total=2) as bar:
        bar.step("row-a", "seed")
        structlog.get_logger("lab.runtime.test").info(event, **fields)
        assert bar.description == f"row-a seed · {shown}"
    assert not LOG_LINE.search(capsys.readouterr().err)
