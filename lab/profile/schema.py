"""The profile's shape as one strict schema (pydantic v2): every field's type, range and
alphabet. The rules that span sections (the store layout, volumes held by the adversary, a
service's kind) are in :mod:`lab.profile.validate`, which builds the :class:`Profile`.

Strict: YAML's guesses are not taken for what was meant (``true`` is not 1 s, ``0.10`` is not
the version "0.10", ``on`` is not a name), an unknown field is an error, and a field's own
check (:mod:`lab.profile.names`) raises with the fix in the error's context.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from lab.profile import names
from lab.profile.model import (DETECTION_POINTS, ERASURE, LIFECYCLE_CAPABILITIES, MEASUREMENTS, POSITIONS,
                               SERVICE_EXTENSIONS, SERVICE_KINDS, STATUSES)

#: Seconds a timeout may be: long enough for a real op, short enough to end a run.
MIN_SECONDS, MAX_SECONDS = 0.5, 3600.0
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
CHANNELS = ("log", "warning", "status")


def _checked(check, *args):
    """A pydantic after-validator from a :mod:`lab.profile.names` check."""
    def run(value: str) -> str:
        problem = check(value, *args)
        if problem:
            raise PydanticCustomError("profile", "{message}", {"message": problem[0], "fix": problem[1]})
        return value
    return AfterValidator(run)


SafeName = Annotated[str, _checked(names.bad_name)]
Line = Annotated[str, _checked(names.bad_text, True)]
Text = Annotated[str, _checked(names.bad_text)]
Regex = Annotated[Line, _checked(names.bad_regex)]
Module = Annotated[str, _checked(names.bad_module)]
Version = Annotated[Line, Field(min_length=1)]
Seconds = Annotated[float, Field(ge=MIN_SECONDS, le=MAX_SECONDS)]
#: Bytes a driver-boundary limit may be: room for a real answer, never the lab's memory.
MIN_BYTES, MAX_BYTES, DEFAULT_BYTES = 4096, 1 << 28, 1 << 24
Bytes = Annotated[int, Field(ge=MIN_BYTES, le=MAX_BYTES)]


def _literal(values: tuple[str, ...]) -> Any:
    return Literal[values]  # type: ignore[valid-type]


class Strict(BaseModel):
    """No coercion, no unknown keys, no NaN or infinity."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)


class Sut(Strict):
    package: Line | None = None
    version: Version | None = None
    commit: Line | None = None


class Volume(Strict):
    adversary: bool


def _unique(values: list[str]) -> list[str]:
    if len(set(values)) != len(values):
        raise PydanticCustomError("profile", "{message}", {"message": "names an entry twice",
                                                           "fix": "list each entry once"})
    return values


class SidecarDoc(Strict):
    """A sidecar folder inside a held volume (a trace kept beside the store in its own volume)."""

    volume: SafeName
    path: Annotated[str, _checked(names.bad_relative)]


class Service(Strict):
    kind: _literal(SERVICE_KINDS)
    volume: SafeName
    extensions: Annotated[list[_literal(SERVICE_EXTENSIONS)], AfterValidator(_unique)] = []

    @model_validator(mode="after")
    def _extensions_are_postgres(self) -> "Service":
        if self.extensions and self.kind != "postgres":
            raise PydanticCustomError("profile", "{message}", {
                "message": f"a {self.kind} service has no extensions",
                "fix": "declare extensions only on a postgres service, or remove them"})
        return self


class CapabilitiesDoc(Strict):
    erasure: _literal(ERASURE) = "none"
    order: bool = True
    metadata: bool = True
    snapshot: bool = True
    sealed: bool = False


class Signal(Strict):
    channel: _literal(CHANNELS) = "log"
    level: _literal(LEVELS) = "WARNING"
    pattern: Regex | None = None
    logger: Line | None = None


class Timeouts(Strict):
    start: Seconds = 60.0
    op: Seconds = 60.0


class Limits(Strict):
    """The driver boundary: the longest line the lab reads, the largest answer it takes."""

    line_bytes: Bytes = DEFAULT_BYTES
    answer_bytes: Bytes = DEFAULT_BYTES

    @model_validator(mode="after")
    def _answer_is_a_line(self) -> "Limits":
        if self.answer_bytes > self.line_bytes:
            raise ValueError(f"answer_bytes {self.answer_bytes} is more than line_bytes {self.line_bytes}: "
                             "an answer is one line")
        return self


class LifecycleDoc(Strict):
    capabilities: list[_literal(LIFECYCLE_CAPABILITIES)] = []
    scope: Literal["separate", "folded"] | None = None
    isolation: Literal["sut", "separate-store", "driver"] | None = None


class FrontdoorDoc(Strict):
    isolation: Literal["sut", "separate-store", "driver"]
    label: Annotated[str, Field(min_length=1, max_length=500)] | None = None
    signature: Annotated[str, Field(min_length=1, max_length=500)] | None = None
    stored: dict[str, Any] | None = None  # lab.profile.stored: each case's store, read back (C3)


class ForUsersDoc(Strict):
    """What the row's results mean for a user, per measurement (lab.profile.model.ForUsers)."""

    at_rest: Text | None = None
    lifecycle: Text | None = None


class ImageDoc(Strict):
    """The row's own SUT image: a Dockerfile in the driver folder, or an image already on the engine."""

    dockerfile: Annotated[str, _checked(names.bad_relative)] | None = None
    tag: Annotated[str, _checked(names.bad_image_ref)] | None = None

    @model_validator(mode="after")
    def _one_source(self) -> "ImageDoc":
        if (self.dockerfile is None) == (self.tag is None):
            raise PydanticCustomError("profile", "{message}", {
                "message": "names its image by exactly one of dockerfile and tag",
                "fix": "image: {dockerfile: Dockerfile} (built by the lab) or image: {tag: acme/agent:1.4} (on the engine)"})
        return self


class ForkServerDoc(Strict):
    enabled: bool = True
    preload: list[Module] = []
    per_start: Annotated[list[SafeName], AfterValidator(_unique)] = []
    unused_paths: Annotated[list[Module], AfterValidator(_unique)] = []


class Document(Strict):
    """A profile file's data, shape-checked (see the package docstring for each field)."""

    row: SafeName
    title: Line | None = None
    status: _literal(STATUSES) = "runnable"
    unavailable_reason: Text | None = None
    sut: Sut = Sut()
    driver: Line | None = None
    image: ImageDoc | None = None
    volumes: dict[SafeName, Volume] = {}
    services: dict[SafeName, Service] = {}
    store: dict[str, Any] | None = None
    sidecars: list[SidecarDoc] = []
    capabilities: CapabilitiesDoc = CapabilitiesDoc()
    configuration: dict[str, Any] = {}
    detection_points: Annotated[list[_literal(DETECTION_POINTS)], Field(min_length=1), AfterValidator(_unique)] = ["read"]
    signals: list[Signal] | None = None
    dut_boundary: Text = ""
    timeouts: Timeouts = Timeouts()
    limits: Limits = Limits()
    notes: Text = ""
    observation_class: Literal["a", "c"] = "a"
    position: _literal(POSITIONS) = "stopped"
    measurements: Annotated[list[_literal(MEASUREMENTS)], Field(min_length=1), AfterValidator(_unique)] = ["at_rest"]
    lifecycle: LifecycleDoc | None = None
    frontdoor: FrontdoorDoc | None = None
    for_users: ForUsersDoc | None = None
    fork_server: ForkServerDoc = ForkServerDoc()
    side_by_side: bool = True
    trials_in_place: bool = False

    @model_validator(mode="before")
    @classmethod
    def _empty_sections(cls, data: Any) -> Any:
        """An empty section (``capabilities:`` with nothing under it) is an absent one, as it always was."""
        if isinstance(data, dict):
            sections = ("sut", "volumes", "services", "capabilities", "configuration", "timeouts", "limits", "signals",
                        "fork_server", "sidecars")
            return {k: v for k, v in data.items() if not (k in sections and v is None)}
        return data
