"""Commands as the user types them in a message's fix: the lab's own interpreter and ``memlab`` script
by the path that reaches them from the current folder (``.venv/bin/python``: Debian has no ``python``
outside the checkout's virtual environment, and ``memlab`` is on ``PATH`` only once it is activated),
and ``sudo`` before a command that needs root, unless the lab runs as root.

>>> as_root("apt-get install redis-server") in ("apt-get install redis-server", "sudo apt-get install redis-server")
True
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path


def _reachable(path: Path) -> str:
    """``path`` relative to the current folder when it is under it, else as it is; quoted for a shell."""
    try:
        path = path.relative_to(Path.cwd())
    except ValueError:
        pass
    return shlex.quote(str(path))


def lab_python() -> str:
    """The interpreter the lab runs on; in a virtual environment its ``bin/python``, whichever name
    started it (a Debian venv's scripts start ``bin/python3``), so a fix reads the same everywhere."""
    venv_python = Path(sys.prefix) / "bin" / "python"
    in_venv = sys.prefix != sys.base_prefix and venv_python.is_file()
    return _reachable(venv_python if in_venv else Path(sys.executable))


def memlab() -> str:
    """The ``memlab`` command: ``memlab`` where it is on PATH and is this lab's, else its script's path
    beside the lab's interpreter (``.venv/bin/memlab``)."""
    script = Path(sys.executable).parent / "memlab"
    found = shutil.which("memlab")
    if not script.is_file() or (found and Path(found).resolve() == script.resolve()):
        return "memlab"
    return _reachable(script)


def as_root(command: str) -> str:
    """``command`` with ``sudo`` before it, unless this process is root already."""
    return command if os.geteuid() == 0 else f"sudo {command}"
