"""The base of every front-door result type: a frozen record that round-trips through plain JSON.

``to_json`` gives plain data (dicts, lists, strings, numbers); ``from_json`` reads it back to an equal
record.
"""

from __future__ import annotations

from typing import Any, Self

from pydantic import BaseModel, ConfigDict


class Record(BaseModel):
    """A frozen, strictly typed record that round-trips through plain JSON data."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        return cls.model_validate(data)

