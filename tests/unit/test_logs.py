"""The lab's log (lab.logs) imports structlog only for an event the CLI's configuration keeps: one below
the level shown that the bar does not word is dropped with no import; a warning, or a long step the
bar words, imports structlog, applies the configuration and is logged as before.

Each case is a new process: this one has imported structlog already (then every event goes to it)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

CASE = """
import json, sys
from lab.cli import progress
from lab.logs import get_logger
progress.configure(verbose=int(sys.argv[1]))
getattr(get_logger("lab.test"), sys.argv[2])(sys.argv[3], detail="x")
print(json.dumps("structlog" in sys.modules))
"""


def logged(verbose: int, method: str, event: str) -> tuple[bool, str]:
    """(whether structlog was imported, what stderr shows) of one event in a new CLI-configured process."""
    done = subprocess.run([sys.executable, "-c", CASE, str(verbose), method, event], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1]), done.stderr


@pytest.mark.parametrize("method", ["debug", "info"])
def test_an_event_below_the_level_shown_imports_no_structlog(method):
    assert logged(0, method, "lifecycle.sut_started") == (False, "")


@pytest.mark.parametrize("verbose, method, event", [(0, "warning", "lifecycle.slow"), (0, "error", "lifecycle.failed"),
                                                    (1, "info", "lifecycle.sut_started")])
def test_an_event_shown_is_logged_by_structlog_as_configured(verbose, method, event):
    imported, stderr = logged(verbose, method, event)
    assert imported and event in stderr and "detail=x" in stderr


def test_a_step_the_bar_words_imports_structlog_though_below_the_level():
    imported, stderr = logged(0, "info", "venv.build")
    assert imported and stderr == ""  # dropped by level after the bar (none here) was told
