"""SUT profiles: what a row is, loaded from ``sut_profiles/*.yaml`` and validated.

Every error names the file, the line, the field and the fix. A profile::

    row: reference-naive                  # the row's name (unique)
    title: One line for people
    status: runnable                      # runnable | unavailable
    unavailable_reason: ...               # required when unavailable
    sut: {package: memlab-reference, version: 0.1.0, commit: null}
    driver: reference                     # folder under images/, or ./path relative to this file
    volumes:                              # every volume and who holds it
      store: {adversary: true}
      anchor: {adversary: false}
    services:                             # backends the store lives in (optional)
      db: {kind: postgres, volume: pgdata}  # postgres | redis, on a declared volume
    store: {...}                          # the layout, see edits.layout
    capabilities: {erasure: record, order: true, metadata: true, snapshot: true}
    configuration: {...}                  # features, head placement; passed to the driver
    detection_points: [read]              # read | audit (two points = two rows)
    signals: [{channel: log, level: WARNING, pattern: "integrity"}]
    dut_boundary: what is inside the device under test
    timeouts: {start: 60, op: 60}
    notes: free text
    position: stopped                     # stopped (the metric) | alive: the SUT process runs across
                                          # the edit and is read without a restart (its own row)
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from edits.layout import LayoutError, StoreLayout, parse_layout
from lab.services import KINDS as SERVICE_KINDS
from lab.services import ServiceSpec

PROJECT_ROOT = Path(__file__).resolve().parent.parent
PROFILES_DIR = PROJECT_ROOT / "sut_profiles"
IMAGES_DIR = PROJECT_ROOT / "images"

ERASURE = ("record", "context", "none")
DETECTION_POINTS = ("read", "audit")
STATUSES = ("runnable", "unavailable")
TOP_FIELDS = {
    "row", "title", "status", "unavailable_reason", "sut", "driver", "volumes", "store",
    "capabilities", "configuration", "detection_points", "signals", "dut_boundary",
    "timeouts", "notes", "observation_class", "position", "services",
}
POSITIONS = ("stopped", "alive")


class ProfileError(ValueError):
    """A profile is malformed: file, line, field, what is wrong and how to fix it."""

    def __init__(self, path: Path | str, line: int | None, field_name: str, message: str, fix: str):
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: {field_name}: {message}\n  fix: {fix}")
        self.path, self.line, self.field, self.message, self.fix = path, line, field_name, message, fix


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
    keyless edit addresses one record inside it (the layout's payload is ``format: opaque``)."""

    erasure: str = "none"
    order: bool = True
    metadata: bool = True
    snapshot: bool = True
    sealed: bool = False


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
    notes: str = ""
    observation_class: str = "a"
    position: str = "stopped"
    services: tuple[ServiceSpec, ...] = ()

    @property
    def driver_dir(self) -> Path:
        """The image folder of this profile's driver."""
        return driver_dir(str(self.driver), self.path)

    def adversary_volumes(self) -> list[str]:
        """Names of the volumes the adversary holds (edited, snapshotted)."""
        return [name for name, held in self.volumes.items() if held]

    def to_json(self) -> dict[str, Any]:
        """The profile as plain data, for result rows."""
        return {
            "row": self.row, "title": self.title, "status": self.status,
            "unavailable_reason": self.unavailable_reason, "sut": dict(self.sut),
            "driver": self.driver,
            "volumes": {n: {"adversary": a} for n, a in self.volumes.items()},
            "store": self.store.to_json() if self.store else None,
            "capabilities": self.capabilities.__dict__.copy(),
            "configuration": self.configuration,
            "detection_points": list(self.detection_points),
            "signals": [s.__dict__.copy() for s in self.signals],
            "dut_boundary": self.dut_boundary, "notes": self.notes,
            "observation_class": self.observation_class, "position": self.position,
            "services": [{"name": sv.name, "kind": sv.kind, "volume": sv.volume} for sv in self.services],
        }


def load_profile(path: Path) -> Profile:
    """Load and validate one profile file."""
    text = _read(path)
    try:
        node = yaml.compose(text)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else None
        raise ProfileError(path, line, "(yaml)", f"not valid YAML: {getattr(exc, 'problem', exc)}",
                           "fix the YAML syntax at that line") from exc
    lines = _line_index(node)
    return _Validator(path, data, lines).profile()


def load_profiles(directory: Path = PROFILES_DIR) -> list[Profile]:
    """Load every profile in a folder; raise the first error (invalid profile or duplicate row)."""
    profiles, errors = scan_profiles(directory)
    if errors:
        raise errors[0]
    return profiles


def scan_profiles(directory: Path = PROFILES_DIR) -> tuple[list[Profile], list[ProfileError]]:
    """Every valid profile of a folder, and the errors of the invalid ones (a run goes on without them)."""
    profiles: list[Profile] = []
    errors: list[ProfileError] = []
    seen: dict[str, Path] = {}
    for path in sorted(Path(directory).glob("*.yaml")):
        try:
            prof = load_profile(path)
            if prof.row in seen:
                raise ProfileError(path, 1, "row", f"duplicate row {prof.row!r} (also in {seen[prof.row].name})",
                                   "give every profile its own row name")
        except ProfileError as exc:
            errors.append(exc)
            continue
        seen[prof.row] = path
        profiles.append(prof)
    return profiles, errors


def driver_dir(driver: str, profile_path: Path) -> Path:
    """A driver folder: a name under images/, or a path starting with ./ or / (relative to the profile)."""
    if driver.startswith((".", "/")):
        return (Path(profile_path).parent / driver).resolve()
    return IMAGES_DIR / driver


def select(profiles: list[Profile], patterns: list[str] | None) -> list[Profile]:
    """Profiles whose row matches any of the names or globs (all when none given)."""
    if not patterns:
        return list(profiles)
    chosen = [p for p in profiles if any(fnmatch.fnmatchcase(p.row, pat) for pat in patterns)]
    return chosen


def _read(path: Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ProfileError(path, None, "(file)", f"cannot read: {exc.strerror}", "check the path") from exc
    except UnicodeDecodeError as exc:
        raise ProfileError(path, None, "(file)", "not UTF-8 text", "save the file as UTF-8") from exc


def _line_index(node: Any, prefix: str = "", out: dict[str, int] | None = None) -> dict[str, int]:
    """Map dotted field paths to 1-based line numbers from a composed YAML node."""
    out = {} if out is None else out
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            dotted = f"{prefix}.{key_node.value}" if prefix else str(key_node.value)
            out[dotted] = key_node.start_mark.line + 1
            _line_index(value_node, dotted, out)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            out[f"{prefix}[{i}]"] = item.start_mark.line + 1
            _line_index(item, f"{prefix}[{i}]", out)
    return out


class _Validator:
    def __init__(self, path: Path, data: Any, lines: dict[str, int]):
        self.path, self.data, self.lines = path, data, lines

    def fail(self, field_name: str, message: str, fix: str) -> ProfileError:
        line = self.lines.get(field_name)
        probe = field_name
        while line is None and "." in probe:
            probe = probe.rsplit(".", 1)[0]
            line = self.lines.get(probe)
        return ProfileError(self.path, line or 1, field_name, message, fix)

    def profile(self) -> Profile:
        d = self.data
        if not isinstance(d, dict):
            raise self.fail("(top)", "a profile is a mapping", "start with 'row: <name>'")
        for key in d:
            if key not in TOP_FIELDS:
                raise self.fail(str(key), "unknown field", f"use one of {sorted(TOP_FIELDS)}")
        row = self.string("row")
        status = d.get("status", "runnable")
        if status not in STATUSES:
            raise self.fail("status", f"unknown status {status!r}", f"use one of {list(STATUSES)}")
        common = dict(row=row, title=str(d.get("title", row)), path=Path(self.path), status=status,
                      sut=self.mapping("sut"), notes=str(d.get("notes", "")),
                      dut_boundary=str(d.get("dut_boundary", "")))
        if status == "unavailable":
            reason = d.get("unavailable_reason")
            if not reason:
                raise self.fail("unavailable_reason", "required when status is unavailable",
                                "say why the row cannot run (e.g. package not on any registry)")
            return Profile(unavailable_reason=str(reason), **common)
        if not common["sut"].get("version"):
            raise self.fail("sut.version", "missing", "pin the SUT's exact version")
        driver = self.string("driver")
        if not (driver_dir(driver, self.path) / "driver.py").is_file():
            raise self.fail("driver", f"no driver.py in {driver_dir(driver, self.path)}",
                            "name a folder under images/ (or ./path from this profile) holding a driver.py")
        volumes = self.volumes()
        try:
            store = parse_layout(d.get("store"))
        except LayoutError as exc:
            raise self.fail(exc.field, exc.message, exc.fix) from exc
        if store.volume not in volumes:
            raise self.fail("store.volume", f"volume {store.volume!r} is not declared",
                            f"declare it under volumes: or use one of {sorted(volumes)}")
        if not volumes[store.volume]:
            raise self.fail("store.volume", "the store's volume must be held by the adversary",
                            f"set volumes.{store.volume}.adversary: true")
        capabilities = self.capabilities()
        if capabilities.sealed != (store.payload.format == "opaque"):
            raise self.fail("capabilities.sealed", "sealed records go with an opaque payload and back",
                            "set capabilities.sealed: true exactly when store.payload.format is opaque")
        return Profile(driver=driver, volumes=volumes, store=store, capabilities=capabilities,
                       configuration=self.mapping("configuration"),
                       detection_points=self.detection_points(), signals=self.signals(),
                       timeouts=self.timeouts(), observation_class=self.observation_class(),
                       position=self.position(), services=self.services(volumes, store), **common)

    def string(self, key: str) -> str:
        value = self.data.get(key)
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, "missing or not a string", f"set {key}: <text>")
        return value

    def mapping(self, key: str) -> dict[str, Any]:
        value = self.data.get(key, {}) or {}
        if not isinstance(value, dict):
            raise self.fail(key, "must be a mapping", f"write {key}: {{name: value}}")
        return value

    def volumes(self) -> dict[str, bool]:
        raw = self.mapping("volumes")
        if not raw:
            raise self.fail("volumes", "no volumes declared", "declare at least the store volume")
        out: dict[str, bool] = {}
        for name, spec in raw.items():
            if not isinstance(spec, dict) or not isinstance(spec.get("adversary"), bool):
                raise self.fail(f"volumes.{name}", "each volume needs adversary: true|false",
                                f"write volumes.{name}: {{adversary: true}}")
            out[str(name)] = spec["adversary"]
        return out

    def capabilities(self) -> Capabilities:
        raw = self.mapping("capabilities")
        known = set(Capabilities.__dataclass_fields__)
        for key in raw:
            if key not in known:
                raise self.fail(f"capabilities.{key}", "unknown capability", f"use one of {sorted(known)}")
        erasure = raw.get("erasure", "none")
        if erasure not in ERASURE:
            raise self.fail("capabilities.erasure", f"unknown erasure {erasure!r}", f"use one of {list(ERASURE)}")
        flags = ("order", "metadata", "snapshot", "sealed")
        for flag in flags:
            if flag in raw and not isinstance(raw[flag], bool):
                raise self.fail(f"capabilities.{flag}", "must be true or false", f"write {flag}: true")
        return Capabilities(erasure=erasure, **{k: raw[k] for k in flags if k in raw})

    def detection_points(self) -> tuple[str, ...]:
        raw = self.data.get("detection_points", ["read"])
        if not isinstance(raw, list) or not raw or any(p not in DETECTION_POINTS for p in raw):
            raise self.fail("detection_points", f"must be a non-empty list of {list(DETECTION_POINTS)}",
                            "e.g. detection_points: [read, audit]")
        if len(set(raw)) != len(raw):
            raise self.fail("detection_points", "repeats a detection point", "name each point once")
        return tuple(raw)

    def signals(self) -> tuple[SignalFilter, ...]:
        raw = self.data.get("signals")
        if raw is None:
            return (SignalFilter(),)
        if not isinstance(raw, list):
            raise self.fail("signals", "must be a list", "e.g. signals: [{channel: log, pattern: tamper}]")
        out = []
        for i, item in enumerate(raw):
            if not isinstance(item, dict) or set(item) - {"channel", "level", "pattern", "logger"}:
                raise self.fail(f"signals[{i}]", "each signal is {channel, level, pattern, logger}",
                                "remove other keys")
            if item.get("channel", "log") not in ("log", "warning", "status"):
                raise self.fail(f"signals[{i}]", "channel must be log, warning or status", "fix the channel")
            out.append(SignalFilter(**item))
        return tuple(out)

    def timeouts(self) -> dict[str, float]:
        raw = self.mapping("timeouts")
        out = {"start": 60.0, "op": 60.0}
        for key, value in raw.items():
            if key not in out or not isinstance(value, (int, float)) or value <= 0:
                raise self.fail(f"timeouts.{key}", "timeouts are start/op in positive seconds",
                                "e.g. timeouts: {start: 60, op: 30}")
            out[key] = float(value)
        return out

    def services(self, volumes: dict[str, bool], store: StoreLayout) -> tuple[ServiceSpec, ...]:
        out = []
        for name, spec in self.mapping("services").items():
            where = f"services.{name}"
            if not isinstance(spec, dict) or spec.get("kind") not in SERVICE_KINDS or set(spec) - {"kind", "volume"}:
                raise self.fail(where, f"a service is {{kind: {'|'.join(SERVICE_KINDS)}, volume: NAME}}",
                                f"write {where}: {{kind: postgres, volume: pgdata}}")
            if spec.get("volume") not in volumes:
                raise self.fail(f"{where}.volume", f"volume {spec.get('volume')!r} is not declared",
                                "declare the service's data volume under volumes:")
            out.append(ServiceSpec(str(name), spec["kind"], spec["volume"]))
        if store.service and store.service not in {sv.name for sv in out}:
            raise self.fail("store.service", f"no service {store.service!r} declared",
                            f"declare services.{store.service}: {{kind: {store.backend}, volume: ...}}")
        if store.service and store.backend != next(sv.kind for sv in out if sv.name == store.service):
            raise self.fail("store.service", f"the {store.backend} editor cannot edit a "
                            f"{next(sv.kind for sv in out if sv.name == store.service)} service",
                            "make store.backend and the service's kind agree")
        return tuple(out)

    def position(self) -> str:
        value = self.data.get("position", "stopped")
        if value not in POSITIONS:
            raise self.fail("position", f"unknown position {value!r}",
                            "write position: stopped (the method's metric) or alive (process kept across the edit)")
        return value

    def observation_class(self) -> str:
        value = self.data.get("observation_class", "a")
        if value not in ("a", "c"):
            raise self.fail("observation_class", "read observations are class a (SUT read path) or c "
                            "(vendor SDK of a managed store)", "write observation_class: a")
        return value
