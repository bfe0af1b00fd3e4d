"""A generic editor edits its volume and nothing else.

A SUT owns what it writes into its volume, so the store the editor opens may be hostile: a store
file that is a symlink out of the volume would make the editor change a file elsewhere (and C3,
which digests the volume, would see no edit), and a fifo or a device in its place would block
the editor or feed it endless bytes. :func:`confine` checks a volume before an editor opens it:
every symlink in it must resolve inside it, and nothing in it may be a fifo or a device;
otherwise :class:`StoreEscape` names the entry and where it points.

    >>> import tempfile; from pathlib import Path
    >>> vol = Path(tempfile.mkdtemp())
    >>> (vol / "memory.db").symlink_to("/etc/hostname")
    >>> confine(vol)
    Traceback (most recent call last):
    ...
    edits.confine.StoreEscape: memory.db in volume ... is a symlink to /etc/hostname, outside the volume; ...
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from edits.model import EditError
from edits.volumes import entries


class StoreEscape(EditError):
    """A volume holding a link out of it, or a fifo or device: the editor does not open it."""


def confine(volume: Path) -> None:
    """``StoreEscape`` when an entry of ``volume`` is a symlink resolving outside it (or the volume
    itself is a symlink), or a fifo or device."""
    volume = Path(volume)
    if volume.is_symlink():
        raise StoreEscape(f"volume {volume} is itself a symlink (to {os.readlink(volume)}); the generic editor "
                          "edits a volume the lab made, not where a link points")
    top = os.path.realpath(volume)
    for path, rel, info in entries(volume):
        if stat.S_ISLNK(info.st_mode):
            target = os.path.realpath(path)
            if os.path.commonpath([top, target]) != top:
                raise StoreEscape(f"{rel} in volume {volume} is a symlink to {os.readlink(path)}, outside the "
                                  "volume; the generic editor never edits through a link out of its volume "
                                  "(the SUT made it: its store is not confined to its volume)")
        elif stat.S_ISFIFO(info.st_mode) or stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode):
            raise StoreEscape(f"{rel} in volume {volume} is a fifo or a device, not a file; the generic editor "
                              "does not open it (a read of it could block or never end)")
