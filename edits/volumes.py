"""Whole-volume operations on host directories: byte-exact snapshot and restore
(a rollback or an erasure of the whole store, and the fresh copy each edit starts from), and file-level digests for
the C3 raw diff.

A snapshot is ``cp -a --sparse=always`` (GNU coreutils): contents, numeric
owners (when run as root; otherwise the copier's own), modes, mtimes, symlinks
as links, hard links, extended attributes where the file system has them, and
holes of sparse files. A restore empties the target (dotfiles included) and
copies the snapshot back into it, so nothing from before survives; the target
directory itself is kept, since it may be a mount point.

Example::

    >>> import tempfile
    >>> from pathlib import Path
    >>> from edits.volumes import snapshot, restore, digest_tree, diff_digests
    >>> root = Path(tempfile.mkdtemp())
    >>> vol = root / "store"
    >>> vol.mkdir()
    >>> _ = (vol / "memory.db").write_bytes(b"v1")
    >>> _ = snapshot(vol, root / "snap")
    >>> before = digest_tree(vol)
    >>> _ = (vol / "memory.db").write_bytes(b"v2"), (vol / ".new").write_text("x")
    >>> diff_digests(before, digest_tree(vol))
    {'added': ['.new'], 'removed': [], 'changed': ['memory.db']}
    >>> _ = restore(root / "snap", vol)
    >>> digest_tree(vol) == before
    True
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Iterator

__all__ = ["snapshot", "restore", "entries", "digest_tree", "diff_digests", "VolumeError"]


class VolumeError(RuntimeError):
    """A snapshot or restore could not be made."""


def _copy(src: Path, dst: Path) -> None:
    cmd = ["cp", "-a", "--sparse=always", "--no-target-directory", "--", str(src), str(dst)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise VolumeError(f"{' '.join(cmd)} failed: {done.stderr.strip()}")


def snapshot(src: Path, dst: Path) -> Path:
    """Copy the volume directory ``src`` to ``dst`` (which must not exist) byte-exactly."""
    src, dst = Path(src), Path(dst)
    if not src.is_dir():
        raise VolumeError(f"{src}: not a directory")
    if dst.exists() or dst.is_symlink():
        raise VolumeError(f"{dst}: already exists; a snapshot goes to a new path")
    dst.parent.mkdir(parents=True, exist_ok=True)
    _copy(src, dst)
    return dst


def clear(target: Path) -> None:
    """Remove everything inside ``target`` (dotfiles included), keeping the directory."""
    for entry in os.scandir(target):
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, onerror=_writable_and_retry)
        else:
            os.unlink(entry.path)


def _writable_and_retry(func, path, _exc) -> None:
    """rmtree helper: a read-only directory is made writable, then the removal retried."""
    parent = os.path.dirname(path)
    os.chmod(parent, os.stat(parent).st_mode | stat.S_IWUSR | stat.S_IXUSR)
    if os.path.isdir(path) and not os.path.islink(path):
        os.chmod(path, os.stat(path).st_mode | stat.S_IWUSR | stat.S_IXUSR | stat.S_IRUSR)
    func(path)


def restore(snap: Path, target: Path) -> Path:
    """Put the snapshot ``snap`` back as ``target`` whole: nothing from before is left."""
    snap, target = Path(snap), Path(target)
    if not snap.is_dir():
        raise VolumeError(f"{snap}: no such snapshot")
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise VolumeError(f"{target}: not a directory")
    if target.exists():
        clear(target)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
    _copy(snap, target)
    return target


def entries(root: Path) -> Iterator[tuple[str, str, os.stat_result]]:
    """Every entry under ``root`` (``root`` itself not listed, links not followed), walk order: its path,
    its path relative to ``root`` and its ``lstat``."""
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            full = os.path.join(folder, name)
            yield full, os.path.relpath(full, root), os.lstat(full)


def digest_tree(path: Path) -> dict[str, dict]:
    """Every entry under ``path`` -> {"sha256", "size", "mode"} (mode in octal text).

    Files are hashed by content, symlinks by their target text, directories get
    sha256 None; ``path`` itself is not listed.
    """
    out: dict[str, dict] = {}
    for full, rel, st in entries(path):
        if stat.S_ISLNK(st.st_mode):
            digest = hashlib.sha256(os.readlink(full).encode("utf-8", "surrogateescape")).hexdigest()
        elif stat.S_ISREG(st.st_mode):
            digest = _sha256(full)
        else:
            digest = None
        out[rel] = {"sha256": digest, "size": st.st_size if not stat.S_ISDIR(st.st_mode) else 0,
                    "mode": f"{st.st_mode:o}"}
    return dict(sorted(out.items()))


def diff_digests(before: dict[str, dict], after: dict[str, dict]) -> dict[str, list[str]]:
    """Relative paths added, removed and changed (content, size or mode) between two digests."""
    return {
        "added": sorted(set(after) - set(before)),
        "removed": sorted(set(before) - set(after)),
        "changed": sorted(p for p in set(before) & set(after) if before[p] != after[p]),
    }


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
