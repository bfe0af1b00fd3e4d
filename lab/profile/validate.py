"""One profile's data checked and built into a :class:`Profile`: the shape by the schema
(:mod:`lab.profile.schema`), then the rules that span sections here -- the store layout
(:mod:`edits.layout`) and where its paths point, the volumes and services it names, the
driver's folder, the lifecycle block. Every error names its line and the fix."""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import ValidationError

from edits import registry
from edits.layout import LayoutError, StoreLayout, parse_layout
from lab.profile import names
from lab.profile.model import (IMAGES_DIR, SERVICE_EDITORS, Capabilities, ForkServer, FrontdoorSpec, LifecycleSpec, OwnImage, Profile,
                               ProfileError, ServiceSpec, SignalFilter, driver_dir)
from lab.profile.schema import Document
from lab.profile.stored import StoredSpec, parse_stored
from lab.profile.schema_errors import line_of, to_profile_error


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
                      sut=dict(self.data.get("sut") or {}), notes=doc.notes, dut_boundary=doc.dut_boundary)
        if doc.status == "unavailable":
            if not doc.unavailable_reason:
                raise self.fail("unavailable_reason", "required when status is unavailable",
                                "say why the row cannot run (e.g. package not on any registry)")
            return Profile(unavailable_reason=doc.unavailable_reason, **common)
        if not doc.sut.version:
            raise self.fail("sut.version", "missing", 'pin the SUT\'s exact version: sut: {version: "1.2.3"}')
        image = self._image(doc)
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
                       lifecycle=self._lifecycle(doc, measurements), frontdoor=self._frontdoor(doc, measurements),
                       fork_server=ForkServer(doc.fork_server.enabled, tuple(doc.fork_server.preload),
                                              tuple(doc.fork_server.per_start),
                                              tuple(doc.fork_server.unused_paths)), image=image,
                       side_by_side=doc.side_by_side, trials_in_place=doc.trials_in_place, sidecars=self._sidecars(doc, volumes, store), **common)

    def _image(self, doc: Document) -> OwnImage | None:
        """The driver folder and the row's own image: without ``image`` the folder holds a driver.py (the
        lab's recipe builds it); with ``image.dockerfile`` it holds that Dockerfile; with ``image.tag`` the
        image on the engine holds the driver, and a driver folder is optional."""
        if doc.image is None:
            self._driver(doc.driver, "driver.py")
            return None
        image = OwnImage(dockerfile=doc.image.dockerfile, tag=doc.image.tag)
        if image.dockerfile:
            self._driver(doc.driver, image.dockerfile, "image.dockerfile")
        elif doc.driver:
            self._driver(doc.driver, None)
        return image

    def _driver(self, driver: str | None, needs: str | None, needs_field: str = "driver") -> None:
        """A folder under images/ by name, or ./path from the profile (never climbing out with ..), or an
        absolute path; it holds the file ``needs`` (driver.py, or the own image's Dockerfile)."""
        if not driver:
            fix = ("name the folder holding the Dockerfile (a folder under images/, or ./path from this profile)"
                   if needs_field == "image.dockerfile" else "name a folder under images/ (or ./path from this profile)")
            raise self.fail("driver", "missing", fix)
        relative = not driver.startswith("/")
        if relative and not driver.startswith("."):
            problem = names.bad_name(driver)
            if problem or not (IMAGES_DIR / driver).resolve().is_relative_to(IMAGES_DIR.resolve()):
                raise self.fail("driver", f"{driver!r} is not a folder name under images/",
                                "name a folder of images/, or write ./path to a folder beside this profile")
        elif relative and ".." in PurePosixPath(driver).parts:
            raise self.fail("driver", "the path climbs out of the profile's folder with '..'",
                            "put the driver folder beside the profile (driver: ./my-driver) or give an absolute path")
        folder = driver_dir(driver, self.path)
        if not folder.is_dir():
            raise self.fail("driver", f"no folder {folder}", "name a folder under images/ (or ./path from this profile)")
        if needs == "driver.py" and not (folder / needs).is_file():
            raise self.fail("driver", f"no driver.py in {folder}",
                            "name a folder under images/ (or ./path from this profile) holding a driver.py, "
                            "or give the row its own image (image: {dockerfile: Dockerfile})")
        if needs and needs != "driver.py" and not (folder / needs).is_file():
            raise self.fail(needs_field, f"no file {needs} in the driver folder {folder}",
                            "put the image's Dockerfile in the driver folder and name it relative to it")

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

    def _lifecycle(self, doc: Document, measurements: tuple[str, ...]) -> LifecycleSpec | None:
        """What the lifecycle gate may ask of the SUT (TTL, tenants, its own update, erase)."""
        if "lifecycle" not in measurements:
            if doc.lifecycle is not None:
                raise self.fail("lifecycle", "a lifecycle block on a row that the lifecycle gate does not measure",
                                "add lifecycle to measurements, or remove the block")
            return None
        caps = (doc.lifecycle.capabilities if doc.lifecycle else [])
        scope = (doc.lifecycle.scope if doc.lifecycle else None) or ("separate" if "tenants" in caps else "folded")
        if (scope == "separate") != ("tenants" in caps):
            raise self.fail("lifecycle.scope", "scope is separate (with the tenants capability) or folded "
                            "(tenant and user folded into one context)", "make scope and capabilities agree")
        return LifecycleSpec(capabilities=frozenset(caps), scope=scope,
                             isolation=doc.lifecycle.isolation if doc.lifecycle else None)

    def _frontdoor(self, doc: Document, measurements: tuple[str, ...]) -> FrontdoorSpec | None:
        """Where the SUT keeps a write's label and signature, and who keeps contexts apart."""
        if "frontdoor" not in measurements:
            if doc.frontdoor is not None:
                raise self.fail("frontdoor", "a frontdoor block on a row that the front door does not measure",
                                "add frontdoor to measurements, or remove the block")
            return None
        if doc.frontdoor is None:
            raise self.fail("frontdoor", "a row the front door measures must say who keeps its contexts apart",
                            "add frontdoor: {isolation: sut|separate-store|driver, label: ..., signature: ...}")
        if doc.frontdoor.signature is not None and doc.frontdoor.label is None:
            raise self.fail("frontdoor.signature", "a signature with no label: a channel's signature vouches "
                            "for its label", "name the SUT's label mechanism too, or remove signature")
        return FrontdoorSpec(isolation=doc.frontdoor.isolation, label=doc.frontdoor.label,
                             signature=doc.frontdoor.signature, stored=self._stored(doc))

    def _stored(self, doc: Document) -> StoredSpec | None:
        """Where each case's store is read back with the SUT stopped (proven stored), checked as an at-rest
        layout is: files on a declared adversary volume, at a path inside it, or a table in a declared
        service whose data volume is the adversary's."""
        if doc.frontdoor.stored is None:
            return None
        where = "frontdoor.stored"
        try:
            spec = parse_stored(doc.frontdoor.stored)
        except LayoutError as exc:
            raise self.fail(f"{where}.{exc.field}", exc.message, exc.fix) from None
        except ValidationError as exc:
            first = exc.errors()[0]
            raise self.fail(".".join([where, *map(str, first["loc"])]), first["msg"], "give stored: {store: "
                            "{backend: ..., file: frontdoor/{case}/...}, label: {field: ..., path: [...]}, "
                            "signature: null}") from None
        layout = spec.layout("case-1")
        if spec.in_service:  # read with the service started alone on its volume, the SUT stopped
            service = doc.services.get(layout.service or "")
            if service is None:
                raise self.fail(f"{where}.store.service", f"no service {layout.service!r} declared",
                                "name the service (services:) whose server keeps each case's store")
            volume = service.volume
        else:
            volume = layout.volume
            self._checked(f"{where}.store.file", names.bad_relative(layout.file))
        self._adversary_volume(doc, f"{where}.store.volume", volume, "store")
        if spec.per_file is not None:  # the entries a label is kept in per file: on an adversary volume too
            beside = spec.per_file.layout("case-1")
            self._checked(f"{where}.per_file.store.file", names.bad_relative(beside.file))
            self._adversary_volume(doc, f"{where}.per_file.store.volume", beside.volume, "entries")
        for part in ("label", "signature"):  # what a channel hands the SUT is what is read back
            if getattr(doc.frontdoor, part) is not None and getattr(spec, part) is None:
                raise self.fail(f"{where}.{part}", f"the SUT keeps a {part} (frontdoor.{part}), but the read-back "
                                "does not say where it is stored", f"give {part}: {{field: ..., path: [...]}}, "
                                "the place in a stored record that holds it")
        return spec

    def _adversary_volume(self, doc: Document, field: str, volume: str, what: str) -> None:
        """A read-back's ``volume`` must be one the adversary holds (else a ProfileError at ``field``)."""
        if not doc.volumes.get(volume) or not doc.volumes[volume].adversary:
            raise self.fail(field, f"volume {volume!r} is not an adversary volume",
                            f"keep each case's {what} on a volume declared with adversary: true")

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
