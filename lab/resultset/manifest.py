"""The at-rest manifest (``manifest.json``) as one typed, versioned record, written and read.

:func:`read_manifest` dispatches on the manifest's ``schema`` (:data:`READERS`: ``memlab.manifest/1``)
and refuses one of another shape naming the field; ``memlab run`` writes its manifest through
:class:`Manifest` too. Open like every result record (:mod:`lab.open_record`): a key the lab does
not know is kept, and ``to_json`` gives back exactly what was read. The entries of ``rows`` and
``evidence`` are checked one by one by ``memlab verify``, which names each wrong entry as a finding.

    >>> read_manifest({"schema": MANIFEST_SCHEMA, "method_revision": "r", "decision_rules": {},
    ...                "rows": [], "evidence": {}}).evidence
    Traceback (most recent call last):
    ...
    lab.resultset.manifest.ManifestShapeError: field 'evidence' is a dict, not a list
"""

from __future__ import annotations

import hashlib
from typing import Any

import rfc8785
from pydantic import Field

from lab.open_record import List, Obj, Object, OpenRecord, Str, String, read_by_schema

MANIFEST_SCHEMA = "memlab.manifest/1"


class Pins(OpenRecord):
    """What every set's manifest pins (at rest, lifecycle, front door): each row file's digest and each
    evidence file's, the run and the lab that wrote it, and how the digests were taken. Verify's shared
    checks (digests, signature, unpinned files) read a manifest through it."""

    schema_: String = Field(alias="schema")
    rows: List
    evidence: List
    lab: Obj = None
    run_id: Str = None
    canonicalization: Str = None
    digest: Str = None
    evidence_digest: Str = None

    def sha256(self) -> str:
        """``sha256:`` and the hex digest of the manifest's canonical encoding (RFC 8785): how a merged or
        analyzed run.json names the manifest it came from."""
        return "sha256:" + hashlib.sha256(rfc8785.dumps(self.to_json())).hexdigest()


class Manifest(Pins):
    """What an at-rest set pins: its method revision and decision rules besides the rows and evidence."""

    method_revision: String
    decision_rules: Object


#: Manifest schema -> the record that reads it.
READERS: dict[str, type[Manifest]] = {MANIFEST_SCHEMA: Manifest}


class ManifestShapeError(ValueError):
    """A manifest lacks the shape of its schema; the message names the field."""


def read_manifest(data: Any) -> Manifest:
    """The manifest ``data`` (parsed JSON), read by the record of its schema (one it must name)."""
    return read_by_schema(data, READERS, ManifestShapeError, "")
