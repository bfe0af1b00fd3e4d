"""What a front-door result set saves besides its rows: the run record and the manifest, as typed records.

::

    run.json          kind frontdoor, run id, memlab version and lab revision, fixtures version, row schema,
                      runtime, dates, status, and each row's store (evidence: pinned byte for byte)
    logs/<row>/       the SUT's log of every start of a row measured through its driver (evidence: pinned
                      byte for byte, once the row's SUT is stopped)
    rows/<store>.json FrontdoorResult.to_json(): every write, read and served answer, each verdict, and the
                      figures derived from them (pinned over its RFC 8785 encoding)
    manifest.json     the digest of every row and of run.json; manifest.sig when signed
    summary.json      each row's level, status and findings (a rendering, not evidence)
    report.txt, report.md, report.html, junit.xml   renderings, not evidence
    run.lock          held by the one run writing the set (lab.resultset.lock)
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field, model_serializer

from lab.frontdoor.records import Record

KIND = "frontdoor"
#: The folders of a front-door set pinned byte for byte besides run.json: each row's SUT logs.
EVIDENCE = ("logs",)
RUN_SCHEMA = "memlab.frontdoor-run/1"
MANIFEST_SCHEMA = "memlab.frontdoor-manifest/1"
RUNTIME = "in-process"
RUNTIME_LINE = "runtime: in-process (the calibration stores are Python objects in memlab's own process)"
SHIM_RUNTIME_LINE = "runtime: none for the shim (a team's HTTP shim runs where the team runs it)"


class _Saved(Record):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class LabRevision(_Saved):
    """The lab that made the set (lab.resultset.files.lab_revision); ``code``, the digest of its code and
    profiles, absent from sets written before it was kept (and written only where it is known)."""

    version: str
    code: str | None = None
    commit: str | None = None
    dirty: bool | None = None

    @model_serializer(mode="wrap")
    def _code_where_known(self, handler: Any) -> dict[str, Any]:
        data = handler(self)
        if data.get("code") is None:  # a set from before ``code`` round-trips byte for byte
            data.pop("code", None)
        return data


class RowEntry(_Saved):
    """One row of the run: the store measured and its file."""

    store: str
    file: str
    expected_level: str | None = None  # the level a calibration store is built at; None for a SUT


class _RunHead(_Saved):
    """What run.json and manifest.json both open with: their schema, the kind, the run, the lab that made it,
    the fixtures and the rows' schema (each file names its own schema)."""

    schema_: str = Field(alias="schema")
    kind: Literal["frontdoor"] = KIND
    run_id: str
    memlab: str
    lab: LabRevision
    fixtures_version: int
    row_schema: str


class RunRecord(_RunHead):
    """run.json: what was run, by which lab, when, and how it ended."""

    schema_: Literal["memlab.frontdoor-run/1"] = Field(RUN_SCHEMA, alias="schema")
    runtime: str = RUNTIME
    started: str
    finished: str | None = None
    status: Literal["running", "completed"] = "running"
    rows: tuple[RowEntry, ...]


class Pinned(_Saved):
    """A file and its digest."""

    file: str
    digest: str


class PinnedRow(Pinned):
    store: str


class Manifest(_RunHead):
    """manifest.json: the digest of every row (RFC 8785) and of run.json (its bytes)."""

    schema_: Literal["memlab.frontdoor-manifest/1"] = Field(MANIFEST_SCHEMA, alias="schema")
    canonicalization: str = "RFC 8785 (JCS)"
    digest: str = "SHA-256 over the canonical encoding of each row file"
    rows: tuple[PinnedRow, ...]
    evidence_digest: str = "SHA-256 over the bytes of each evidence file (run.json)"
    evidence: tuple[Pinned, ...]


def dumped(record: _Saved) -> dict:
    """A saved record as its file holds it (``schema`` under its own name)."""
    return record.model_dump(mode="json", by_alias=True)
