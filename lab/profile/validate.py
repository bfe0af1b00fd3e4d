"""One profile's data checked and built into a :class:`Profile`: the shape by the schema
(:mod:`lab.profile.schema`), then the rules that span sections here -- the store layout
(:mod:`edits.layout`) and where its paths point, the volumes, sidecars and services it names --,
the driver's folder (:mod:`lab.profile.validate_driver`) and the measurement blocks
(:mod:`lab.profile.validate_measurements`). Every error names its line and the fix."""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import ValidationError

from edits import registry
from edits.layout import LayoutError, StoreLayout, parse_layout
from lab.profile import names
from lab.profile.model import (SERVICE_EDITORS, Capabilities, ForkServer, Profile, ProfileError, ServiceSpec,
                               SignalFilter)
from lab.profile.schema import Document
from lab.profile.schema_errors import line_of, to_profile_error
from lab.profile.validate_driver import own_image
from lab.profile.validate_measurements import for_users, frontdoor_spec, lifecycle_spec


class Validator:
    """Checks one profile's data (with the line and source text of every field) and builds the Profile."""

    def __init__(self, path: Path, data: Any, lines: dict[str, int], texts: dict[str, str] | None = None):
        self.path, self.data, self.lines, self.texts = Path(path), data, lines, texts or {}

    def fail(self, field_name: str, message: str, fix: str) -> ProfileError:
        """The error for a field, at its line (or its nearest parent's)."""
        return ProfileError(self.path, line_of(self.lines, field_name), field_name, message, fix)

    def profile(self) -> Profile:
        if not isinstance(self.data, dict):
            raise self.fail("(top)", "a profile is a mapping", "start with 'row: <name>'")
        bad = names.bad_strings(self.data, self.texts)
        if bad:
            raise self.fail(*bad)
        try:
            doc = Document.model_validate(self.data)
        except ValidationError as exc:
            raise to_profile_error(exc, self.path, self.lines, self.texts) from None
        common = dict(row=doc.row, title=doc.title or doc.row, path=self.path, status=doc.status,
                      sut=dict(self.data.get("sut") or {}), notes=doc.notes, dut_boundary=doc.dut_boundary,
                      for_users=for_users(doc, tuple(doc.measurements), self.fail))
        if doc.status == "unavailable":
            if not doc.unavailable_reason:
                raise self.fail("unavailable_reason", "required when status is unavailable",
                                "say why the row cannot run (e.g. package not on any registry)")
            return Profile(unavailable_reason=doc.unavailable_reason, **common)
        if not doc.sut.version:
            raise self.fail("sut.version", "missing", 'pin the SUT\'s exact version: sut: {version: "1.2.3"}')
        image = own_image(doc, self.path, self.fail)
        if not doc.volumes:
            raise self.fail("volumes", "no volumes declared", "declare at least the store volume")
        volumes = {name: spec.adversary for name, spec in doc.volumes.items()}
        measurements = tuple(doc.measurements)
        if "at_rest" not in measurements and doc.store is not None:
            raise self.fail("store", "a store layout is for the at-rest measurement, which this row does not take",
                            "add at_rest to measurements, or remove store:")
        store, capabilities = self._store(doc, volumes) if "at_rest" in measurements else (None, Capabilities())
        signals = (SignalFilter(),) if doc.signals is None else tuple(SignalFilter(**s.model_dump()) for s in doc.signals)
        return Profile(driver=doc.driver, volumes=volumes, store=store, capabilities=capabilities,
                       configuration=dict(self.data.get("configuration") or {}),
                       detection_points=tuple(doc.detection_points), signals=signals,
                       timeouts={"start": doc.timeouts.start, "op": doc.timeouts.op},
                       limits={"line_bytes": doc.limits.line_bytes, "answer_bytes": doc.limits.answer_bytes},
                       observation_class=doc.observation_class, position=doc.position,
                       services=self._services(doc, volumes, store), measurements=measurements,
                       lifecycle=lifecycle_spec(doc, measurements, self.fail),
                       frontdoor=frontdoor_spec(doc, measurements, self.fail),
                       fork_server=ForkServer(doc.fork_server.enabled, tuple(doc.fork_server.preload),
                                              tuple(doc.fork_server.per_start),
                                              tuple(doc.fork_server.unused_paths)), image=image,
                       side_by_side=doc.side_by_side, trials_in_place=doc.trials_in_place,
                       sidecars=self._sidecars(doc, volumes, store), **common)

    def _store(self, doc: Document, volumes: dict[str, bool]) -> tuple[StoreLayout, Capabilities]:
        """The at-rest store layout, where its paths point, and what it can express."""
        try:
            store = parse_layout(doc.store)
        except LayoutError as exc:
            raise self.fail(exc.field, exc.message, exc.fix) from None
        if store.volume not in volumes:
            raise self.fail("store.volume", f"volume {store.volume!r} is not declared",
                            f"declare it under volumes: or use one of {sorted(volumes)}")
        if not volumes[store.volume]:
            raise self.fail("store.volume", "the store's volume must be held by the adversary",
                            f"set volumes.{store.volume}.adversary: true")
        if registry.backend(store.backend).kind == registry.FILE:
            self._checked("store.file", names.bad_relative(store.file.replace("{context}", "context")))
        for where, table in _tables(store):
            self._checked(where, names.bad_sql_name(table))
        if store.collection:
            self._checked("store.collection", names.bad_name(store.collection))
        if store.record_pattern:
            self._checked("store.record_pattern", names.bad_regex(store.record_pattern))
        forms = tuple(f.name for f in store.payload.forms)  # other forms the reader accepts (edits.forms)
        capabilities = Capabilities(**doc.capabilities.model_dump(), forms=forms)
        if capabilities.sealed != (store.payload.format == "opaque"):
            raise self.fail("capabilities.sealed", "sealed records go with an opaque payload and back",
                            "set capabilities.sealed: true exactly when store.payload.format is opaque")
        if store.map is not None and capabilities.metadata and not store.map.metadata:
            raise self.fail("capabilities.metadata", "a keyed map's entries hold no metadata the layout declares",
                            "set capabilities.metadata: false (T8 n/a), or declare store.map.metadata")
        return store, capabilities

    def _sidecars(self, doc: Document, volumes: dict[str, bool], store: StoreLayout | None) -> tuple[str, ...]:
        """The declared sidecar folders as ``<volume>/<folder>``: each in a declared volume the adversary
        holds (not a service's), a folder strictly inside it, not holding the store's file, listed once."""
        out: list[str] = []
        services = {s.volume for s in doc.services.values()}
        for i, side in enumerate(doc.sidecars):
            at = f"sidecars[{i}]"
            if side.volume not in volumes:
                raise self.fail(f"{at}.volume", f"volume {side.volume!r} is not declared",
                                f"declare it under volumes: or use one of {sorted(volumes)}")
            if not volumes[side.volume]:
                raise self.fail(f"{at}.volume", f"volume {side.volume!r} is not one the adversary holds",
                                f"set volumes.{side.volume}.adversary: true, or name the held volume the folder is in")
            if side.volume in services:
                raise self.fail(f"{at}.volume", f"volume {side.volume!r} is a service's data volume (the service's files)",
                                "name the held volume the sidecar's folder is in")
            folder = PurePosixPath(side.path)
            if not folder.parts or folder.parts == (".",):
                raise self.fail(f"{at}.path", "the path is the volume's top, not a folder inside it",
                                "name the sidecar's folder inside the volume, e.g. trace")
            if store and store.volume == side.volume and store.file and \
                    PurePosixPath(store.file.replace("{context}", "context")).is_relative_to(folder):
                raise self.fail(f"{at}.path", f"the folder {side.path!r} holds the store's file {store.file!r}",
                                "name the folder that holds only the sidecar's files")
            target = f"{side.volume}/{folder}"
            if target in out:
                raise self.fail(at, f"sidecar folder {target!r} is declared twice", "list each sidecar folder once")
            out.append(target)
        return tuple(out)

    def _checked(self, where: str, problem: names.Problem) -> None:
        if problem:
            raise self.fail(where, *problem)

    def _services(self, doc: Document, volumes: dict[str, bool], store: StoreLayout | None) -> tuple[ServiceSpec, ...]:
        out = []
        for name, spec in doc.services.items():
            if spec.volume not in volumes:
                raise self.fail(f"services.{name}.volume", f"volume {spec.volume!r} is not declared",
                                "declare the service's data volume under volumes:")
            out.append(ServiceSpec(name, spec.kind, spec.volume, tuple(spec.extensions)))
        kinds = {sv.name: sv.kind for sv in out}
        if store and store.service and store.service not in kinds:
            raise self.fail("store.service", f"no service {store.service!r} declared",
                            f"declare services.{store.service}: {{kind: {store.backend}, volume: ...}}")
        if store and store.service and store.backend != SERVICE_EDITORS[kinds[store.service]]:
            raise self.fail("store.service", f"the {store.backend} editor cannot edit a {kinds[store.service]} service",
                            "make store.backend and the service's kind agree")
        return tuple(out)


def _tables(store: StoreLayout) -> list[tuple[str, str]]:
    """Every table the layout names, with its field."""
    out = [("store.table", store.table)] if store.table else []
    if store.records:
        out += [(f"store.records.cascade[{i}].table", c.table) for i, c in enumerate(store.records.cascade)]
        if store.records.payload_row:
            out.append(("store.records.payload_row.table", store.records.payload_row.table))
    return out
