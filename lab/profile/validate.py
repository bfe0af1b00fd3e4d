"""Validation of one profile's data, field by field, each error with its line and fix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from edits.layout import LayoutError, StoreLayout, parse_layout
from lab.profile.model import (DETECTION_POINTS, ERASURE, LIFECYCLE_CAPABILITIES, MEASUREMENTS, POSITIONS, SERVICE_KINDS, STATUSES, TOP_FIELDS,
                               Capabilities, LifecycleSpec, Profile, ProfileError, ServiceSpec, SignalFilter, driver_dir)


class FieldReader:
    """One profile's data with the line of every field: typed reads that fail with line and fix."""

    def __init__(self, path: Path, data: Any, lines: dict[str, int]):
        self.path, self.data, self.lines = path, data, lines

    def fail(self, field_name: str, message: str, fix: str) -> ProfileError:
        """The error for a field, at its line (or its nearest parent's)."""
        line = self.lines.get(field_name)
        probe = field_name
        while line is None and "." in probe:
            probe = probe.rsplit(".", 1)[0]
            line = self.lines.get(probe)
        return ProfileError(self.path, line or 1, field_name, message, fix)

    def string(self, key: str) -> str:
        """A required non-empty string field."""
        value = self.data.get(key)
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, "missing or not a string", f"set {key}: <text>")
        return value

    def mapping(self, key: str) -> dict[str, Any]:
        """An optional mapping field ({} when absent)."""
        value = self.data.get(key, {}) or {}
        if not isinstance(value, dict):
            raise self.fail(key, "must be a mapping", f"write {key}: {{name: value}}")
        return value


class FieldChecks(FieldReader):
    """The profile's self-contained sections: volumes, capabilities, points, signals, timeouts."""

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


class Validator(FieldChecks):
    """Checks one profile's data and builds the Profile (the rules that span sections)."""

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
        measurements = self.measurements()
        store, capabilities = self.store(volumes) if "at_rest" in measurements else (None, Capabilities())
        return Profile(driver=driver, volumes=volumes, store=store, capabilities=capabilities,
                       configuration=self.mapping("configuration"),
                       detection_points=self.detection_points(), signals=self.signals(),
                       timeouts=self.timeouts(), observation_class=self.observation_class(),
                       position=self.position(), services=self.services(volumes, store),
                       measurements=measurements, lifecycle=self.lifecycle(measurements), **common)

    def store(self, volumes: dict[str, bool]) -> tuple[StoreLayout, Capabilities]:
        """The at-rest store layout and what it can express."""
        try:
            store = parse_layout(self.data.get("store"))
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
        return store, capabilities

    def measurements(self) -> tuple[str, ...]:
        """Which measurements the row takes part in (at rest by default)."""
        raw = self.data.get("measurements", ["at_rest"])
        if not isinstance(raw, list) or not raw or any(m not in MEASUREMENTS for m in raw) or len(set(raw)) < len(raw):
            raise self.fail("measurements", f"must be a non-empty list of {list(MEASUREMENTS)}, each once",
                            "e.g. measurements: [at_rest, lifecycle]")
        if "at_rest" not in raw and "store" in self.data:
            raise self.fail("store", "a store layout is for the at-rest measurement, which this row does not take",
                            "add at_rest to measurements, or remove store:")
        return tuple(raw)

    def lifecycle(self, measurements: tuple[str, ...]) -> LifecycleSpec | None:
        """What the lifecycle gate may ask of the SUT (TTL, tenants, its own update)."""
        raw = self.data.get("lifecycle")
        if "lifecycle" not in measurements:
            if raw is not None:
                raise self.fail("lifecycle", "a lifecycle block on a row that the lifecycle gate does not measure",
                                "add lifecycle to measurements, or remove the block")
            return None
        raw = self.mapping("lifecycle")
        for key in raw:
            if key not in ("capabilities", "scope"):
                raise self.fail(f"lifecycle.{key}", "unknown field", "use capabilities and scope")
        caps = raw.get("capabilities", [])
        if not isinstance(caps, list) or any(c not in LIFECYCLE_CAPABILITIES for c in caps):
            raise self.fail("lifecycle.capabilities", f"must be a list of {list(LIFECYCLE_CAPABILITIES)}",
                            "e.g. capabilities: [ttl, tenants, erase] (erase: per-record erasure; "
                            "a SUT that erases whole contexts only leaves it out)")
        scope = raw.get("scope", "separate" if "tenants" in caps else "folded")
        if scope not in ("separate", "folded") or (scope == "separate") != ("tenants" in caps):
            raise self.fail("lifecycle.scope", "scope is separate (with the tenants capability) or folded "
                            "(tenant and user folded into one context)", "make scope and capabilities agree")
        return LifecycleSpec(capabilities=frozenset(caps), scope=scope)

    def services(self, volumes: dict[str, bool], store: StoreLayout | None) -> tuple[ServiceSpec, ...]:
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
        if store and store.service and store.service not in {sv.name for sv in out}:
            raise self.fail("store.service", f"no service {store.service!r} declared",
                            f"declare services.{store.service}: {{kind: {store.backend}, volume: ...}}")
        if store and store.service and store.backend != next(sv.kind for sv in out if sv.name == store.service):
            raise self.fail("store.service", f"the {store.backend} editor cannot edit a "
                            f"{next(sv.kind for sv in out if sv.name == store.service)} service",
                            "make store.backend and the service's kind agree")
        return tuple(out)
