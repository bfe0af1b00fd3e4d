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

from typing import Any

from pydantic import Field

from lab.open_record import List, Obj, Object, OpenRecord, Str, String, read_by_schema

MANIFEST_SCHEMA = "memlab.manifest/1"


class Manifest(OpenRecord):
    """What a set pins: its method revision and decision rules, the run, each row file's digest and each
    evidence file's."""

    schema_: String = Field(alias="schema")
    method_revision: String
    decision_rules: Object
    rows: List
    evidence: List
    lab: Obj = None
    run_id: Str = None
    canonicalization: Str = None
    digest: Str = None
    evidence_digest: Str = None


#: Manifest schema -> the record that reads it.
READERS: dict[str, type[Manifest]] = {MANIFEST_SCHEMA: Manifest}


class ManifestShapeError(ValueError):
    """A manifest lacks the shape of its schema; the message names the field."""


def read_manifest(data: Any) -> Manifest:
    """The manifest ``data`` (parsed JSON), read by the record of its schema (one it must name)."""
    return read_by_schema(data, READERS, ManifestShapeError, "")
