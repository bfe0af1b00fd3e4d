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
                               SERVICE_KINDS, STATUSES)

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


class Service(Strict):
    kind: _literal(SERVICE_KINDS)
    volume: SafeName


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


class LifecycleDoc(Strict):
    capabilities: list[_literal(LIFECYCLE_CAPABILITIES)] = []
    scope: Literal["separate", "folded"] | None = None


def _unique(values: list[str]) -> list[str]:
    if len(set(values)) != len(values):
        raise PydanticCustomError("profile", "{message}", {"message": "names an entry twice",
                                                           "fix": "list each entry once"})
    return values


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
    volumes: dict[SafeName, Volume] = {}
    services: dict[SafeName, Service] = {}
    store: dict[str, Any] | None = None
    capabilities: CapabilitiesDoc = CapabilitiesDoc()
    configuration: dict[str, Any] = {}
    detection_points: Annotated[list[_literal(DETECTION_POINTS)], Field(min_length=1), AfterValidator(_unique)] = ["read"]
    signals: list[Signal] | None = None
    dut_boundary: Text = ""
    timeouts: Timeouts = Timeouts()
    notes: Text = ""
    observation_class: Literal["a", "c"] = "a"
    position: _literal(POSITIONS) = "stopped"
    measurements: Annotated[list[_literal(MEASUREMENTS)], Field(min_length=1), AfterValidator(_unique)] = ["at_rest"]
    lifecycle: LifecycleDoc | None = None
    fork_server: ForkServerDoc = ForkServerDoc()

    @model_validator(mode="before")
    @classmethod
    def _empty_sections(cls, data: Any) -> Any:
        """An empty section (``capabilities:`` with nothing under it) is an absent one, as it always was."""
        if isinstance(data, dict):
            sections = ("sut", "volumes", "services", "capabilities", "configuration", "timeouts", "signals",
                        "fork_server")
            return {k: v for k, v in data.items() if not (k in sections and v is None)}
        return data
