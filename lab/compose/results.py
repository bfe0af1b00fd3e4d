"""The compose row: what a row's composition searched at one detection point and what each sequence gave.

Typed and versioned, strict and closed, frozen; ``to_json`` gives the row as it is written and
``read_row`` reads it back by the schema it names, so a later schema never orphans a published set.
``memlab.compose-row/1`` is a row of sequences holding one edit each (every set written before pairs
were searched); ``memlab.compose-row/2`` adds ``edits``, how many edits a sequence may hold (2: pairs).
A row of one edit per sequence is written as ``/1``, exactly as before. ``memlab.compose-row/3`` states
``edits`` and ``restores``: true when the restore cases (T9, T10) were offered as moves (every
composition since restore moves; the rows before, ``/1`` and ``/2``, left them out).

    >>> row = ComposeRow(row="r", detection_point="read", length=2, method_revision="x", lab=None,
    ...                  run_id="id", date=None, offered=["T3", "write"], skipped=[], sequences=[])
    >>> read_row(row.to_json()) == row, row.findings, row.counts["finding"], "edits" in row.to_json()
    (True, [], 0, False)
    >>> pairs = row.model_copy(update={"edits": 2})
    >>> pairs.to_json()["schema"], pairs.to_json()["edits"], read_row(pairs.to_json()) == pairs
    ('memlab.compose-row/2', 2, True)
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, computed_field

SCHEMA = "memlab.compose-row/1"
#: The schema of a row whose sequences may hold a pair of edits (it states ``edits``).
SCHEMA_PAIRS = "memlab.compose-row/2"
#: The schema of a row whose search offered the restore cases as moves (it states ``edits`` and ``restores``).
SCHEMA_RESTORES = "memlab.compose-row/3"
SCHEMAS = (SCHEMA, SCHEMA_PAIRS, SCHEMA_RESTORES)
#: What a sequence gave: a finding (it lands, none of its moves lands alone, no shorter sequence of its
#: moves lands), it did not land (held), a move of it already lands alone or a shorter sequence of its
#: moves does (not a finding: its harm is there), or it cannot be decided (a harness error, an edit
#: that did not land, a single with no verdict).
OUTCOMES = ("finding", "held", "single-lands", "shorter-lands", "inconclusive")
Outcome = Literal["finding", "held", "single-lands", "shorter-lands", "inconclusive"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Single(_Model):
    """One move of a sequence run alone on the same seed and target: did it land, and why (None: no
    verdict)."""

    move: str
    trial: str
    landed: bool | None
    reason: str


class Skipped(_Model):
    """A move the search left out, and why."""

    move: str
    reason: str


class SequenceResult(_Model):
    """One sequence tried: its moves, its outcome and why, each single, and the evidence."""

    sequence: list[str]
    verdict: Outcome
    reason: str
    singles: list[Single]
    trial: str
    served: list[Any] | None = None


class ComposeRow(_Model):
    """The composition of one row at one detection point (``edits``: how many edits a sequence may hold;
    its schema follows from it)."""

    row: str
    detection_point: str
    length: int
    method_revision: str
    lab: Any
    run_id: str | None
    date: str | None
    offered: list[str]
    skipped: list[Skipped]
    sequences: list[SequenceResult]
    edits: Literal[1, 2] = 1
    restores: bool = False

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    @computed_field
    @property
    def counts(self) -> dict[str, int]:
        """Sequences per outcome."""
        return {o: sum(s.verdict == o for s in self.sequences) for o in OUTCOMES}

    @computed_field
    @property
    def findings(self) -> list[SequenceResult]:
        """The sequences that land where none of their moves lands alone."""
        return [s for s in self.sequences if s.verdict == "finding"]

    def to_json(self) -> dict[str, Any]:
        """The row as written: ``/3`` with restore moves; else ``/1`` without ``edits`` for one edit per
        sequence, as every row before pairs, ``/2`` with it; ``restores`` only in ``/3``."""
        data = self.model_dump(mode="json")
        if self.restores:
            return {"schema": SCHEMA_RESTORES, **data}
        del data["restores"]
        if self.edits == 1:
            del data["edits"]
        return {"schema": SCHEMA if self.edits == 1 else SCHEMA_PAIRS, **data}


def read_row(data: Any, where: str = "<row>") -> ComposeRow:
    """A compose row from its JSON, by the schema it names (``ValueError`` naming ``where`` and the field):
    ``/1`` holds no ``edits`` (one per sequence), ``/2`` states it."""
    if not isinstance(data, dict) or data.get("schema") not in SCHEMAS:
        got = data.get("schema") if isinstance(data, dict) else type(data).__name__
        raise ValueError(f"{where}: schema {got!r}; this lab reads {' or '.join(map(repr, SCHEMAS))}")
    for field, stating in (("edits", (SCHEMA_PAIRS, SCHEMA_RESTORES)), ("restores", (SCHEMA_RESTORES,))):
        if (data["schema"] in stating) != (field in data):
            raise ValueError(f"{where}: field {field}: {data['schema']} " + ("states it" if field in data
                                                                              else "does not state it"))
    body = {k: v for k, v in data.items() if k not in ("schema", "counts", "findings")}
    try:
        row = ComposeRow.model_validate(body)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ValueError(f"{where}: field {'.'.join(map(str, first['loc']))}: {first['msg']}") from None
    if row.to_json() != data:
        raise ValueError(f"{where}: its counts or findings are not those of its sequences")
    return row
