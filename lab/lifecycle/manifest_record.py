"""The manifest of a lifecycle set (``manifest.json``, ``kind: lifecycle``) as one typed, versioned record.

``memlab lifecycle run`` writes its manifest through :class:`LifecycleManifest` (lab.lifecycle.results),
and ``memlab verify`` reads it with :func:`read_lifecycle_manifest`, by the ``schema`` it names
(:data:`READERS`: ``memlab.lifecycle-manifest/1``). What every set's manifest pins (rows, evidence, the
run and the lab, how digests are taken) is the shared :class:`lab.resultset.manifest.Pins`; a lifecycle
manifest adds its kind, its decision rules and the run's ``fail_on``. Open like every result record
(:mod:`lab.open_record`): a key the lab does not know is kept, ``to_json`` gives back exactly what was
read, a field of another JSON kind is refused naming it.

    >>> read_lifecycle_manifest({"schema": MANIFEST_SCHEMA, "kind": "lifecycle", "decision_rules": {},
    ...                          "rows": [], "evidence": [], "fail_on": 1})
    Traceback (most recent call last):
    ...
    lab.lifecycle.manifest_record.LifecycleManifestShapeError: field 'fail_on' is a int, not a string or null
"""

from __future__ import annotations

from typing import Any

from lab.open_record import Object, Str, String, read_by_schema
from lab.resultset.manifest import Pins

MANIFEST_SCHEMA = "memlab.lifecycle-manifest/1"


class LifecycleManifest(Pins):
    """What a lifecycle set pins: its rows and evidence, the run's ``fail_on`` and the decision rules."""

    kind: String
    decision_rules: Object
    fail_on: Str = None


#: Lifecycle manifest schema -> the record that reads it.
READERS: dict[str, type[LifecycleManifest]] = {MANIFEST_SCHEMA: LifecycleManifest}


class LifecycleManifestShapeError(ValueError):
    """A lifecycle manifest lacks the shape of its schema; the message names the field."""


def read_lifecycle_manifest(data: Any) -> LifecycleManifest:
    """The lifecycle manifest ``data`` (parsed JSON), read by the record of its schema (one it must name)."""
    return read_by_schema(data, READERS, LifecycleManifestShapeError, "")
