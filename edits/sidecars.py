"""A sidecar the adversary holds, emptied or removed: a volume-level operation, no SUT code.

Several SUTs keep an integrity sidecar (a trace, ledger, receipt, attestation or anchor file) in a
volume of its own beside the store. Where the adversary holds that volume too, it need not leave
the sidecar to catch an edit of the store: with no key it can still empty every file of it or
remove them. Both are what a keyless writer leaves: 0 bytes is a valid empty file of every format
the sidecars use (an empty JSON lines log; SQLite opens a 0-byte file as an empty database).

- ``emptied``: every regular file in the volume truncated to 0 bytes (symlinks and folders kept);
- ``removed``: every file in the volume (regular files and symlinks) removed, folders kept.

A spec names the operation as ``<volume>:<op>`` (``EditSpec.sidecar``), or ``<volume>/<folder>:<op>``
for a sidecar folder the profile declares inside a held volume (``sidecars:``; a trace kept in the
store's own volume): then only the files under that folder are emptied or removed. Rolling a
sidecar back to an earlier copy is not generic (the adversary would need one), so it is not offered.

Example::

    >>> import tempfile
    >>> from pathlib import Path
    >>> vol = Path(tempfile.mkdtemp())
    >>> (vol / "trace").mkdir()
    >>> _ = (vol / "trace" / "t1.jsonl").write_text('{"seq": 0}\\n')
    >>> parse("ledger:emptied")
    ('ledger', 'emptied')
    >>> apply(vol, "emptied")
    ['truncate -s 0 trace/t1.jsonl']
    >>> (vol / "trace" / "t1.jsonl").stat().st_size
    0
    >>> apply(vol, "removed"), (vol / "trace").is_dir()
    (['rm trace/t1.jsonl'], True)
    >>> parse("store/trace:emptied"), where("store/trace"), where("ledger")
    (('store/trace', 'emptied'), ('store', 'trace'), ('ledger', None))
    >>> inside({"db": {"size": 1}, "trace/a": {"size": 2}, "trace": {"size": 0}}, "trace")
    {'a': {'size': 2}}
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from edits.model import EditError

OPS = ("emptied", "removed")


def name(volume: str, op: str) -> str:
    """The spec's value for ``op`` on ``volume`` (``ledger:emptied``)."""
    return f"{volume}:{op}"


def parse(value: str) -> tuple[str, str]:
    """``(volume, op)`` of a spec's ``sidecar`` value; EditError when it is not ``<volume>:<op>``."""
    volume, _, op = str(value).rpartition(":")
    if not volume or op not in OPS:
        raise EditError(f"sidecar {value!r}: write <volume>:<op> or <volume>/<folder>:<op>, op one of {list(OPS)}")
    return volume, op


def where(target: str) -> tuple[str, str | None]:
    """``(volume, folder)`` of a sidecar target: ``ledger`` is a whole volume (folder None),
    ``store/trace`` the folder ``trace`` inside volume ``store``."""
    volume, _, folder = target.partition("/")
    return volume, folder or None


def inside(digests: dict[str, Any], folder: str | None) -> dict[str, Any]:
    """The entries of a volume's file digests under ``folder``, by their path inside it (all of
    them when ``folder`` is None: the whole volume is the sidecar)."""
    if folder is None:
        return dict(digests)
    prefix = f"{folder}/"
    return {p[len(prefix):]: e for p, e in digests.items() if p.startswith(prefix)}


def files(path: Path) -> list[Path]:
    """Every file of a volume (regular files and symlinks; no folder), sorted."""
    out = []
    for dirpath, dirnames, filenames in os.walk(path):
        out += [Path(dirpath) / n for n in filenames]
        out += [Path(dirpath) / n for n in dirnames if (Path(dirpath) / n).is_symlink()]
    return sorted(out)


def holds_files(path: Path) -> bool:
    """True when the volume holds a regular file (something for either operation to change)."""
    return any(p.is_file() and not p.is_symlink() for p in files(path))


def apply(path: Path, op: str) -> list[str]:
    """Empty or remove every file of the volume at ``path``; the file operations made, as statements."""
    if op not in OPS:
        raise EditError(f"sidecar operation {op!r}: use one of {list(OPS)}")
    done = []
    for file in files(path):
        rel = file.relative_to(path).as_posix()
        if op == "removed":
            file.unlink()
            done.append(f"rm {rel}")
        elif not file.is_symlink():
            os.truncate(file, 0)
            done.append(f"truncate -s 0 {rel}")
    return done
