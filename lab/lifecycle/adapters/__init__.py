"""The adapter protocol: how the lifecycle runner talks to a SUT.

An adapter turns the scenario ops (write, correct, delete, advance_time, query)
into one SUT's own operations. Two implementations: ``driver.DriverAdapter``
(any SUT driver speaking the driver protocol, through a runtime) and
``http.HttpAdapter`` (a team's own service behind the HTTP shim contract).

An adapter observes; it never judges. A mutation the SUT refuses (Ack not ok),
that exceeds its timeout or that never shows raises :class:`AdapterError` with
the measured latency: a harness fault, never a verdict. Every mutation is
confirmed before the next step: a driver's from its acknowledgement (the erase
names the records it erased), an HTTP shim's by polling its query until the
written value is served, or the deleted one no longer is (``Ack.confirm``: how
long it took, in how many queries). A scenario's own queries are asked once and
never polled for an expected value.

Two optional parts, for the lab's additions (docs/lifecycle.md): ``volumes()`` (volume name ->
host folder of the SUT's raw store, scanned for erasure at rest; see :func:`volumes_of`)
and ``restart(while_stopped=None)`` (stop the SUT and its services, call ``while_stopped``,
start it as a new process; see :func:`can_restart`). An adapter without them (the HTTP
shim) is not scanned and cannot take the restarted position.

May import: the standard library and ``lab.lifecycle.scenario`` (types only).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:  # the Scope type lives in scenario.py; only annotations use it here
    from lab.lifecycle.scenario import Scope

__all__ = ["Ack", "Adapter", "AdapterError", "CAPABILITIES", "Served", "can_restart", "volumes_of"]

#: What an adapter may declare: TTL + advance_time; its own update for
#: ``correct``; tenant and user kept apart (else folded into one context);
#: per-record erasure for ``delete`` (without it deletes and rescopes are not sent).
CAPABILITIES = frozenset({"ttl", "update", "tenants", "erase"})


def volumes_of(adapter: object) -> dict[str, Path]:
    """The adapter's volumes (name -> host folder); {} when it exposes none."""
    get = getattr(adapter, "volumes", None)
    return dict(get()) if callable(get) else {}


def can_restart(adapter: object) -> bool:
    """Whether the adapter can stop its SUT and start it as a new process."""
    return callable(getattr(adapter, "restart", None)) and getattr(adapter, "restartable", True)


@dataclass(frozen=True)
class Served:
    """What the SUT served for one query."""

    records: list[dict]  # each {"text": str, "meta": {...}} as the SUT served it (for display)
    text: str  # what the judge reads as the answer: the agent's answer, or every record read whole, one a line
    raw: dict  # the SUT's answer as an object (a driver's; {} where ``body`` keeps it as received)
    seconds: float
    retrieved: list[str] | None = None  # what reached the agent, when the SUT says so apart from its answer
    body: str | None = None  # the answer's bytes as received, decoded as UTF-8 (an HTTP shim's: the evidence)

    def to_json(self) -> dict:
        """The served answer, JSON-ready (``retrieved`` only when the SUT said, ``body`` only when kept)."""
        out = {"records": self.records, "text": self.text, "raw": self.raw, "seconds": self.seconds}
        if self.retrieved is not None:
            out["retrieved"] = self.retrieved
        if self.body is not None:
            out["body"] = self.body
        return out


@dataclass(frozen=True)
class Ack:
    """The SUT's acknowledgement of one mutation (``confirm``: how its effect was confirmed)."""

    ok: bool
    seconds: float
    raw: dict
    detail: str = ""
    confirm: dict | None = None

    def to_json(self) -> dict:
        """The acknowledgement, JSON-ready (``detail`` and ``confirm`` only when set)."""
        out = {"ok": self.ok, "seconds": self.seconds, "raw": self.raw}
        if self.detail:
            out["detail"] = self.detail
        if self.confirm is not None:
            out["confirm"] = self.confirm
        return out


class AdapterError(Exception):
    """A harness fault (exit 2): the message names what happened and the fix."""


@runtime_checkable
class Adapter(Protocol):
    """One SUT, as the lifecycle runner sees it."""

    name: str
    capabilities: frozenset[str]  # a subset of CAPABILITIES

    def describe(self) -> dict:
        """sut, version, libraries, capabilities, how scope is folded."""
        ...

    def begin(self, namespace: str, seed: int = 0) -> None:
        """A fresh, isolated memory for one scenario run (``seed``: the run's, for SUTs that take one)."""
        ...

    def write(self, scope: Scope, key: str, value: str, ttl_steps: int | None) -> Ack:
        """Store ``value`` under ``key`` in ``scope`` (TTL only with "ttl")."""
        ...

    def correct(self, scope: Scope, key: str, value: str) -> Ack:
        """Supersede the current value of ``key`` in ``scope``."""
        ...

    def delete(self, scope: Scope, key: str) -> Ack:
        """Delete ``key``'s whole history in ``scope``."""
        ...

    def advance_time(self, steps: int) -> Ack:
        """Advance the SUT's logical clock (only with "ttl")."""
        ...

    def query(self, scope: Scope, prompt: str) -> Served:
        """What the SUT serves an agent in ``scope`` asking ``prompt``."""
        ...

    def close(self) -> None:
        """Stop the SUT and release everything the adapter holds."""
        ...
