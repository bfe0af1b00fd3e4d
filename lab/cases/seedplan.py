"""The seed plan: the records the lab writes through the SUT, chosen by the lab.

Two contexts A and B, five records each by default (the method's minimum; ``records`` asks for
more), distinct values everywhere. Every
record text carries a unique *marker* (``mA2-k3j9q1``) by which generic tooling
finds it in any encoding (text, JSON, msgpack), and record 2 of each context
carries a distinctive fact (FA, FB). Replacement tokens (the tampered fact, the
forged marker) have the same length as what they replace, so a T1/T5 edit keeps
length-prefixed encodings valid.
"""

from __future__ import annotations

import random
import re
import string
from dataclasses import asdict, dataclass
from typing import Any

from lab import RECORDS_PER_CONTEXT

FACT_INDEX = 2
MARKER_RE = re.compile(r"m[A-Z][0-9]-[a-z0-9]{6}")

_TOPICS = {
    "A": ["tea", "city", "river", "poet", "tool", "ship"],
    "B": ["bread", "island", "song", "planet", "garden", "clock"],
}
_VALUES = {
    "A": ["oolong", "Lisbon", "Douro", "Pessoa", "chisel", "caravel"],
    "B": ["rye", "Skye", "requiem", "Neptune", "Sissinghurst", "pendulum"],
}


@dataclass(frozen=True)
class SeedRecord:
    """One record the lab writes: its context label, index, marker, text and metadata."""

    label: str
    index: int
    marker: str
    text: str
    meta: dict[str, Any]
    fact: str | None = None


@dataclass(frozen=True)
class SeedPlan:
    """Everything the lab writes and the tokens its edits use, from one nonce."""

    nonce: str
    contexts: dict[str, str]
    records: tuple[SeedRecord, ...]
    facts: dict[str, str]
    tampered_fact: str
    forged_marker: str

    def of(self, label: str) -> list[SeedRecord]:
        """The seeded records of context ``label`` in write order."""
        return [r for r in self.records if r.label == label]

    @property
    def per_context(self) -> int:
        """How many records each context was seeded with."""
        return len(self.of("A"))

    def extra(self, label: str, offset: int) -> SeedRecord:
        """A further genuine record (C2, T9) of context ``label``, ``offset`` places after the seeded ones."""
        index = self.per_context + offset
        return _record(self.nonce, label, index, self.contexts[label], random.Random(f"{self.nonce}{index}"))

    def to_json(self) -> dict[str, Any]:
        """The plan as plain data (saved with every observation set)."""
        return {
            "nonce": self.nonce, "contexts": dict(self.contexts),
            "records": [asdict(r) for r in self.records], "facts": dict(self.facts),
            "tampered_fact": self.tampered_fact, "forged_marker": self.forged_marker,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "SeedPlan":
        """Rebuild a plan saved with :meth:`to_json`."""
        return cls(nonce=data["nonce"], contexts=dict(data["contexts"]),
                   records=tuple(SeedRecord(**r) for r in data["records"]), facts=dict(data["facts"]),
                   tampered_fact=data["tampered_fact"], forged_marker=data["forged_marker"])


def make_plan(nonce: str | None = None, records: int = RECORDS_PER_CONTEXT) -> SeedPlan:
    """A fresh seed plan of ``records`` per context; the same ``nonce`` and count give the same plan.
    Every marker is unique in the plan (a token drawn again on the rare collision)."""
    if records < RECORDS_PER_CONTEXT:
        raise ValueError(f"records per context: {records} is below the method's minimum of {RECORDS_PER_CONTEXT}")
    nonce = nonce or "".join(random.SystemRandom().choices(string.ascii_lowercase + string.digits, k=8))
    rng = random.Random(nonce)
    contexts = {"A": f"memlab-a-{nonce}", "B": f"memlab-b-{nonce}"}
    facts = {label: f"F{label}-{_token(rng, 8, upper=True)}" for label in contexts}
    planned: list[SeedRecord] = []
    taken: set[str] = set()
    for label, ctx in contexts.items():
        for i in range(records):
            fact = facts[label] if i == FACT_INDEX else None
            record = _record(nonce, label, i, ctx, rng, fact)
            while record.marker in taken:
                record = _record(nonce, label, i, ctx, rng, fact)
            taken.add(record.marker)
            planned.append(record)
    records_ = tuple(planned)
    return SeedPlan(nonce=nonce, contexts=contexts, records=records_, facts=facts,
                    tampered_fact=f"FX-{_token(rng, 8, upper=True)}",
                    forged_marker=f"mZ9-{_token(rng, 6)}")


def markers_in(text: str) -> list[str]:
    """Every seeded marker found in a served or stored text."""
    return MARKER_RE.findall(text or "")


def _record(nonce: str, label: str, index: int, ctx: str, rng: random.Random,
            fact: str | None = None) -> SeedRecord:
    marker = f"m{label}{index % 10}-{_token(rng, 6)}"
    if fact:
        text = f"[{marker}] the vault passphrase of {ctx} is {fact}"
    else:
        topics, values = _TOPICS[label], _VALUES[label]
        text = (f"[{marker}] note {index} of {ctx}: the favourite {topics[index % len(topics)]} "
                f"is {values[index % len(values)]}")
    return SeedRecord(label=label, index=index, marker=marker, text=text,
                      meta={"role": "user", "source": "memlab-seed"}, fact=fact)


def _token(rng: random.Random, n: int, upper: bool = False) -> str:
    alphabet = (string.ascii_uppercase if upper else string.ascii_lowercase) + string.digits
    return "".join(rng.choices(alphabet, k=n))
