"""A hostile machine for tests, made without harming this one: a full or read-only file system is a
tmpfs mounted in a private mount namespace (``unshare``; it ends with the namespace, so nothing is
left mounted), and a folder one may not write is tried as the user ``nobody`` (``setpriv``)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOBODY = 65534


def memlab_line(*args: object) -> str:
    """``memlab ARGS`` as one shell word list (this interpreter, from the repository's root)."""
    return " ".join(shlex.quote(str(a)) for a in (sys.executable, "-m", "lab.cli", *args))


def on_tmpfs(mountpoint: Path, options: str, script: str, env: dict[str, str] | None = None,
             timeout: float = 300) -> subprocess.CompletedProcess:
    """Run the shell ``script`` where ``mountpoint`` (an empty folder) is a new tmpfs mounted with
    ``options`` (``size=100k``, ``ro``) in a mount namespace of its own."""
    unshare = ["unshare", "--mount"] if os.geteuid() == 0 else ["unshare", "--mount", "--map-root-user"]
    mount = f"mount -t tmpfs -o {shlex.quote(options)} tmpfs {shlex.quote(str(mountpoint))}"
    return subprocess.run([*unshare, "sh", "-c", f"{mount} && cd {shlex.quote(str(ROOT))} && {script}"],
                          env={**os.environ, **(env or {})}, capture_output=True, text=True, timeout=timeout)


def as_nobody(*args: object, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """``memlab ARGS`` run as the user nobody (from root; as a user, as that user: the test then
    needs a folder that user may not write, which a root-owned one is)."""
    prefix = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"] if os.geteuid() == 0 else []
    return subprocess.run([*prefix, sys.executable, "-m", "lab.cli", *map(str, args)], cwd=ROOT,
                          env={**os.environ, **(env or {})}, capture_output=True, text=True, timeout=timeout)
