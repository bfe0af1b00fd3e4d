"""Writing a file without following a link out: every file memlab writes goes through here.

A file is written whole to a new file beside it (created exclusively, never through a link) and
renamed into place, so a crash leaves the old file or the new one, never half of one, and a
failed write (a full disk) leaves no temporary file behind. The place it goes to is checked
first: a symlink there, or a file with other hard links, is refused with :class:`UnsafeTarget`
(replacing either would write where the link points, or leave another name holding old bytes
that look current). Files that are appended to (a SUT's log) or locked (``run.lock``) are opened
with :func:`open_file`, which refuses the same. A bottom role: it imports no other role of the lab,
and every role may import it.

    >>> import tempfile; from pathlib import Path
    >>> folder = Path(tempfile.mkdtemp())
    >>> write_text(folder / "a.txt", "one\\n").read_text()
    'one\\n'
    >>> (folder / "link.txt").symlink_to(folder / "a.txt")
    >>> write_text(folder / "link.txt", "two")
    Traceback (most recent call last):
    ...
    lab.safewrite.UnsafeTarget: ... is a symlink ...
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import tempfile
from pathlib import Path
from typing import IO, Iterable

_UMASK = os.umask(0o022)
os.umask(_UMASK)
#: The mode of a file written here: what ``open()`` would give it.
FILE_MODE = 0o666 & ~_UMASK


class UnsafeTarget(OSError):
    """A path memlab will not write to: a symlink, a file with other hard links, or no regular file."""

    def __init__(self, path: Path, what: str, code: int = errno.ELOOP):
        super().__init__(code, f"{path} {what}; memlab never writes through a link: remove it "
                               "(or choose another path) and run the command again", str(path))

    def __str__(self) -> str:
        return str(self.strerror)


def check_target(path: Path) -> None:
    """``UnsafeTarget`` when ``path`` is a symlink, a file with other hard links, or not a regular file."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode):
        raise UnsafeTarget(path, f"is a symlink (to {os.readlink(path)})")
    if stat.S_ISDIR(info.st_mode):
        raise UnsafeTarget(path, "is a folder, where memlab writes a file", errno.EISDIR)
    if not stat.S_ISREG(info.st_mode):
        raise UnsafeTarget(path, "is not a regular file (a fifo, socket or device)")
    if info.st_nlink > 1:
        raise UnsafeTarget(path, f"has {info.st_nlink} hard links (another name shares its bytes)", errno.EMLINK)


def write_bytes(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` whole (a new file renamed into place); returns ``path``."""
    return write_chunks(path, (data,))


def write_chunks(path: Path, chunks: Iterable[bytes]) -> Path:
    """Write the ``chunks`` one after the other to ``path``, whole as :func:`write_bytes` writes (the
    file is renamed into place once the last is written; an error while they are made leaves none)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    check_target(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:  # a read-only folder: the error names the file to be written, not a temporary name
        raise type(exc)(exc.errno, exc.strerror, str(path)) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), FILE_MODE)
            for chunk in chunks:
                fh.write(chunk)
        check_target(path)  # again, just before: a link made meanwhile is not replaced either
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError) and exc.filename is None:
            exc.filename = str(path)  # a full disk while writing: the error names the file, not a descriptor
        raise
    return path


def write_text(path: Path, text: str, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` whole (:func:`write_bytes`; a lone surrogate, which no encoding holds,
    as its escape ``\\ud800``); returns ``path``."""
    return write_bytes(path, text.encode(encoding, "backslashreplace"))


def copy_tree(src: Path, dst: Path) -> list[Path]:
    """Copy every regular file under ``src`` to the same place under ``dst``, each whole
    (:func:`write_bytes`); a symlink, fifo or device under ``src`` is ``UnsafeTarget`` (never
    followed). The first error stops the copy, naming its file. Returns the files written."""
    src, dst = Path(src), Path(dst)
    written = []
    for folder, dirs, files in os.walk(src):
        for name in sorted(dirs + files):
            path = Path(folder) / name
            info = os.lstat(path)
            if stat.S_ISDIR(info.st_mode):
                continue
            if not stat.S_ISREG(info.st_mode):
                raise UnsafeTarget(path, "is a symlink, fifo or device, where memlab copies files")
            written.append(write_bytes(dst / path.relative_to(src), path.read_bytes()))
    return written


def open_file(path: Path, mode: str = "ab") -> IO:
    """``path`` opened for appending (``ab``) or locking (``a+``) without following a symlink, and
    refused (``UnsafeTarget``) when it is not a regular file or has other hard links."""
    path = Path(path)
    flags = (os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK  # a fifo must not block
             | (os.O_RDWR if "+" in mode else os.O_WRONLY))
    try:
        fd = os.open(path, flags, FILE_MODE)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO):
            check_target(path)
        raise
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_nlink > 1:
        os.close(fd)
        check_target(path)
        raise UnsafeTarget(path, "is not a regular file of its own")
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    return os.fdopen(fd, mode) if "b" in mode else os.fdopen(fd, mode, encoding="utf-8")
