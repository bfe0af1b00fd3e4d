"""The profile's types: a validated row (Profile), its capabilities, signals, services, and
ProfileError (file, line, field, what is wrong, the fix)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lab import PROFILES_DIR, PROJECT_ROOT  # noqa: F401 -- lab.profile names them with the other paths
from lab.profile.names import bad_text

if TYPE_CHECKING:  # the layouts' and the stored spec's code (pydantic) only where a profile is checked
    from edits.layout import StoreLayout
    from lab.profile.stored import StoredSpec

IMAGES_DIR = PROJECT_ROOT / "images"

ERASURE = ("record", "context", "none")
DETECTION_POINTS = ("read", "audit")
STATUSES = ("runnable", "unavailable")
TOP_FIELDS = {
    "row", "title", "status", "unavailable_reason", "sut", "driver", "volumes", "store",
    "capabilities", "configuration", "detection_points", "signals", "dut_boundary",
    "timeouts", "limits", "notes", "observation_class", "position", "services", "measurements", "lifecycle",
    "fork_server", "image", "side_by_side", "trials_in_place", "frontdoor", "for_users",
}
POSITIONS = ("stopped", "alive")
#: The measurements of the lab: at rest (docs/method.md), the lifecycle gate (docs/lifecycle.md) and the
#: front door (docs/front-door.md).
MEASUREMENTS = ("at_rest", "lifecycle", "frontdoor")
#: What a SUT may offer the lifecycle gate: TTL with logical time, tenant and user kept apart, its own
#: update, and per-record erasure (``erase``; without it the gate does not send deletes or rescopes).
LIFECYCLE_CAPABILITIES = ("ttl", "tenants", "update", "erase")


#: Backend kinds a store may live in (the runtime starts them; lab.runtime.services).
SERVICE_KINDS = ("postgres", "redis", "redis-stack")
#: service kind -> the backend whose editor speaks its protocol (Redis Stack is Redis with modules)
SERVICE_EDITORS = {"postgres": "postgres", "redis": "redis", "redis-stack": "redis"}
#: PostgreSQL extensions a ``postgres`` service may declare (the runtime serves a server that has them).
SERVICE_EXTENSIONS = ("vector",)


@dataclass(frozen=True)
class ServiceSpec:
    """A declared backend: its name, kind and the volume holding its data."""

    name: str
    kind: str
    volume: str
    extensions: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The service as plain data (``extensions`` only when declared, so earlier sets read the same)."""
        return {"name": self.name, "kind": self.kind, "volume": self.volume,
                **({"extensions": list(self.extensions)} if self.extensions else {})}


class ProfileError(ValueError):
    """A profile is malformed: file, line, field, what is wrong and how to fix it."""

    def __init__(self, path: Path | str, line: int | None, field_name: str, message: str, fix: str):
        shown = repr(str(path)) if bad_text(str(path), one_line=True) else str(path)  # no escapes to a terminal
        where = f"{shown}:{line}" if line else shown
        super().__init__(f"{where}: {field_name}: {message}\n  fix: {fix}")
        self.path, self.line, self.field, self.message, self.fix = path, line, field_name, message, fix


#: A check's way to refuse a profile: ``fail(field, message, fix)`` is the error at that field's line
#: (``Validator.fail``).
Fail = Callable[[str, str, str], ProfileError]


@dataclass(frozen=True)
class SignalFilter:
    """A documented integrity signal: channel, minimum level, and a message pattern."""

    channel: str = "log"
    level: str = "WARNING"
    pattern: str | None = None
    logger: str | None = None


@dataclass(frozen=True)
class Capabilities:
    """What the store can express: erasure kind, order, metadata layer, whole-store copy, and
    ``sealed``: the records sit inside a payload the adversary cannot read (ciphertext), so no
    keyless edit addresses one record inside it (the layout's payload is ``format: opaque``);
    ``forms``: the names of the other forms its reader accepts, which a keyless edit can write
    (``store.payload.forms``, see edits.forms)."""

    erasure: str = "none"
    order: bool = True
    metadata: bool = True
    snapshot: bool = True
    sealed: bool = False
    forms: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Plain data for result rows (``forms`` only when the layout declares some)."""
        return {k: (list(v) if k == "forms" else v) for k, v in self.__dict__.items() if k != "forms" or v}


@dataclass(frozen=True)
class LifecycleSpec:
    """What the lifecycle gate may ask of a row: its capabilities and how scope maps to its contexts."""

    capabilities: frozenset[str] = frozenset()
    scope: str = "folded"  # separate: tenant and user apart | folded: one context "tenant/user"
    #: Who keeps contexts apart on the read path: the SUT's own call (sut), one store per context
    #: (separate-store), or memlab's driver filtering the SUT's records (driver); None: not said.
    isolation: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Plain data for result sets."""
        return {"capabilities": sorted(self.capabilities), "scope": self.scope, "isolation": self.isolation}


@dataclass(frozen=True)
class ForUsers:
    """What a row's published results mean for a user of its SUT, one line per measurement (``for_users:``):
    the "For a user" line of docs/rows.md (``at_rest``) and of docs/rows-lifecycle.md (``lifecycle``), read
    by the scripts that write them. An interpretation written after the measurement, so no part of the
    profile a result set records (``Profile.to_json`` leaves it out)."""

    at_rest: str | None = None
    lifecycle: str | None = None


@dataclass(frozen=True)
class FrontdoorSpec:
    """Where the SUT keeps a write's provenance and who keeps its contexts apart, for the front door.

    ``label``/``signature``: the SUT's own mechanism a channel's label or signature is handed to (a
    source field, an attestation ...), or None where the SUT has none: without a label the three
    channels are one write and the row is measured on one cell."""

    isolation: str  # sut | separate-store | driver, as the lifecycle block says it
    label: str | None = None
    signature: str | None = None
    stored: StoredSpec | None = None  # where each case's store is read back with the SUT stopped (C3)

    def to_json(self) -> dict[str, Any]:
        """Plain data for result sets."""
        return {"isolation": self.isolation, "label": self.label, "signature": self.signature,
                **({"stored": self.stored.to_json()} if self.stored is not None else {})}


@dataclass(frozen=True)
class ForkServer:
    """Whether the row's driver starts from a forked, pre-imported server, and what it preloads."""

    enabled: bool = True
    preload: tuple[str, ...] = ()
    #: Distributions whose modules read the trial's environment at import: never preloaded,
    #: each start imports them itself (docs/fork-server.md).
    per_start: tuple[str, ...] = ()
    #: Module globals that keep a path of the server's from import and are never used after it.
    unused_paths: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Plain data for result sets."""
        return {"enabled": self.enabled, "preload": list(self.preload),
                **({"per_start": list(self.per_start)} if self.per_start else {}),
                **({"unused_paths": list(self.unused_paths)} if self.unused_paths else {})}


@dataclass(frozen=True)
class OwnImage:
    """The row's own SUT image: ``dockerfile`` (a file in the driver folder the lab builds on its base)
    or ``tag`` (an image already on the engine); its entrypoint speaks the driver protocol."""

    dockerfile: str | None = None
    tag: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Plain data for result sets."""
        return {"dockerfile": self.dockerfile} if self.dockerfile else {"tag": self.tag}


@dataclass(frozen=True)
class Profile:
    """A validated SUT profile (one SUT configuration; one row per detection point)."""

    row: str
    title: str
    path: Path
    status: str = "runnable"
    unavailable_reason: str | None = None
    sut: dict[str, Any] = field(default_factory=dict)
    driver: str | None = None
    volumes: dict[str, bool] = field(default_factory=dict)  # name -> adversary holds it
    store: StoreLayout | None = None
    capabilities: Capabilities = Capabilities()
    configuration: dict[str, Any] = field(default_factory=dict)
    detection_points: tuple[str, ...] = ("read",)
    signals: tuple[SignalFilter, ...] = (SignalFilter(),)
    dut_boundary: str = ""
    timeouts: dict[str, float] = field(default_factory=lambda: {"start": 60.0, "op": 60.0})
    #: The driver boundary (bytes): ``line_bytes`` the longest line read, ``answer_bytes`` the largest answer.
    limits: dict[str, int] = field(default_factory=lambda: {"line_bytes": 1 << 24, "answer_bytes": 1 << 24})
    notes: str = ""
    observation_class: str = "a"
    position: str = "stopped"
    services: tuple[ServiceSpec, ...] = ()
    measurements: tuple[str, ...] = ("at_rest",)
    lifecycle: LifecycleSpec | None = None
    frontdoor: FrontdoorSpec | None = None
    fork_server: ForkServer = ForkServer()
    image: OwnImage | None = None
    #: False: the row's trials run one after another, never side by side (a driver that opens its
    #: volumes at fixed paths, ``kit.fixed_paths``: two trials at once would re-point each other's links).
    side_by_side: bool = True
    #: True: every trial runs on the seeded volumes put back where they were seeded, one trial at a time
    #: (a SUT that records its store's resolved absolute path in the store: lab.method.bed).
    trials_in_place: bool = False
    #: The sidecar folders inside held volumes, as ``<volume>/<folder>`` (``sidecars:``): the sidecar
    #: variants empty or remove their files (lab.method.sidecar_step).
    sidecars: tuple[str, ...] = ()
    for_users: ForUsers = ForUsers()

    @property
    def driver_dir(self) -> Path:
        """The image folder of this profile's driver (a row whose own image is named by tag alone has none)."""
        if not self.driver:
            raise ValueError(f"{self.row}: no driver folder (its own image {self.image} holds the driver)")
        return driver_dir(str(self.driver), self.path)

    def adversary_volumes(self) -> list[str]:
        """Names of the volumes the adversary holds (edited, snapshotted)."""
        return [name for name, held in self.volumes.items() if held]

    def to_json(self) -> dict[str, Any]:
        """The profile as plain data, for result rows (``for_users`` left out: see ForUsers)."""
        return {
            "row": self.row, "title": self.title, "status": self.status,
            "unavailable_reason": self.unavailable_reason, "sut": dict(self.sut),
            "driver": self.driver,
            "volumes": {n: {"adversary": a} for n, a in self.volumes.items()},
            "store": self.store.to_json() if self.store else None,
            "capabilities": self.capabilities.to_json(),
            "configuration": self.configuration,
            "detection_points": list(self.detection_points),
            "signals": [s.__dict__.copy() for s in self.signals],
            "dut_boundary": self.dut_boundary, "notes": self.notes,
            "observation_class": self.observation_class, "position": self.position,
            "services": [sv.to_json() for sv in self.services],
            # only where they differ from the at-rest default, so earlier result sets read the same
            **({"measurements": list(self.measurements)} if self.measurements != ("at_rest",) else {}),
            **({"lifecycle": self.lifecycle.to_json()} if self.lifecycle else {}),
            **({"frontdoor": self.frontdoor.to_json()} if self.frontdoor else {}),
            **({"fork_server": self.fork_server.to_json()} if self.fork_server != ForkServer() else {}),
            **({"side_by_side": False} if not self.side_by_side else {}),
            **({"trials_in_place": True} if self.trials_in_place else {}),
            **({"image": self.image.to_json()} if self.image else {}),
            **({"sidecars": list(self.sidecars)} if self.sidecars else {}),
        }


def driver_dir(driver: str, profile_path: Path) -> Path:
    """A driver folder: a name under images/, or a path starting with ./ or / (relative to the profile)."""
    if driver.startswith((".", "/")):
        return (Path(profile_path).parent / driver).resolve()
    return IMAGES_DIR / driver
