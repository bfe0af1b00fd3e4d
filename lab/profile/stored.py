"""A front-door row's ``frontdoor.stored``: where each case's store sits and how its records are laid
out, and the fields keeping a record's label and signature (read by ``lab.frontdoor.stored``)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from edits.layout import LayoutError, StoreLayout, parse_layout

CASE = "{case}"


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class FieldPath(Frozen):
    """Where a value sits in a stored record: a field and a path of keys inside it (a JSON text is read),
    and the SUT's own words for the values the lab sends (``values``: what the lab sent -> what the SUT
    stores for it, where the SUT keeps a closed vocabulary of its own)."""

    field: str
    path: tuple[str, ...] = ()
    values: dict[str, str] = {}


class StoredSpec(Frozen):
    """A row's ``frontdoor.stored``: the layout of one case's store (``file`` names ``{case}``), and where
    a record keeps its label and signature (None: the SUT keeps none)."""

    store: dict[str, Any]
    label: FieldPath | None = None
    signature: FieldPath | None = None

    def layout(self, case: str) -> StoreLayout:
        """The layout of ``case``'s store (``LayoutError`` for a bad one)."""
        return parse_layout({**self.store, "file": str(self.store.get("file", "")).replace(CASE, case)})


def parse_stored(data: Any) -> StoredSpec:
    """Validate a profile's ``frontdoor.stored`` (``ValueError``/``LayoutError`` name what is wrong)."""
    spec = StoredSpec.model_validate(data)
    if CASE not in str(spec.store.get("file", "")):
        raise LayoutError("file", "must name {case}: each case of the front door has its own store",
                          "e.g. file: frontdoor/{case}/store.db")
    spec.layout("case-1")
    return spec
