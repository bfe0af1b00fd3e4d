"""The blocks of a profile that belong to one measurement, checked: ``lifecycle`` (what the gate may
ask of the SUT, its scope), ``frontdoor`` (who keeps contexts apart, the SUT's label and signature,
and where each case's store is read back with the SUT stopped, on a volume the adversary holds) and
``for_users`` (a line per measurement). A block, or a line, on a row its measurement does not take
is an error. Each error is the validator's ``fail``: its
line and the fix."""

from __future__ import annotations

from pydantic import ValidationError

from edits.layout import LayoutError
from lab.profile import names
from lab.profile.model import Fail, ForUsers, FrontdoorSpec, LifecycleSpec
from lab.profile.schema import Document
from lab.profile.stored import StoredSpec, parse_stored


def _not_measured(doc: Document, block: str, measurement: str, measurements: tuple[str, ...], fail: Fail) -> bool:
    """Whether the row does not take the measurement ``block`` names; then it must have no such block."""
    if block in measurements:
        return False
    if getattr(doc, block) is not None:
        raise fail(block, f"a {block} block on a row that {measurement} does not measure",
                   f"add {block} to measurements, or remove the block")
    return True


def lifecycle_spec(doc: Document, measurements: tuple[str, ...], fail: Fail) -> LifecycleSpec | None:
    """What the lifecycle gate may ask of the SUT (TTL, tenants, its own update, erase)."""
    if _not_measured(doc, "lifecycle", "the lifecycle gate", measurements, fail):
        return None
    caps = (doc.lifecycle.capabilities if doc.lifecycle else [])
    scope = (doc.lifecycle.scope if doc.lifecycle else None) or ("separate" if "tenants" in caps else "folded")
    if (scope == "separate") != ("tenants" in caps):
        raise fail("lifecycle.scope", "scope is separate (with the tenants capability) or folded "
                   "(tenant and user folded into one context)", "make scope and capabilities agree")
    return LifecycleSpec(capabilities=frozenset(caps), scope=scope,
                         isolation=doc.lifecycle.isolation if doc.lifecycle else None)


def frontdoor_spec(doc: Document, measurements: tuple[str, ...], fail: Fail) -> FrontdoorSpec | None:
    """Where the SUT keeps a write's label and signature, and who keeps contexts apart."""
    if _not_measured(doc, "frontdoor", "the front door", measurements, fail):
        return None
    if doc.frontdoor is None:
        raise fail("frontdoor", "a row the front door measures must say who keeps its contexts apart",
                   "add frontdoor: {isolation: sut|separate-store|driver, label: ..., signature: ...}")
    if doc.frontdoor.signature is not None and doc.frontdoor.label is None:
        raise fail("frontdoor.signature", "a signature with no label: a channel's signature vouches "
                   "for its label", "name the SUT's label mechanism too, or remove signature")
    return FrontdoorSpec(isolation=doc.frontdoor.isolation, label=doc.frontdoor.label,
                         signature=doc.frontdoor.signature, stored=_stored(doc, fail))


def _stored(doc: Document, fail: Fail) -> StoredSpec | None:
    """Where each case's store is read back with the SUT stopped (proven stored), checked as an at-rest
    layout is: files on a declared adversary volume, at a path inside it, or a table in a declared
    service whose data volume is the adversary's."""
    if doc.frontdoor.stored is None:
        return None
    where = "frontdoor.stored"
    try:
        spec = parse_stored(doc.frontdoor.stored)
    except LayoutError as exc:
        raise fail(f"{where}.{exc.field}", exc.message, exc.fix) from None
    except ValidationError as exc:
        first = exc.errors()[0]
        raise fail(".".join([where, *map(str, first["loc"])]), first["msg"], "give stored: {store: "
                   "{backend: ..., file: frontdoor/{case}/...}, label: {field: ..., path: [...]}, "
                   "signature: null}") from None
    layout = spec.layout("case-1")
    if spec.in_service:  # read with the service started alone on its volume, the SUT stopped
        service = doc.services.get(layout.service or "")
        if service is None:
            raise fail(f"{where}.store.service", f"no service {layout.service!r} declared",
                       "name the service (services:) whose server keeps each case's store")
        volume = service.volume
    else:
        volume = layout.volume
        _checked(f"{where}.store.file", names.bad_relative(layout.file), fail)
    _adversary_volume(doc, f"{where}.store.volume", volume, "store", fail)
    if spec.per_file is not None:  # the entries a label is kept in per file: on an adversary volume too
        beside = spec.per_file.layout("case-1")
        _checked(f"{where}.per_file.store.file", names.bad_relative(beside.file), fail)
        _adversary_volume(doc, f"{where}.per_file.store.volume", beside.volume, "entries", fail)
    for part in ("label", "signature"):  # what a channel hands the SUT is what is read back
        if getattr(doc.frontdoor, part) is not None and getattr(spec, part) is None:
            raise fail(f"{where}.{part}", f"the SUT keeps a {part} (frontdoor.{part}), but the read-back "
                       "does not say where it is stored", f"give {part}: {{field: ..., path: [...]}}, "
                       "the place in a stored record that holds it")
    return spec


def _adversary_volume(doc: Document, field: str, volume: str, what: str, fail: Fail) -> None:
    """A read-back's ``volume`` must be one the adversary holds (else a ProfileError at ``field``)."""
    if not doc.volumes.get(volume) or not doc.volumes[volume].adversary:
        raise fail(field, f"volume {volume!r} is not an adversary volume",
                   f"keep each case's {what} on a volume declared with adversary: true")


def _checked(where: str, problem: names.Problem, fail: Fail) -> None:
    if problem:
        raise fail(where, *problem)


def for_users(doc: Document, measurements: tuple[str, ...], fail: Fail) -> ForUsers:
    """What the row's results mean for a user, a line for each measurement the row takes."""
    given = doc.for_users.model_dump(exclude_none=True) if doc.for_users else {}
    for measurement in given:
        if measurement not in measurements:
            raise fail(f"for_users.{measurement}", f"a line for users of the {measurement} measurement, which "
                       "this row does not take", f"add {measurement} to measurements, or remove the line")
    return ForUsers(**given)
