"""The judge's typed contracts: what one trial saved (:class:`Observation`), what the judge derives
from it (:class:`Cell`, :class:`ControlResult`, :class:`EditsLanded`) and the :class:`Verdict`.

Pydantic v2 models, strict (a JSON ``1`` is not ``true``) and open: a key the lab does not know
is kept, never read. ``to_json`` gives back exactly the keys that were set, so
``Observation.from_json(x).to_json() == x`` for every saved file and the JSON stays
byte-identical. A file of the wrong shape raises :class:`ShapeError` naming the file and the
field: an input (harness) error, never a verdict.

Versions (docs/results.md, "Schemas"): an observation is ``memlab.observation/1``; a cell and a
control are versioned with the row that holds them (``memlab.row/1``). Published evidence is
pinned byte for byte, so the observation's version is documented rather than written; a file
that does state a ``schema`` must state this one.

Imports nothing of the lab: the method writes these, the judge and the result set read them.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

OBSERVATION_SCHEMA = "memlab.observation/1"
Json = dict[str, Any]
#: A number kept as written (strict mode would turn an int into a float, and the JSON would change).
Number = int | float


class Verdict(StrEnum):
    """A cell's verdict; the values are the strings rows have always held."""

    REJECTED = "REJECTED"
    REPORTED = "REPORTED"
    ACCEPTED = "ACCEPTED"
    NA = "n/a"
    ERROR = "error"


class ShapeError(ValueError):
    """A saved file lacks the shape of its type; the message names the file and the field."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True, frozen=True)

    @classmethod
    def from_json(cls, data: Any, source: str = "<data>"):
        """Validate plain JSON data; ``ShapeError`` names ``source`` and the first wrong field."""
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            errors = exc.errors()
            where = ".".join(map(str, errors[0]["loc"])) or "(top level)"
            more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
            raise ShapeError(f"{source}: field {where}: {errors[0]['msg']}{more}") from None

    @classmethod
    def coerce(cls, data: Any):
        """``data`` itself when it is already this type, else ``from_json(data)``."""
        return data if isinstance(data, cls) else cls.from_json(data)

    def to_json(self, only: set[str] | None = None) -> Json:
        """Plain JSON data: the keys that were set (or read), and only those; ``only``: of these keys
        alone (what is left out, a store dump say, is never copied)."""
        return self.model_dump(mode="json", exclude_unset=True, include=only)


class Answer(_Model):
    """One driver answer as the driver client checked it (the protocol: images/README.md)."""

    ok: bool
    refused: bool | None = None
    error: Any = None
    records: list[Json] | None = None
    record: Json | None = None
    erased: Any = None
    audit: Json | None = None
    result: Any = None
    signals: list[Json] | None = None
    id: int | None = None
    seconds: Number | None = None

    @property
    def refused_to_serve(self) -> bool:
        """The SUT refused: an SUT error, or a served result with no record in it."""
        return bool(self.refused) or (self.ok and "records" in self.model_fields_set and not self.records)


#: Where a trial recorded no answer: nothing served, nothing refused, no signal.
NO_ANSWER = Answer(ok=False)


class TrialError(_Model):
    """A harness fault of a trial: the stage it hit, what happened, the SUT's log tail."""

    stage: str | None = None
    message: str
    log_tail: str | None = None
    traceback: str | None = None


class AuditCall(_Model):
    """An audit op: the context's label and id, the store copy it ran against, the interval
    since the edit, and the driver's answer."""

    label: str = "A"
    context: str | None = None
    against: dict[str, str] | None = None
    interval_s: Number | None = None
    answer: Answer | None = None


class C3Record(_Model):
    """C3 as the procedure saved it: the result (``ok``, ``reasons``, ``evidence`` summary) and
    what it was computed from (records read by the generic editor; file-level diffs of an edit;
    a restore case's volume digests before its op and after the restore, where saved; a sidecar
    variant's digests of its volume before and after the edit)."""

    ok: bool
    reasons: list[str] | None = None
    evidence: Json | None = None
    files: dict[str, list[str]] | None = None
    untouched_volumes: dict[str, list[str]] | None = None
    records_before: list[Json] | None = None
    records_between: list[Json] | None = None
    records_after: list[Json] | None = None
    digests_before: Json | None = None
    digests_after: Json | None = None
    sidecar: Json | None = None


class Observation(_Model):
    """One trial's saved JSON (``observations/<row>/<trial>.json``): seed, C1, C2, a case's base
    trial (which lists its ``variants``) or one of its variant trials (``T1.v2``, with its
    ``variant`` name). Which keys each trial writes is in docs/results.md ("The observation")."""

    case: str | None = None
    variant: str | None = None
    variants: list[Json] | None = None
    status: Literal["measured", "error", "n/a"] | None = None
    na_reason: str | None = None
    error: TrialError | None = None
    sut_stopped_during_edit: bool | None = None
    position: str | None = None
    timings: dict[str, Number] | None = None
    logs: list[str] | None = None
    services: dict[str, Json] | None = None
    open: Answer | None = None
    plan: Json | None = None
    describe: Answer | None = None
    writes: list[Answer] | None = None
    seed_ids: dict[str, str] | None = None
    seed_versions: dict[str, str] | None = None
    reads: dict[str, Answer] | None = None
    audits: dict[str, AuditCall] | None = None
    marker: str | None = None
    write: Answer | None = None
    read_label: str = "A"
    intended: Json | None = None
    applied: Json | None = None
    c3: C3Record | None = None
    op_version: dict[str, str] | None = None
    sut_op: Answer | None = None
    read: Answer | None = None
    audit: AuditCall | None = None

    @classmethod
    def load(cls, data: Any, source: str, trial: str) -> Observation:
        """The observation saved as ``source`` for ``trial``: its shape, its version, its name."""
        if isinstance(data, dict) and data.get("schema", OBSERVATION_SCHEMA) != OBSERVATION_SCHEMA:
            raise ShapeError(f"{source}: field schema: {data['schema']!r}, this lab reads {OBSERVATION_SCHEMA!r}")
        obs = cls.from_json(data, source)
        case = trial.split(".v", 1)[0]  # a variant trial (T1.v2) observes its case (T1)
        if obs.case != case:
            raise ShapeError(f"{source}: field case: {obs.case!r}, the file is the observation of {case!r}")
        if (obs.variant is None) != (case == trial):
            raise ShapeError(f"{source}: field variant: {obs.variant!r} in the observation of trial {trial!r} "
                             "(a variant trial names its variant, a case's base trial none)")
        if obs.status is None:
            raise ShapeError(f"{source}: field status: missing")
        return obs


class CellEvidence(_Model):
    """What a reader of a cell needs: the edit intended and its statements, C3's result, what was
    served or refused, the signals, the timings and the observation file."""

    intended: Json | None
    statements: list[Any] | None
    c3: Json
    served: list[Any] | None
    refusal: Any
    signals: list[Json]
    timings: dict[str, Number] | None
    observation: str


class Cell(_Model):
    """One case at one detection point: the verdict, its observation class and reason, and
    (where they apply) the signals, the effect check, the audit call and the evidence; the
    variant that decided it and every variant with its verdict (:mod:`lab.judge.weakest`)."""

    case: str
    detection_point: str
    verdict: Verdict = Field(strict=False)
    observation_class: str | None
    reason: str | None
    signals: list[Json] | None = None
    effect: Json | None = None
    audit: Json | None = None
    evidence: CellEvidence | None = None
    decided_by: str | None = None
    variants: list[Json] | None = None


class ControlResult(_Model):
    """C1 or C2 as a row states it: whether it holds, and why (or why not)."""

    ok: bool
    reason: str


class EditsLanded(_Model):
    """C3 as a row states it: which cases' edits landed and which did not (their base trials; ``ok``
    is theirs), and which variant trials' edits landed and which did not (errors of their own)."""

    ok: bool
    landed: list[str]
    not_landed: list[str]
    variants_landed: list[str] = []
    variants_not_landed: list[str] = []
