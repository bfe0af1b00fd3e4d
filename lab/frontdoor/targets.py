"""What the front door measures, one row each: a store factory and how the row is to be run.

A calibration store or a team's shim is a bare factory (the store keeps its own contexts apart, live
only). A row of the lab runs through its SUT's driver: ``driver_targets`` makes its live and, where
asked, its restarted row from one ``DriverStore`` (one SUT process serves both, a fresh store per case).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lab.frontdoor.channels import CHANNELS, Channel, Message
from lab.frontdoor.driver_store import DriverStore
from lab.frontdoor.reference import MemoryStore
from lab.frontdoor.results import SutSide
from lab.frontdoor.runner import Prover

POSITIONS = ("live", "restarted")


@dataclass(frozen=True)
class Target:
    """One row to measure: ``make`` gives a fresh store from the genuine writer's public key."""

    make: Callable[[bytes], MemoryStore]
    enforcer: str = "sut"
    restart: Callable[[], object] | None = None  # set: the restarted position
    sut: SutSide | None = None
    message: Message | None = None  # the bytes the SUT verifies a signature over (None: the reference's)
    prove: Prover | None = None  # set: each case's store read back with the SUT stopped (C3)


def as_target(value: Target | Callable[[bytes], MemoryStore]) -> Target:
    return value if isinstance(value, Target) else Target(make=value)


def channels_of(label: str | None) -> tuple[Channel, ...]:
    """Every channel where the SUT keeps a label; else the one write all three would be."""
    return CHANNELS if label is not None else (Channel.UNTRUSTED,)


def driver_targets(store: DriverStore, positions: tuple[str, ...], runtime: str) -> dict[str, Target]:
    """``<row>@<position>`` -> its target, for each position asked (live, restarted)."""
    spec, row = store.spec, store.profile.row
    side = SutSide(row=row, label=spec.label, signature=spec.signature, channels=channels_of(spec.label),
                   runtime=runtime)
    return {f"{row}@{position}": Target(make=store.fresh, enforcer=spec.isolation, sut=side,
                                        restart=store.restart if position == "restarted" else None,
                                        message=store.message if spec.signature else None,
                                        prove=store.prove if spec.stored is not None else None)
            for position in positions}
