"""The scratch base: where runs keep the stores under measurement, the lab's alone."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


class ScratchRefused(RuntimeError):
    """A scratch base another user could reach into: not the lab's to write SUT stores under."""


def scratch_base() -> Path:
    """Where runs keep their scratch folders: ``$MEMLAB_SCRATCH``, else ``<tmp>/memlab-scratch-<uid>``.

    Not under the cache: the cache may sit in a home folder that a service running as its own user
    (PostgreSQL refuses root) cannot traverse, so the base is 0711 (others may pass through to a
    volume, never list or write): made so when memlab creates it, made passable when it is a private
    folder of the user's own (0700); refused (``ScratchRefused``)
    when it is a link, or another user owns it, or group or others may write in it: whoever could
    would swap a run's folder for a link and have the lab write, and edit stores, where they chose.
    """
    given = os.environ.get("MEMLAB_SCRATCH")
    base = Path(given or Path(tempfile.gettempdir()) / f"memlab-scratch-{os.geteuid()}")
    try:
        base.mkdir(mode=0o711, parents=True)
        base.chmod(0o711)  # as made, whatever the umask
    except FileExistsError:
        pass
    info = os.lstat(base)
    why = ("it is a symbolic link" if stat.S_ISLNK(info.st_mode) else "it is not a folder"
           if not stat.S_ISDIR(info.st_mode) else f"user {info.st_uid} owns it" if info.st_uid != os.geteuid()
           else f"group or others may write in it (mode {stat.S_IMODE(info.st_mode):o})"
           if info.st_mode & 0o022 else None)
    if why:
        fix = (f"chmod 711 {base}, or point MEMLAB_SCRATCH at a folder of your own" if "write" in why
               else "point MEMLAB_SCRATCH at a folder of your own" if given else f"remove {base}, or point "
               "MEMLAB_SCRATCH at a folder of your own")
        raise ScratchRefused(f"scratch folder {base} refused: {why}, so another user could reach into the runs "
                             f"there\n  fix: {fix}")
    if stat.S_IMODE(info.st_mode) & 0o011 != 0o011:  # a private folder of ours (mkdtemp's 0700): passable
        base.chmod(stat.S_IMODE(info.st_mode) | 0o011)
    return base
