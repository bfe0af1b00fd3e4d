"""A refmem record: what every backend stores and returns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Record:
    """One stored record; ``seq`` is its position in its context, ``mac`` its seal (or None)."""

    id: str
    ctx: str
    seq: int
    role: str | None
    source: str | None
    ts: float | str | None
    text: str
    mac: str | None = None

    def served(self) -> dict:
        """The record as the read path serves it: id, text and metadata."""
        return {"id": self.id, "text": self.text,
                "meta": {"role": self.role, "source": self.source, "timestamp": self.ts}}


#: A sealer: the MAC of a record (refmem.seal).
Seal = Callable[[Record], str]
