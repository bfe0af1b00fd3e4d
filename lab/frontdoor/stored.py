"""Proven stored, the front door's C3: each case's store read back with the generic editors while the SUT
is stopped, and what the attacker's writes became there.

A row declares where a case's store sits and how its records are laid out (``frontdoor.stored`` in its
profile: a ``store:`` layout whose ``file`` names ``{case}``), and the fields holding a record's label and
signature (in the record's own fields, or, where the SUT keeps them per file, in the entry whose digest is
the SHA-256 of the record's file: ``per_file``). After a row's cases, the SUT is stopped and every case's
store is read by the editor of its backend (no SUT code loaded); the records holding an attacker's text are
kept with the row as evidence.
``lab.frontdoor.as_sent`` then holds each attack write to them: accepted but absent, or stored under
another label or signature than was sent, is a harness error (no verdict), never a pass.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from edits import paths
from edits.base import editor_for
from edits.model import EditError
from lab.frontdoor.observations import StoredRecord
from lab.frontdoor.as_sent import holds
from lab.profile.stored import FieldPath, StoredSpec

MAX_LABEL = 1000  # characters of a stored label kept as evidence
MAX_RECORDS = 64  # records of one case kept as evidence


def value_at(fields: dict[str, Any], where: FieldPath) -> Any:
    """The value at ``where`` in a record's fields (a JSON text read; None where any step is missing, or,
    for a value kept among tags, where not exactly one tag has its prefix)."""
    found = paths.read(fields.get(where.field), where.path)
    if found is paths.MISSING:
        return None
    return found if where.prefix is None else _tagged(found, where.prefix)


def _tagged(tags: Any, prefix: str) -> str | None:
    """The one tag of ``tags`` (a list, or its JSON text) starting with ``prefix``, the prefix taken off."""
    try:
        tags = paths.parse(tags, "json")
    except EditError:
        return None
    if not isinstance(tags, list):
        return None
    found = [t[len(prefix):] for t in tags if isinstance(t, str) and t.startswith(prefix)]
    return found[0] if len(found) == 1 else None


def _as_sent(value: Any, where: FieldPath) -> str | None:
    """A stored value as the lab's word for it: the SUT's own word mapped back through ``where.values``."""
    text = _text(value)
    back = {stored: sent for sent, stored in where.values.items()}
    return back.get(text, text) if text is not None else None


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    return (value if isinstance(value, str) else json.dumps(value, sort_keys=True))[:MAX_LABEL]


def read_case(spec: StoredSpec, volumes: dict[str, Path], case: str, texts: Iterable[str],
              services: dict[str, str] | None = None) -> tuple[StoredRecord, ...]:
    """The records of ``case``'s store holding any of ``texts`` (the attacker's), with their label and
    signature as stored; the SUT must be stopped (a store in a server: ``services``, the server alone)."""
    wanted = [t for t in texts if t]
    layout = spec.layout(case)
    editor = editor_for(layout, volumes, services)
    entries = _entries_by_digest(spec, volumes, case) if spec.per_file is not None else None
    digests: dict[str, str] = {}  # a file's SHA-256, read once however many of its records match
    out = []
    for record in editor.records():
        if any(holds(t, record.payload) for t in wanted):
            fields = record.fields if entries is None else _entry_of(entries, volumes[layout.volume],
                                                                     record.locator, digests)
            out.append(StoredRecord(
                text=record.payload, where=json.dumps(record.locator, sort_keys=True, default=str)[:300],
                label=_as_sent(value_at(fields, spec.label), spec.label) if spec.label else None,
                signature=_text(value_at(fields, spec.signature)) if spec.signature else None))
    return tuple(out[:MAX_RECORDS])


def _entries_by_digest(spec: StoredSpec, volumes: dict[str, Path], case: str) -> dict[str, list[dict[str, Any]]]:
    """The per-file entries of ``case`` by the digest each names (lower-case hex)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for entry in editor_for(spec.per_file.layout(case), volumes).records():
        digest = value_at(entry.fields, spec.per_file.digest)
        if isinstance(digest, str):
            out.setdefault(digest.lower(), []).append(entry.fields)
    return out


def _entry_of(entries: dict[str, list[dict[str, Any]]], root: Path, locator: dict[str, Any],
              digests: dict[str, str]) -> dict[str, Any]:
    """The fields of the one entry kept for the file a record sits in; none (every label then reads
    as absent, so the write did not land as sent) where no entry or several name the file's bytes
    (``digests``: each file's SHA-256 as it is read, kept for the file's other records)."""
    file = str(locator["file"])
    if file not in digests:
        with (root / file).open("rb") as f:
            digests[file] = hashlib.file_digest(f, "sha256").hexdigest()
    found = entries.get(digests[file], [])
    return found[0] if len(found) == 1 else {}
