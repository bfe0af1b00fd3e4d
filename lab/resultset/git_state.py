"""The checkout's git commit (``lab_revision``'s ``commit``) read from its git folder, without a git
process: ``.git``, or the folder a worktree's ``.git`` file names; HEAD, the branch it names, a loose
ref or ``packed-refs``. A checkout read otherwise (no git folder, a HEAD of another form) gives None:
the caller asks git.

The dirty flag is still git's (``git status``): what it depends on (every file's bytes and mode under
the code folders, the index, the ignore rules) costs as much to digest as git takes to answer.
"""

from __future__ import annotations

import re
from pathlib import Path

SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def git_dirs(root: Path) -> tuple[Path, Path] | None:
    """(the checkout's git folder, the folder it shares with other worktrees), or None."""
    dot = Path(root) / ".git"
    try:
        if dot.is_dir():
            gitdir = dot
        else:
            text = dot.read_text(encoding="utf-8").strip()
            if not text.startswith("gitdir: "):
                return None
            gitdir = (Path(root) / text[len("gitdir: "):]).resolve()
        common = gitdir
        if (gitdir / "commondir").is_file():
            common = (gitdir / (gitdir / "commondir").read_text(encoding="utf-8").strip()).resolve()
    except (OSError, UnicodeDecodeError):
        return None
    return gitdir, common


def head_commit(gitdir: Path, common: Path) -> str | None:
    """The commit HEAD names (a detached HEAD, a loose ref or one in packed-refs), or None."""
    try:
        head = (gitdir / "HEAD").read_text(encoding="utf-8").strip()
        if SHA.fullmatch(head):
            return head
        if not head.startswith("ref: refs/"):
            return None
        ref = head[len("ref: "):]
        for folder in (gitdir, common):
            if (folder / ref).is_file():
                value = (folder / ref).read_text(encoding="utf-8").strip()
                return value if SHA.fullmatch(value) else None
        packed = common / "packed-refs"
        for line in packed.read_text(encoding="utf-8").splitlines() if packed.is_file() else ():
            value, _, name = line.partition(" ")
            if name == ref and SHA.fullmatch(value):
                return value
    except (OSError, UnicodeDecodeError):
        return None
    return None
