"""One row's front-door result: every fixture and isolation case with what the store saw and served,
and the figures derived from them.

``to_json`` adds the derived figures (cells, level, probe tallies) beside the evidence; ``from_json``
recomputes them from the per-fixture verdicts and refuses data whose figures do not match.
"""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import ConfigDict, Field

from lab.frontdoor.as_sent import not_as_sent
from lab.frontdoor.channels import CHANNELS, Channel, Forgery
from lab.frontdoor.fixture_types import FAMILIES, Family
from lab.frontdoor.fixtures import BY_ID, FIXTURES_VERSION, utility_for
from lab.frontdoor.observations import ReadSeen, Role, Stored, WriteSeen
from lab.frontdoor.records import Record
from lab.frontdoor.scope import Scope
from lab.frontdoor.probes import SECRETS
from lab.lifecycle.matching import RULES
from lab.frontdoor.verdicts import (BEFORE_4, CURRENT, Cell, Decision, Rules, Tally, cell, decide, decide_leak, level,
                                    tally)

#: 2: the position (live or restarted), the row's SUT side (where its label and signature go, and
#: which channels it can tell apart), and why the SUT refused a write. 3: each fixture's case and its
#: store read back with the SUT stopped (proven stored, the front door's C3), its attack's rewording,
#: and the filler written before every fixture (the scale tier). 4: judged by the rules of
#: ``verdicts.Rules``: an isolation case leaks either way (the reader's memory served to the owner too)
#: and a leak seen needs no control; a stored text is found with its spacing and case folded; a refused
#: attack is REJECTED, and one served only under the SUT's marker MARKED, whatever the trust filter served.
SCHEMA = "memlab.frontdoor-row/4"
SCHEMA_V3 = "memlab.frontdoor-row/3"
SCHEMA_V2 = "memlab.frontdoor-row/2"
SCHEMA_V1 = "memlab.frontdoor-row/1"


def rules_of(schema: str) -> Rules:
    """The rules a row of ``schema`` was judged by: those before schema 4 for schemas 1-3."""
    return BEFORE_4 if schema in (SCHEMA_V1, SCHEMA_V2, SCHEMA_V3) else CURRENT


DERIVED = ("cells", "level", "probes", "channels", "isolation_figures")


class PoisoningOutcome(Record):
    """One fixture on one channel in a fresh store."""

    fixture: str
    family: Family
    channel: Channel
    forgery: Forgery | None = None
    writes: tuple[WriteSeen, ...]
    reads: tuple[ReadSeen, ...]
    decision: Decision
    case: str | None = None  # the SUT's name of the fixture's own store (row schema 3)
    variant: int = 0  # the attack as written (0) or in rewording n (lab.frontdoor.rewording; schema 3)
    stored: Stored | None = None  # that store read back with the SUT stopped; None: not proven (schema 3)

    def redecided(self, stored: Stored | None, revision: int) -> PoisoningOutcome:
        """This outcome with its store read back, and its verdict decided again with it."""
        fixture = BY_ID[self.fixture]
        return self.model_copy(update={"stored": stored, "decision": decide(
            fixture, utility_for(fixture), self.writes, self.reads, revision, stored)})


class IsolationOutcome(Record):
    """One secret across one (owner, reader) pair of a probe, in a fresh store."""

    probe: str
    secret: str
    owner: Scope
    reader: Scope
    writes: tuple[WriteSeen, ...]
    reads: tuple[ReadSeen, ...]
    decision: Decision


class SutSide(Record):
    """A row measured through its SUT's driver: the row, where the SUT keeps a write's label and signature
    (None: nowhere), the channels measured (one where the SUT has no label: the channels are one write),
    and the runtime it ran on."""

    row: str
    label: str | None
    signature: str | None
    channels: tuple[Channel, ...]
    runtime: str


class FrontdoorResult(Record):
    """A row (one store) measured on every family x channel x fixture and every isolation probe."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    schema_: str = Field(SCHEMA, alias="schema")
    store: str
    fixtures_version: int
    judge_revision: int  # the lifecycle judge's revision that decided what was served (lab.lifecycle.matching.RULES)
    #: Who keeps contexts apart on the read path: the store (sut), one store per context, or a driver's own
    #: key or filter.
    enforcer: Literal["sut", "separate-store", "driver"]
    trust_root: str  # the genuine writer's public key (hex) the store was configured with
    position: Literal["live", "restarted"] = "live"  # restarted: every read after the SUT was restarted
    sut: SutSide | None = None  # None: a calibration store or a team's shim
    filler: int = 0  # unrelated genuine memories written before every fixture (the scale tier; schema 3)
    poisoning: tuple[PoisoningOutcome, ...]
    isolation: tuple[IsolationOutcome, ...]

    def cells(self) -> list[Cell]:
        """Every family x channel present, in the families' and channels' order."""
        out = []
        for family in FAMILIES:
            for channel in CHANNELS:
                verdicts = [o.decision.verdict for o in self.poisoning if o.family is family and o.channel is channel]
                if verdicts:
                    out.append(cell(family, channel, verdicts))
        return out

    def cell_at(self, family: Family, channel: Channel) -> Cell:
        return next(c for c in self.cells() if c.family is family and c.channel is channel)

    def level(self) -> str:
        return level(self.cells())

    def probes(self) -> list[Tally]:
        names = list(dict.fromkeys(o.probe for o in self.isolation))
        return [tally(name, [o.decision.verdict for o in self.isolation if o.probe == name]) for name in names]

    def channels(self) -> dict[str, dict[str, int]]:
        """Per channel, summed over every family (beyond-reach cells too): fixtures served as genuine,
        fixtures, fixtures without a verdict."""
        return {ch.value: {k: sum(getattr(c, k) for c in self.cells() if c.channel is ch)
                           for k in ("served", "total", "no_verdict")} for ch in CHANNELS}

    def isolation_figures(self) -> dict[str, Any]:
        """Who keeps contexts apart, each probe's leaks of its cases, and the at-rest T6 verdict beside it
        (none for a store measured only here)."""
        return {"enforcer": self.enforcer, "t6": None,
                "probes": {t.probe: {"leaks": t.leaks, "total": t.total, "no_verdict": t.no_verdict}
                           for t in self.probes()}}

    def proven(self) -> tuple[int, int] | None:
        """Attack writes read back as sent from the SUT's stopped store (the front door's C3), over those
        it accepted; None where the row was not read back (no ``frontdoor.stored``, a shim, a
        calibration store)."""
        read_back = [o for o in self.poisoning if o.stored is not None]
        if not read_back:
            return None

        def accepted(o: PoisoningOutcome) -> list[WriteSeen]:
            return [w for w in o.writes if w.role == Role.ATTACK and w.accepted]

        as_sent = sum(len(accepted(o)) for o in read_back if not_as_sent(accepted(o), o.stored) is None)
        return as_sent, sum(len(accepted(o)) for o in read_back)

    def derived(self) -> dict[str, Any]:
        return {"cells": [{**c.to_json(), "status": c.status, "figure": c.figure} for c in self.cells()],
                "level": self.level(),
                "probes": [{**t.to_json(), "status": t.status, "figure": t.figure} for t in self.probes()],
                "channels": self.channels(), "isolation_figures": self.isolation_figures()}

    def recheck(self) -> list[str]:
        """The cases whose saved verdict does not follow from their saved writes and reads (none when
        the fixtures are of this version); the first thing ``memlab verify`` will recompute."""
        if self.fixtures_version != FIXTURES_VERSION:
            return [f"fixtures version {self.fixtures_version}, this lab has {FIXTURES_VERSION}"]
        if self.judge_revision not in RULES:
            return [f"judge revision {self.judge_revision}, this lab has {sorted(RULES)}"]
        revision = self.judge_revision
        secrets = {s.id: s for s in SECRETS}
        rules = rules_of(self.schema_)
        out = [f"{o.fixture} on {o.channel.value}" for o in self.poisoning
               if decide(BY_ID[o.fixture], utility_for(BY_ID[o.fixture]), o.writes, o.reads, revision, o.stored,
                         rules) != o.decision]
        out += [f"{o.probe}: {o.secret}" for o in self.isolation
                if decide_leak(secrets[o.secret].owner.canary, secrets[o.secret].reader.canary, o.reads, revision,
                               rules.both_ways) != o.decision]
        return out

    def to_json(self) -> dict[str, Any]:
        data = self.model_dump(mode="json", by_alias=True)
        return {**data, **self.derived()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        result = cls.model_validate({k: v for k, v in data.items() if k not in DERIVED})
        stated = {k: data[k] for k in DERIVED if k in data}
        recomputed = result.derived()
        wrong = [k for k, v in stated.items() if v != recomputed[k]]
        if wrong:
            raise ValueError(f"figures that do not follow from the outcomes: {', '.join(wrong)}")
        return result
