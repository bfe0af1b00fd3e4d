"""A front-door row's ``frontdoor.stored``: where each case's store sits and how its records are laid
out, and the fields keeping a record's label and signature (read by ``lab.frontdoor.stored``)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from edits import registry
from edits.layout import LayoutError, StoreLayout, parse_layout

CASE = "{case}"


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class FieldPath(Frozen):
    """Where a value sits in a stored record: a field and a path of keys inside it (a JSON text is read),
    and the SUT's own words for the values the lab sends (``values``: what the lab sent -> what the SUT
    stores for it, where the SUT keeps a closed vocabulary of its own); ``prefix``: the value sits among a
    record's tags, in no set order, as the one tag starting with ``prefix`` (``source:`` of ``source:user``)."""

    field: str
    path: tuple[str, ...] = ()
    values: dict[str, str] = {}
    prefix: str | None = None  # the value is a list of words (tags): the one word starting with it, it taken off


class PerFile(Frozen):
    """Labels a SUT keeps per file, not per record: a store beside the records' files (``store``, a layout
    naming ``{case}``) with an entry for each file, the entry of a file being the one whose ``digest``
    holds the SHA-256 of the file's bytes as stored (hex) -- the SUT's own check that the entry still
    speaks for the file. A record's label and signature are then read from its file's entry."""

    store: dict[str, Any]
    digest: FieldPath

    def layout(self, case: str) -> StoreLayout:
        return parse_layout(_filled(self.store, case))


class StoredSpec(Frozen):
    """A row's ``frontdoor.stored``: the layout of one case's store (``file`` names ``{case}``, or for a
    store in a server its ``table``), and where a record keeps its label and signature (None: the SUT
    keeps none): in the record's own fields, or, with ``per_file``, in the entry kept for its file."""

    store: dict[str, Any]
    label: FieldPath | None = None
    signature: FieldPath | None = None
    per_file: PerFile | None = None

    @property
    def backend(self) -> registry.Backend:
        """The store's backend (``LayoutError`` naming the backends for an unknown one)."""
        return registry.backend(str(self.store.get("backend")))

    @property
    def in_service(self) -> bool:
        """The store lives in a server (read with the server started alone), not in files."""
        return self.backend.kind == registry.SERVICE

    @property
    def case_field(self) -> str:
        """The layout field naming ``{case}``: ``file`` for a store in files; for one in a server its
        ``key`` pattern where the backend finds records by key (Redis), else its ``table``."""
        if not self.in_service:
            return "file"
        return "key" if any(f.name == "key" for f in self.backend.fields) else "table"

    def layout(self, case: str) -> StoreLayout:
        """The layout of ``case``'s store, ``{case}`` filled in wherever it is named (a second table of
        the layout's records too); ``LayoutError`` for a bad one."""
        return parse_layout(_filled(self.store, case))


def parse_stored(data: Any) -> StoredSpec:
    """Validate a profile's ``frontdoor.stored`` (``ValueError``/``LayoutError`` name what is wrong)."""
    spec = StoredSpec.model_validate(data)
    field = spec.case_field  # LayoutError naming the backends for an unknown one
    if CASE not in str(spec.store.get(field, "")):
        example = {"table": "table: frontdoor_{case}.store", "key": 'key: "frontdoor:{case}:mem:{context}:{id}"'}.get(
            field, "file: frontdoor/{case}/store.db")
        raise LayoutError(field, "must name {case}: each case of the front door has its own store", f"e.g. {example}")
    spec.layout("case-1")
    if spec.per_file is not None:
        _check_per_file(spec)
    return spec


def _check_per_file(spec: StoredSpec) -> None:
    """Labels kept per file: the records in files, and the entries in a store in files of each case's own
    (a ``LayoutError`` naming the field under ``per_file``)."""
    if spec.in_service:
        exc = LayoutError("", "labels kept per file need the records' store in files",
                          "drop per_file, or lay out the records' store in files")
        exc.field = "per_file"
        raise exc
    try:
        if registry.backend(str(spec.per_file.store.get("backend"))).kind == registry.SERVICE:
            raise LayoutError("backend", "the entries must be kept in files", "give a backend of files (sqlite, ...)")
        if CASE not in str(spec.per_file.store.get("file", "")):
            raise LayoutError("file", "must name {case}: each case keeps its own entries",
                              "e.g. file: frontdoor/{case}/state.db")
        spec.per_file.layout("case-1")
    except LayoutError as exc:  # named as a field of per_file, not of the records' store
        exc.field = f"per_file.{exc.field}"
        raise


def _filled(value: Any, case: str) -> Any:
    """``value`` with ``{case}`` replaced by ``case`` in every string inside it."""
    if isinstance(value, str):
        return value.replace(CASE, case)
    if isinstance(value, dict):
        return {k: _filled(v, case) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_filled(v, case) for v in value]
    return value
