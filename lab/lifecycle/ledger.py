"""The lifecycle ledger: the pure state machine with logical time that owns the truth.

Never a model, never the SUT: the ledger replays a scenario's steps and says, at any query,
what every value ever written *is* for the querying scope. Semantics (docs/lifecycle.md, made exact):

- ``write``/``correct`` appends a value to the history of (scope, key); the newest entry of a
  history is the key's value there, every older entry is superseded (stale). ``correct`` is a
  write without TTL.
- ``delete`` marks the key's *whole* history in that scope deleted (a later write re-adds).
- ``rescope`` = delete at the old scope + write of the current value at the new scope, carrying
  its absolute expiry (so a TTL keeps running); with no current value it only deletes.
- ``advance_time {steps}`` is the only thing that moves logical time (``now``, from 0).
  A value written at time t with ``ttl_steps`` n is **expired when now >= t + n** — if it was
  still the key's value then: one superseded before its TTL ran out stays stale (as the peer
  gate's ledger has it: only a current value expires). ``ttl_steps: 1`` lives until the next
  ``advance_time``. ``Ledger(ttl=False)`` ignores TTLs (for a SUT that cannot express them:
  nothing expires, so no value is labelled expired).
- ``query`` changes nothing.

Labels against a querying scope Q, per entry: another tenant's entry is ``foreign_tenant``;
another user's in Q's tenant is ``foreign_user``; Q's own entries are ``deleted``, ``expired``
and/or ``stale`` (superseded), else ``current``. One value string can carry several labels (its
entries differ, or one entry expired and was superseded after); the value's label is the first
of PRECEDENCE that it carries::

    current > deleted > foreign_tenant > foreign_user > expired > stale

Why: *current first* — serving a value that is current for Q is never a violation, whatever it
is elsewhere. Then P1 before P2, so an ambiguous value is judged at the graver severity and a
gate is never under-reported. Within P1, Q's own history explains a value before other scopes
do: after a rescope alice -> bob the value is deleted for alice *and* bob's; a store that ignored
the delete serves alice her own old record, which is deletion residue (so a store that ignores
deletes but keeps scopes apart shows no scope leakage, as the peer's ``naive`` figures say).
Another tenant outranks another user (the wider breach). Within P2, by how gone the value must
be: expired (gone by time) before stale (superseded; may be kept as history).

Example::

    ledger = Ledger()
    for step in scenario.steps:
        if step.op == "query":
            labelled = ledger.known(step.scope)
        ledger.apply(step)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from lab.lifecycle.scenario import Scope, Step


class Label(str, Enum):
    """What a known value is for the querying scope."""

    CURRENT = "current"
    STALE = "stale"
    EXPIRED = "expired"
    DELETED = "deleted"
    FOREIGN_USER = "foreign_user"
    FOREIGN_TENANT = "foreign_tenant"


PRECEDENCE: tuple[Label, ...] = (Label.CURRENT, Label.DELETED, Label.FOREIGN_TENANT,
                                 Label.FOREIGN_USER, Label.EXPIRED, Label.STALE)


@dataclass(frozen=True)
class Known:
    """One distinct value string, labelled against a querying scope (``written_at``: step index)."""

    key: str
    value: str
    scope: Scope
    label: Label
    written_at: int

    def to_json(self) -> dict[str, Any]:
        """Plain data."""
        return {"key": self.key, "value": self.value, "label": self.label.value,
                "written_at": self.written_at,
                "scope": {"tenant_id": self.scope.tenant_id, "user_id": self.scope.user_id}}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Known:
        """The inverse of ``to_json``."""
        return cls(data["key"], data["value"], Scope(**data["scope"]), Label(data["label"]),
                   int(data["written_at"]))


@dataclass
class _Entry:
    key: str
    value: str
    scope: Scope
    written_at: int
    expires_at: int | None
    deleted: bool = False
    superseded_at: int | None = None  # the logical time a newer write of its key came


class Ledger:
    """The truth of one scenario run: apply steps in order, ask ``known``/``current`` at queries."""

    def __init__(self, ttl: bool = True):
        self.now = 0
        self.ttl = ttl
        self._entries: list[_Entry] = []
        self._history: dict[tuple[Scope, str], list[_Entry]] = {}

    def apply(self, step: Step) -> None:
        """Apply one step (``query`` is a no-op); invalid references are tolerated as no-ops."""
        if step.op in ("write", "correct"):
            ttl = step.ttl_steps if step.op == "write" else None
            self._write(step.scope, step.key, step.value, step.index,
                        None if ttl is None else self.now + ttl)
        elif step.op == "delete":
            self._delete(step.scope, step.key)
        elif step.op == "rescope":
            live = self._live(step.scope, step.key)
            self._delete(step.scope, step.key)
            if live is not None and step.to is not None:
                self._write(step.to, step.key, live.value, step.index, live.expires_at)
        elif step.op == "advance_time":
            self.now += step.steps or 0
        elif step.op != "query":
            raise ValueError(f"unknown op {step.op!r}")

    def rescope_plan(self, step: Step) -> tuple[str, int | None] | None:
        """For a rescope about to be applied: the value it writes at ``step.to`` and the TTL left
        (steps, or None); None when there is no current value to move (it only deletes)."""
        live = self._live(step.scope, step.key)
        if live is None:
            return None
        return live.value, None if live.expires_at is None else live.expires_at - self.now

    def deletes(self, step: Step) -> list[str]:
        """For a delete or rescope about to be applied: the values it marks deleted (the entries of
        (scope, key) not deleted yet, current and superseded alike), in write order."""
        if step.op not in ("delete", "rescope"):
            return []
        history = self._history.get((step.scope, step.key), [])  # type: ignore[arg-type]
        return list(dict.fromkeys(e.value for e in history if not e.deleted))

    def held(self) -> list[str]:
        """Every value some entry still holds undeleted (current, superseded or expired), any scope."""
        return list(dict.fromkeys(e.value for e in self._entries if not e.deleted))

    def current(self, scope: Scope, key: str) -> str | None:
        """The current value of (scope, key), or None (never written, deleted or expired)."""
        live = self._live(scope, key)
        return None if live is None else live.value

    def state(self, scope: Scope, key: str) -> Label | None:
        """CURRENT, EXPIRED or DELETED for the newest entry of (scope, key); None if never written."""
        history = self._history.get((scope, key))
        if not history:
            return None
        newest = history[-1]
        if newest.deleted:
            return Label.DELETED
        return Label.EXPIRED if self._expired(newest) else Label.CURRENT

    def known(self, scope: Scope) -> list[Known]:
        """Every value ever written, one entry per distinct string, labelled against ``scope`` by
        PRECEDENCE (key, scope and step come from the newest entry carrying the winning label)."""
        best: dict[str, tuple[int, _Entry]] = {}
        for entry in self._entries:
            rank = min(PRECEDENCE.index(label) for label in self._labels(entry, scope))
            held = best.get(entry.value)
            if held is None or rank <= held[0]:
                best[entry.value] = (rank, entry)
        return [Known(e.key, e.value, e.scope, PRECEDENCE[rank], e.written_at)
                for rank, e in best.values()]

    def _labels(self, entry: _Entry, scope: Scope) -> set[Label]:
        if entry.scope.tenant_id != scope.tenant_id:
            return {Label.FOREIGN_TENANT}
        if entry.scope != scope:
            return {Label.FOREIGN_USER}
        labels = set()
        if entry.deleted:
            labels.add(Label.DELETED)
        if self._expired(entry):
            labels.add(Label.EXPIRED)
        if self._history[(entry.scope, entry.key)][-1] is not entry:
            labels.add(Label.STALE)
        return labels or {Label.CURRENT}

    def _expired(self, entry: _Entry) -> bool:
        """Its TTL ran out while it was the key's value (a value superseded before stays stale)."""
        if not self.ttl or entry.expires_at is None or self.now < entry.expires_at:
            return False
        return entry.superseded_at is None or entry.superseded_at >= entry.expires_at

    def _live(self, scope: Scope, key: str | None) -> _Entry | None:
        history = self._history.get((scope, key))  # type: ignore[arg-type]
        if not history or history[-1].deleted or self._expired(history[-1]):
            return None
        return history[-1]

    def _write(self, scope: Scope, key: str | None, value: str | None, index: int,
               expires_at: int | None) -> None:
        entry = _Entry(str(key), str(value), scope, index, expires_at)
        history = self._history.setdefault((scope, entry.key), [])
        if history and history[-1].superseded_at is None:
            history[-1].superseded_at = self.now
        self._entries.append(entry)
        history.append(entry)

    def _delete(self, scope: Scope, key: str | None) -> None:
        for entry in self._history.get((scope, key), []):  # type: ignore[arg-type]
            entry.deleted = True
