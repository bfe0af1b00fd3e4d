"""The evidence a manifest pins besides the rows: run.json, every observation and every log.

Rows are pinned by a digest over their RFC 8785 canonical encoding (lab.resultset.results);
evidence files are pinned byte for byte (SHA-256 over the file as stored), so a
signature over the manifest covers everything a verdict was derived from. Reports
(report.md, junit.xml, report.html, summary.json) are renderings, not evidence: they are not
pinned, and ``unpinned`` names them (and any other file) so ``verify`` says what it did not cover.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lab.resultset.manifest import Pins

#: Folders of a result set whose every file is pinned byte for byte; plus run.json at the top. ``composition``
#: holds a composition's rows (lab.resultset.composition), derived like rows and pinned as they are written.
EVIDENCE_DIRS = ("observations", "logs", "composition")
#: Of those, the folders holding what is derived (written again by ``analyze``, never copied).
DERIVED_DIRS = ("composition",)
EVIDENCE_TOP = ("run.json",)


def file_digest(path: Path) -> str:
    """``sha256:<hex>`` over a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 16), b""):
            h.update(chunk)
    return "sha256:" + h.hexdigest()


def evidence_files(root: Path, folders: tuple[str, ...] = EVIDENCE_DIRS) -> list[str]:
    """Every evidence file of a result set (run.json and every file under ``folders``), as sorted
    POSIX paths relative to ``root``."""
    root = Path(root)
    found = [name for name in EVIDENCE_TOP if (root / name).is_file()]
    for folder in folders:
        base = root / folder
        if base.is_dir():
            found += [p.relative_to(root).as_posix() for p in base.rglob("*") if p.is_file()]  # *.tmp too
    return sorted(found)


def evidence(root: Path, folders: tuple[str, ...] = EVIDENCE_DIRS) -> list[dict[str, str]]:
    """The manifest's ``evidence`` list: one ``{"file", "digest"}`` per evidence file."""
    return [{"file": name, "digest": file_digest(Path(root) / name)} for name in evidence_files(root, folders)]


#: Files of a set that are the manifest itself (and its signature): not pinned, the pin.
MANIFEST_FILES = ("manifest.json", "manifest.sig")


def unpinned(root: Path, manifest: Pins) -> list[str]:
    """Every file of the set at ``root`` that its manifest pins neither as a row nor as evidence (reports,
    ``summary.json``, ``junit.xml``, anything added), as sorted POSIX paths; a folder holding a set of its
    own (``manifest.json``) is that set's, not this one's."""
    root = Path(root)
    pinned = set(MANIFEST_FILES)
    for entries in (manifest.rows, manifest.evidence):
        pinned |= {e["file"] for e in entries if isinstance(e, dict) and isinstance(e.get("file"), str)}
    out, folders = [], [root]
    while folders:
        for path in sorted(folders.pop().iterdir()):
            if path.is_dir() and not path.is_symlink():
                if not (path / "manifest.json").is_file():
                    folders.append(path)
            elif (name := path.relative_to(root).as_posix()) not in pinned:
                out.append(name)
    return sorted(out)
