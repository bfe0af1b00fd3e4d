"""An error of the machine is the user's to fix, said as one: a full disk, a read-only or forbidden
folder, a folder where a file goes (or a file where a folder goes), a link memlab will not write
through. :func:`describe` words such an ``OSError`` with its path and the fix; the command line exits
2 with it (``lab.cli``), never with a traceback. Other ``OSError``s are not described (None).

    >>> import errno
    >>> print(describe(OSError(errno.ENOSPC, "No space left on device", "results/x/run.json")))
    results/x/run.json: no space left on the device
      fix: free space there, or give a folder on another disk, and run the command again
"""

from __future__ import annotations

import errno

from lab.safewrite import UnsafeTarget

_WRITABLE = "give a folder on a writable file system (or remount it read-write), and run the command again"
_SPACE = "free space there, or give a folder on another disk, and run the command again"
_ACCESS = "give a path you may write and read, or change its permissions, and run the command again"
_OTHER_PATH = "remove it, or give another path, and run the command again"
#: errno -> (what happened, the fix).
FIXES = {
    errno.ENOSPC: ("no space left on the device", _SPACE),
    errno.EDQUOT: ("the disk quota is used up", _SPACE),
    errno.EFBIG: ("the file grew larger than the file system allows", _SPACE),
    errno.EROFS: ("the file system is read-only", _WRITABLE),
    errno.EACCES: ("permission denied", _ACCESS),
    errno.EPERM: ("operation not permitted", _ACCESS),
    errno.EISDIR: ("a folder stands where memlab reads or writes a file", _OTHER_PATH),
    errno.ENOTDIR: ("a file stands where memlab needs a folder", _OTHER_PATH),
    errno.EEXIST: ("already exists", _OTHER_PATH),
    errno.ENAMETOOLONG: ("the path is too long for the file system", "give a shorter path"),
    errno.ELOOP: ("too many symlinks (or a symlink where memlab follows none)", _OTHER_PATH),
    errno.EMLINK: ("too many links", _OTHER_PATH),
}


def describe(exc: BaseException) -> str | None:
    """``PATH: what happened`` and a ``fix:`` line for an error of the machine; None for any other."""
    if isinstance(exc, UnsafeTarget):
        return str(exc)
    if not isinstance(exc, OSError) or exc.errno not in FIXES:
        return None
    what, fix = FIXES[exc.errno]
    where = " -> ".join(str(p) for p in (exc.filename, exc.filename2) if p is not None) or "(a file memlab writes)"
    return f"{where}: {what}\n  fix: {fix}"
