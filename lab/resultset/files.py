"""A result set's files as plain JSON: written whole and never through a link, read strictly, a row's
digest over its RFC 8785 canonical encoding, and the lab revision a set records. Nothing here knows
what a row holds, so the lifecycle gate and the at-rest sets share it without importing the judge."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any, Callable, Iterator

import rfc8785

from lab import PROJECT_ROOT, __version__, safewrite
from lab.resultset.loading import read_strict
from lab.resultset.surrogates import ESCAPED, replace_lone


def write_json(path: Path, data: Any) -> Path:
    """Write JSON whole, never through a link (:mod:`lab.safewrite`: a crash never leaves half a file; a
    symlink or a hard-linked file in its place is ``UnsafeTarget``); NaN and Infinity are refused, and a
    lone surrogate a SUT sent is written as its escape text (lab.resultset.surrogates). Its text is made
    and written in pieces (:func:`json_pieces`), never held whole."""
    try:
        return safewrite.write_chunks(Path(path), json_pieces(data))
    except NotStreamed:  # nothing was put in place: made whole, as json_text makes it
        return safewrite.write_text(Path(path), json_text(data))


def json_text(data: Any) -> str:
    """The text :func:`write_json` writes for ``data`` (indented, keys sorted, a final newline)."""
    text = json.dumps(data, indent=2, sort_keys=True, default=str, allow_nan=False)  # strict readers refuse NaN
    if ESCAPED.search(text):  # one may be lone: no canonical encoding (nor a strict reader) takes it
        text = json.dumps(replace_lone(json.loads(text)), indent=2, sort_keys=True, allow_nan=False)
    return text + "\n"


class NotStreamed(ValueError):
    """The text of :func:`json_text` holds a surrogate's escape: it is made whole, never in pieces."""


#: The encoder of :func:`json_text`'s first ``json.dumps``, for :func:`json_pieces`.
_ENCODER = json.JSONEncoder(indent=2, sort_keys=True, default=str, allow_nan=False)
PIECE = 1 << 16  # characters of text encoded at once by json_pieces


def json_pieces(data: Any) -> Iterator[bytes]:
    """The bytes :func:`write_json` writes for ``data``, in pieces of about :data:`PIECE` characters: the
    whole text is never held (a store dump's was 87 MB of parts at 10,000 records). ``NotStreamed`` when
    the text holds a surrogate's escape (``json_text`` may then write it otherwise): make it whole."""
    tail = ""
    for text in _texts(data):
        if ESCAPED.search(tail + text):  # tail: an escape cut between two pieces is seen too
            raise NotStreamed("a surrogate's escape in the text")
        tail = text[-5:]
        yield text.encode("utf-8", "backslashreplace")


def _texts(data: Any) -> Iterator[str]:
    parts: list[str] = []
    size = 0
    for part in _ENCODER.iterencode(data):
        parts.append(part)
        size += len(part)
        if size >= PIECE:
            yield "".join(parts)
            parts, size = [], 0
    yield "".join(parts) + "\n"


def read_json(path: Path) -> Any:
    """Read one JSON file strictly (:func:`lab.resultset.loading.read_strict`: ``JSONProblem`` names the
    file and what is wrong)."""
    return read_strict(path)


def canonical(row: dict[str, Any]) -> bytes:
    """The RFC 8785 canonical encoding of a row."""
    return rfc8785.dumps(row)


def digest(row: dict[str, Any]) -> str:
    """``sha256:<hex>`` over the canonical encoding."""
    return "sha256:" + hashlib.sha256(canonical(row)).hexdigest()


#: The lab's own code and profiles, what a measurement depends on: digested into ``lab_revision``'s ``code``.
CODE_DIRS = ("lab", "edits", "images", "sut_profiles")
#: Folders and files in them that are no code of the lab's (caches, build metadata; git ignores them too).
NOT_CODE = re.compile(r"(^|/)(__pycache__|[^/]*\.egg-info)(/|$)|\.pyc$")


@functools.cache
def code_digest(root: Path = PROJECT_ROOT) -> str:
    """``sha256:<hex>`` over every file of the lab's code and profiles (``CODE_DIRS`` under ``root``): each
    file's path and bytes, a link by its target (never followed). Needs no git: a lab installed from an
    archive, or run where git is not on PATH, still says which code measured a set."""
    h = hashlib.sha256()
    for top in CODE_DIRS:
        for folder, dirs, files in os.walk(Path(root) / top):  # links to folders are not followed
            dirs.sort()
            for name in sorted(files):
                path = Path(folder) / name
                rel = path.relative_to(root).as_posix()
                if NOT_CODE.search(rel):
                    continue
                data = os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
                h.update(f"{rel}\0{hashlib.sha256(data).hexdigest()}\n".encode())
    return "sha256:" + h.hexdigest()


def lab_revision() -> dict[str, Any]:
    """The lab's release, the digest of its code and profiles (``code``: known without git) and its git
    commit (read from the checkout's git folder: lab.resultset.git_state) with a dirty flag (git's
    status), as far as they can be known."""
    return begin_lab_revision()()


def begin_lab_revision() -> Callable[[], dict[str, Any]]:
    """:func:`lab_revision` begun: git's status is asked now, in its own process, and read when the callable
    returned is called, so that what the caller does meanwhile (a run writing its scenarios) overlaps it."""
    from lab.resultset import git_state

    status = _git_begin("status", "--porcelain", "--", *CODE_DIRS)

    def revision() -> dict[str, Any]:
        info: dict[str, Any] = {"version": __version__, "code": code_digest(), "commit": None, "dirty": None}
        dirs = git_state.git_dirs(PROJECT_ROOT)
        commit = (git_state.head_commit(*dirs) if dirs else None) or (_git_end(_git_begin("rev-parse", "HEAD"))
                                                                      or "").strip()
        said = _git_end(status)
        if commit and said is not None:  # git unanswered: both unknown, as when git cannot be run
            info["commit"], info["dirty"] = commit, bool(said.strip())
        return info
    return revision


def _git_begin(*args: str) -> subprocess.Popen | None:
    """``git -C PROJECT_ROOT ARGS`` started, or None when it cannot run."""
    try:
        return subprocess.Popen(["git", "-C", str(PROJECT_ROOT), *args], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True)
    except OSError:
        return None


def _git_end(started: subprocess.Popen | None) -> str | None:
    """What a git started by :func:`_git_begin` printed, or None when it did not run, failed or took 10 s."""
    if started is None:
        return None
    try:
        out, _ = started.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        started.kill()
        started.communicate()
        return None
    return out if started.returncode == 0 else None
