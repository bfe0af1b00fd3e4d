"""README's first set-up command, exactly as written, works on Debian's own Python, where pip may not
touch the system.

The command is read from README.md (the first line of the Set-up section's first code block),
not retyped, and run with ``bash -c`` in a fresh copy of the checkout (the files git tracks or
would track, nothing ignored: no ``.venv``, no results) with Debian's ``python3`` first on
``PATH``: ``/usr/bin/python3`` from Debian's packages (scripts/test.d/05-debian-python.sh installs
them), externally managed (PEP 668), its pip in ``/usr/lib/python3/dist-packages``, as on Debian 12
or Ubuntu 24.04, whatever other Python the machine has; the machine's Docker engine and pgvector are
hidden, as on a fresh machine. It must exit 0, leave a ``.venv`` in the copy, write a result set
that its own ``memlab verify`` accepts, and print what README's sample shows: the same skipped line
and the same matrix. Slow (a fresh environment and the whole default matrix): marked ``setup``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from test_terminal_width import expected, read_compact

from lab.resultset.loading import load_rows

ROOT = Path(__file__).resolve().parents[2]
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


def readme_sample() -> str:
    """The code block README shows as the first command's output."""
    text = README.read_text(encoding="utf-8")
    found = re.search(r"^What the first command's `memlab run` printed[^\n]*\n.*?^```\n(.*?)^```", text, re.S | re.M)
    assert found, "README.md has no sample of the first command's output"
    return found.group(1)


def without_sudo(line: str) -> str:
    """A fix as root prints it (README's sample was printed as root)."""
    return line.replace("(sudo ", "(")


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


DEBIAN_PYTHON = Path("/usr/bin/python3")
FIX = "install Debian's python3, python3-venv and python3-pip (scripts/test.d/05-debian-python.sh does it, as root)"


def debian_python(dest: Path) -> Path:
    """A ``bin/`` whose only program is ``python3``: Debian's own (a link to /usr/bin/python3), after
    checking it is that one: prefix /usr, externally managed, pip where Debian keeps it."""
    assert DEBIAN_PYTHON.is_file(), f"no {DEBIAN_PYTHON}: {FIX}"
    facts = subprocess.run([DEBIAN_PYTHON, "-c", "import sys, sysconfig, pip, ensurepip; "
                            "print(sys.base_prefix, sysconfig.get_path('stdlib'), pip.__file__)"],
                           capture_output=True, text=True)
    assert facts.returncode == 0, f"{DEBIAN_PYTHON} lacks pip or venv ({facts.stderr.strip()[-300:]}): {FIX}"
    prefix, stdlib, pip = facts.stdout.split()
    assert prefix == "/usr" and (Path(stdlib) / "EXTERNALLY-MANAGED").is_file(), f"not Debian's python3: {facts.stdout}"
    assert pip.startswith("/usr/lib/python3/dist-packages/"), pip  # Debian's layout, which a copied prefix lacks
    (dest / "bin").mkdir(parents=True)
    (dest / "bin" / "python3").symlink_to(DEBIAN_PYTHON)
    return dest / "bin"


def test_debians_python_is_externally_managed(tmp_path):
    python = debian_python(tmp_path / "py") / "python3"
    done = subprocess.run([python, "-m", "pip", "install", "--dry-run", "--no-index", "--no-deps", "pyyaml"],
                          capture_output=True, text=True)
    assert done.returncode != 0 and "externally-managed-environment" in done.stderr, done.stderr


def test_readmes_first_command_runs_as_written_in_a_fresh_checkout(tmp_path):
    command = first_setup_command()
    assert ".venv" in command and "memlab run" in command, command
    checkout = copy_checkout(tmp_path / "checkout")
    bin_dir = debian_python(tmp_path / "py")
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",  # its python3 first
           "MEMLAB_CACHE": str(tmp_path / "cache"), "COLUMNS": "200",
           "MEMLAB_DOCKER": str(tmp_path / "no-docker"), "MEMLAB_PGVECTOR_HOME": str(tmp_path / "no-pgvector")}
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
    sample = readme_sample()
    assert read_compact(sample) == expected(load_rows(result)), sample  # README's matrix is this run's
    skipped = [without_sudo(line) for line in done.stderr.splitlines() if line.startswith("skipped")]
    assert skipped == [line for line in sample.splitlines() if line.startswith("skipped")], done.stderr[-2000:]
    said = [line for line in done.stderr.replace(env["MEMLAB_DOCKER"], "docker").splitlines()
            if line.startswith(("runtime:", "skipped", "memlab "))]  # memlab's own lines, after pip's
    assert said[0] == sample.splitlines()[0] and said[0].startswith("runtime: local"), said[:2]  # said first
    ends = [line.replace(str(result.relative_to(checkout)), "results/<UTC timestamp>")
            for line in (done.stdout + done.stderr).splitlines() if line.startswith(("result set:", "report:"))]
    assert ends == [line for line in sample.splitlines() if line.startswith(("result set:", "report:"))], ends


def test_the_test_commands_environment_step_makes_then_reuses_dot_venv(tmp_path):
    """scripts/test's first step (scripts/test.d/00-venv.sh) under the same Debian python3:
    it makes .venv with the test extras, and a second run reuses it (same interpreter, not made anew)."""
    checkout = copy_checkout(tmp_path / "checkout")
    bin_dir = debian_python(tmp_path / "py")
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("VIRTUAL_ENV", None)
    step = ["bash", "scripts/test.d/00-venv.sh"]
    first = subprocess.run(step, cwd=checkout, env=env, capture_output=True, text=True, timeout=1200)
    assert first.returncode == 0, first.stdout[-2000:] + first.stderr[-3000:]
    python = checkout / ".venv" / "bin" / "python"
    made = python.lstat().st_mtime_ns
    home = (checkout / ".venv" / "pyvenv.cfg").read_text()
    assert f"home = {bin_dir}" in home, home  # made by Debian's python3, not another
    again = subprocess.run(step, cwd=checkout, env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr[-3000:]
    assert python.lstat().st_mtime_ns == made and "making it anew" not in again.stdout
    found = subprocess.run([python, "-c", "import lab.cli, pytest, playwright; print(lab.cli.__file__)"],
                           cwd=tmp_path, capture_output=True, text=True, check=True).stdout.strip()
    assert Path(found).is_relative_to(checkout), found  # the copy's lab, installed editable
