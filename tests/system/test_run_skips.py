"""Rows the runtime cannot run here are named in one line, each with what enables it as the user
types it (the lab's own interpreter for pgvector, not a bare ``python``). No Docker, no SUT runs."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

from lab.runtime import pgvector
from lab.runtime.shell import memlab

ROOT = Path(__file__).resolve().parents[2]


def test_rows_whose_servers_are_not_installed_are_skipped_in_one_line_with_their_commands(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)  # where the user runs memlab from: the commands are written from there
    env = {**os.environ, "MEMLAB_PGVECTOR_HOME": str(tmp_path / "none"), "MEMLAB_PG_BIN": str(tmp_path / "none"),
           "MEMLAB_CACHE": str(tmp_path / "cache"), "COLUMNS": "80"}
    done = subprocess.run([sys.executable, "-m", "lab.cli", "run", "--runtime", "local", "--out", tmp_path / "out",
                           "--sut", "reference-naive-pgvector", "--sut", "reference-*-postgres"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "none of the selected rows can run here" in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if "skipped" in line]
    assert len(lines) == 1, done.stderr  # one line, however narrow the terminal
    sudo = "" if os.geteuid() == 0 else "sudo "
    install = pgvector.install_command()
    assert f"reference-naive-pgvector ({sudo}{install})" in lines[0]
    assert f"reference-naive-postgres, reference-sealed-postgres ({sudo}apt-get install postgresql)" in lines[0]
    assert f"{memlab()} list --runtime local says why" in lines[0]
    python = ROOT / shlex.split(install)[0]  # the interpreter the command names runs, from where the user is
    assert python.is_file() and os.access(python, os.X_OK) and shlex.split(install)[0] != "python"
