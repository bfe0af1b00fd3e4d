"""A reader that stops early (``memlab show DIR | head``) is no error: ``show``, ``report``, ``list`` and
``compare`` end quietly with their own exit code when their standard output is closed. No Docker."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SET = ROOT / "results" / "published" / "acrf-memory-guard"
OTHER = ROOT / "results" / "published" / "atmem-chain"


@pytest.mark.parametrize("args", [["show", SET], ["report", SET], ["report", SET, "--format", "markdown"],
                                  ["list", "--runtime", "local"], ["compare", SET, OTHER, "--json"]],
                         ids=["show", "report", "report-markdown", "list", "compare-json"])
def test_a_closed_pipe_ends_the_command_quietly_with_exit_0(args):
    proc = subprocess.Popen([sys.executable, "-m", "lab.cli", *map(str, args)], cwd=ROOT, env=os.environ.copy(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader is gone before the first line is written
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0 and err == "", err


def test_a_closed_pipe_keeps_a_commands_own_exit_code(tmp_path):
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    (profiles / "broken.yaml").write_text("row: broken\n")
    proc = subprocess.Popen([sys.executable, "-m", "lab.cli", "list", "--runtime", "local", "--profiles", profiles],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 2 and "invalid profile" in err, err
