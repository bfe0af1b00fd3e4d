"""The ``sidecar=<target>:<op>`` variants of a record case (:mod:`edits.sidecars`): the case's edit,
and every file of another volume the adversary holds, or of a sidecar folder the profile declares
inside a held volume (``<volume>/<folder>``), emptied or removed with it.

:func:`specs` makes the variants of a base spec (one per held sidecar volume and operation), and
of the one editor variant they combine with (:func:`combines`: the store's unkeyed derived values
recomputed, where the sidecar is the check left); the editor's other variants are not multiplied
by them (docs/method.md says why). :func:`problems` is the part of C3 such a variant adds to the
case's own rule, over the file digests of the sidecar target taken before and after the edit
(``c3.sidecar``: volume (the target), before, after, as :func:`edits.volumes.digest_tree` gives
them, by their paths inside the target) and the file-level diff of the held volumes: the target
held a file before; after, every file of it is 0 bytes (``emptied``) or gone, its folders kept
(``removed``); nothing was added; and the diff shows exactly that change within the target (the
store's own files beside a sidecar folder are the case's rule's). Pure: no I/O.

Example::

    >>> from edits.model import EditSpec
    >>> [s.sidecar for s in specs([EditSpec("T1", "A", "mA2-x")], ["ledger"])]
    ['ledger:emptied', 'ledger:removed']
    >>> before = {"log.jsonl": {"sha256": "ab", "size": 9, "mode": "100644"}}
    >>> after = {"log.jsonl": {"sha256": EMPTY, "size": 0, "mode": "100644"}}
    >>> files = {"added": [], "removed": [], "changed": ["ledger/log.jsonl"]}
    >>> problems("ledger:emptied", {"volume": "ledger", "before": before, "after": after}, files)
    []
    >>> problems("ledger:removed", {"volume": "ledger", "before": before, "after": after}, files)
    ['sidecar ledger:removed: log.jsonl is still there after the edit']
    >>> problems("store/trace:emptied", {"volume": "store/trace", "before": before, "after": before},
    ...          {"added": [], "removed": [], "changed": ["store/db.sqlite"]})
    ['sidecar store/trace:emptied: log.jsonl is not empty after the edit']
"""

from __future__ import annotations

import hashlib
import stat
from dataclasses import replace
from typing import Any, Iterable

from edits.derived_layout import RECOMPUTED
from edits.model import EditError, EditSpec
from edits.sidecars import OPS, name, parse, where
from edits.volumes import diff_digests

EMPTY = hashlib.sha256(b"").hexdigest()


def specs(bases: list[EditSpec], volumes: Iterable[str]) -> list[EditSpec]:
    """Each of ``bases`` with each sidecar operation on each of ``volumes`` (the row's sidecar targets)."""
    volumes = list(volumes)
    return [replace(b, sidecar=name(v, op)) for b in bases for v in volumes for op in OPS]


def combines(spec: EditSpec, base: EditSpec) -> bool:
    """True for the one editor variant a sidecar operation is also made with: the base spec with the
    store's unkeyed derived values recomputed (``derived=recomputed``), since then the sidecar is the
    check left."""
    return spec == replace(base, variant=RECOMPUTED)


def problems(value: str, evidence: dict[str, Any] | None, files: dict[str, list[str]]) -> list[str]:
    """What C3 finds wrong with the sidecar operation ``value`` (see the module docstring)."""
    try:
        volume, op = parse(value)
    except EditError as exc:
        return [str(exc)]
    at = f"sidecar {value}"
    if not evidence or evidence.get("volume") != volume or not {"before", "after"} <= set(evidence):
        return [f"{at}: no file digests of {_named(volume)} were saved (not a sidecar the adversary holds?)"]
    before, after = evidence["before"], evidence["after"]
    regular = [p for p, e in before.items() if _kind(e) == "file"]
    if not regular:
        return [f"{at}: {_named(volume)} held no file before the edit: nothing to {op[:-1]}"]
    out = [f"{at}: {p} was added" for p in sorted(set(after) - set(before))]
    out += [f"{at}: folder {p} is gone" for p, e in before.items() if _kind(e) == "dir" and p not in after]
    if op == "emptied":
        out += [f"{at}: {p} is {'gone' if p not in after else 'not empty'} after the edit" for p in regular
                if p not in after or after[p].get("size") != 0 or after[p].get("sha256") != EMPTY]
    else:
        out += [f"{at}: {p} is still there after the edit" for p, e in before.items()
                if _kind(e) != "dir" and p in after]
    prefix = f"{volume}/"
    shown = {k: sorted(p[len(prefix):] for p in files.get(k, []) if p.startswith(prefix))
             for k in ("added", "removed", "changed")}
    if shown != diff_digests(before, after):
        out.append(f"{at}: the file-level diff of {_named(volume)} ({shown}) is not the change its digests show")
    return out


def _named(target: str) -> str:
    """A sidecar target as a reader is told it: ``volume 'ledger'``, ``folder 'trace' of volume 'store'``."""
    volume, folder = where(target)
    return f"volume {volume!r}" if folder is None else f"folder {folder!r} of volume {volume!r}"


def _kind(entry: dict[str, Any]) -> str:
    """file | dir | other (a symlink, a device) of one digest entry."""
    mode = int(str(entry.get("mode", "0")), 8)
    return "file" if stat.S_ISREG(mode) else "dir" if stat.S_ISDIR(mode) else "other"
