"""README's first set-up command, exactly as written, works where pip may not touch the system Python.

The command is read from README.md (the first line of the Set-up section's first code block),
not retyped, and run with ``bash -c`` in a fresh copy of the checkout (the files git tracks or
would track, nothing ignored: no ``.venv``, no results) whose ``python3`` is externally managed
(PEP 668): a copy of this interpreter's prefix with an ``EXTERNALLY-MANAGED`` marker in its
standard library, on which ``pip install`` stops as on Debian 12 or Ubuntu 24.04. It must exit
0, leave a ``.venv`` in the copy, and write a result set that its own ``memlab verify`` accepts.
Slow (a fresh environment and the whole default matrix): marked ``setup``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

pytestmark = pytest.mark.setup


def first_setup_command() -> str:
    """The first line of the first code block under README's ``## Set-up`` heading."""
    text = README.read_text(encoding="utf-8")
    section = re.search(r"^## Set-up[^\n]*\n(.*?)^## ", text, re.S | re.M)
    assert section, "README.md has no '## Set-up' section"
    block = re.search(r"^```\w*\n(.*?)^```", section.group(1), re.S | re.M)
    assert block, "README's Set-up section has no code block"
    return block.group(1).splitlines()[0]


def copy_checkout(dest: Path) -> Path:
    """The checkout's files as a fresh clone would have them, plus uncommitted edits (nothing ignored)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file() or src.is_symlink():  # a file deleted in the work tree is not copied
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel, follow_symlinks=False)
    return dest


def externally_managed_python(dest: Path) -> Path:
    """A ``bin/`` whose ``python3`` is this base interpreter, but with a prefix of its own that holds
    an ``EXTERNALLY-MANAGED`` marker (pip refuses to install into it, as on Debian)."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    base = Path(sys.base_prefix)
    binary = Path(os.path.realpath(base / "bin" / version))
    stdlib = Path(sysconfig.get_paths(vars={"installed_base": str(base), "base": str(base)})["stdlib"])
    (dest / "bin").mkdir(parents=True)
    shutil.copy2(binary, dest / "bin" / version)  # a copy, not a link: Python finds its prefix from here
    (dest / "bin" / "python3").symlink_to(version)
    lib = dest / "lib" / version
    lib.mkdir(parents=True)
    for entry in stdlib.iterdir():
        (lib / entry.name).symlink_to(entry)
    for shared in (base / "lib").glob("libpython*"):  # a shared libpython, where the build has one
        (dest / "lib" / shared.name).symlink_to(shared)
    (lib / "EXTERNALLY-MANAGED").write_text("[externally-managed]\nError=a simulated Debian python3 (memlab's test)\n")
    return dest / "bin"


def test_the_simulated_python_is_externally_managed(tmp_path):
    bin_dir = externally_managed_python(tmp_path / "py")
    python = bin_dir / "python3"
    prefix = subprocess.run([python, "-c", "import sys; print(sys.prefix == sys.base_prefix, sys.prefix)"],
                            capture_output=True, text=True, check=True).stdout.split()
    assert prefix == ["True", str(tmp_path / "py")]
    done = subprocess.run([python, "-m", "pip", "install", "--dry-run", "--no-index", "--no-deps", "pyyaml"],
                          capture_output=True, text=True)
    assert done.returncode != 0 and "externally-managed-environment" in done.stderr, done.stderr


def test_readmes_first_command_runs_as_written_in_a_fresh_checkout(tmp_path):
    command = first_setup_command()
    assert ".venv" in command and "memlab run" in command, command
    checkout = copy_checkout(tmp_path / "checkout")
    bin_dir = externally_managed_python(tmp_path / "py")
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",  # its python3 first
           "MEMLAB_CACHE": str(tmp_path / "cache"), "COLUMNS": "200"}
    env.pop("VIRTUAL_ENV", None)
    started = time.monotonic()
    done = subprocess.run(["bash", "-c", command], cwd=checkout, env=env, capture_output=True, text=True,
                          timeout=1200)
    seconds = time.monotonic() - started
    print(f"README's first command took {seconds:.1f} s")
    assert done.returncode == 0, f"{command!r} exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    assert (checkout / ".venv" / "bin" / "memlab").is_file()
    sets = sorted((checkout / "results").glob("*/run.json"))
    assert len(sets) == 1, list((checkout / "results").iterdir())
    result = sets[0].parent
    assert sorted(p.name for p in (result / "rows").glob("reference-*.json")), "no reference row written"
    verified = subprocess.run([checkout / ".venv" / "bin" / "memlab", "verify", result], cwd=checkout, env=env,
                              capture_output=True, text=True, timeout=300)
    assert verified.returncode == 0, verified.stdout[-2000:] + verified.stderr[-2000:]


def test_the_test_commands_environment_step_makes_then_reuses_dot_venv(tmp_path):
    """scripts/test's first step (scripts/test.d/00-venv.sh) under the same externally managed python3:
    it makes .venv with the test extras, and a second run reuses it (same interpreter, not made anew)."""
    checkout = copy_checkout(tmp_path / "checkout")
    bin_dir = externally_managed_python(tmp_path / "py")
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("VIRTUAL_ENV", None)
    step = ["bash", "scripts/test.d/00-venv.sh"]
    first = subprocess.run(step, cwd=checkout, env=env, capture_output=True, text=True, timeout=1200)
    assert first.returncode == 0, first.stdout[-2000:] + first.stderr[-3000:]
    python = checkout / ".venv" / "bin" / "python"
    made = python.lstat().st_mtime_ns
    home = (checkout / ".venv" / "pyvenv.cfg").read_text()
    assert f"home = {bin_dir}" in home, home  # made by the externally managed python3, not another
    again = subprocess.run(step, cwd=checkout, env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr[-3000:]
    assert python.lstat().st_mtime_ns == made and "making it anew" not in again.stdout
    found = subprocess.run([python, "-c", "import lab.cli, pytest, playwright; print(lab.cli.__file__)"],
                           cwd=tmp_path, capture_output=True, text=True, check=True).stdout.strip()
    assert Path(found).is_relative_to(checkout), found  # the copy's lab, installed editable
