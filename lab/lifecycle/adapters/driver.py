"""DriverAdapter: any SUT driver of the protocol (images/README.md), through a runtime.

ONE SUT process serves a whole run (speed): ``start`` prepares the environment, starts the
profile's services and the driver on fresh volumes in the run's scratch folder, and sends
``open``; ``begin(namespace)`` isolates a scenario by prefixing its tenant and user ids with
the namespace. The ops map onto the driver protocol's lifecycle additions::

    write        -> write {context, text: value, meta: {key, ttl_steps?}, scope?}
    correct      -> update of each record carrying the key (capability "update"), else a write
    delete       -> erase of each record id carrying the key in that scope (ids from the write
                    answers); the erase answer must name them (capability "erase")
    query        -> read {context, query: prompt, scope?}
    advance_time -> advance_time {steps} (capability "ttl")

Without "tenants" a SUT gets one context ``tenant/user`` (no ``scope``; ``Scope.folded``: a ``/`` or
``%`` inside an id is percent-encoded, so two scopes never share a context); describe() says so.
``volumes()`` names the host folders of the SUT's volumes (scanned for erasure at rest);
``restart(while_stopped)`` stops the driver and the profile's services, calls ``while_stopped``
(the scan) and starts both anew on the same folders (the restarted position)::

    registry = RunRegistry(new_run_id())
    with DriverAdapter(profile, get_runtime("local"), registry) as sut:
        sut.begin("s0-demo")
        sut.write(Scope("acme", "alice"), "city", "Lisbon", None)
        print(sut.query(Scope("acme", "alice"), "Where do I live?").text)
    registry.close()
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from lab.lifecycle.adapters import Ack, AdapterError, Served
from lab.lifecycle.adapters.leaves import record_text
from lab.lifecycle.adapters.process import SutProcess
from lab.lifecycle.scenario import Scope
from lab.profile import Profile
from lab.runtime import Runtime
from lab.runtime.housekeeping import RunRegistry

__all__ = ["DriverAdapter", "SutProcess", "lifecycle_of", "offered"]


class DriverAdapter:
    """The lifecycle Adapter over one SUT driver (see the module docstring)."""

    def __init__(self, profile: Profile, runtime: Runtime, registry: RunRegistry, logs_dir: Path | None = None):
        self.name = profile.row
        self.capabilities, self.scope_mode = lifecycle_of(profile)
        self.sut = SutProcess(profile, runtime, registry, logs_dir)
        self.namespace: str | None = None
        self._ids: dict[tuple[str, str, str], list[str]] = {}  # (tenant, user, key) -> record ids
        self._describe: dict[str, Any] = {}

    def start(self) -> "DriverAdapter":
        """Prepare, launch the one SUT process of this run, ``open`` and ``describe`` it."""
        try:
            self.sut.start()
            answer = self.sut.call("describe")
            self._describe = (answer.get("result") or {}) if answer["ok"] else {}
            _check_offered(self.sut.profile, self.capabilities, self._describe)
        except Exception:
            self.close()
            raise
        return self

    def restart(self, while_stopped: Callable[[], Any] | None = None) -> dict[str, float]:
        """Stop the driver and its services, call ``while_stopped`` (nothing runs on the volumes
        then), start both anew on the same volumes; seconds of the stop and of the start."""
        return self.sut.restart(while_stopped)

    def volumes(self) -> dict[str, Path]:
        """The SUT's volumes: name -> host folder (every volume of the profile, services' included)."""
        return dict(self.sut.volumes)

    @property
    def timings(self) -> dict[str, float]:
        """Seconds spent preparing the environment and starting the SUT (the last start)."""
        return dict(self.sut.timings)

    def describe(self) -> dict:
        """sut, version, libraries, capabilities, how scope is folded, and the environment."""
        prepared = self.sut.prepared
        scope = ("separate: tenant and user sent apart (scope) beside the context tenant/user"
                 if self.scope_mode == "separate" else
                 "folded: tenant and user folded into one context 'tenant/user' (the SUT cannot keep them apart)")
        return {"adapter": "driver", "row": self.name, "sut": self._describe.get("sut"),
                "version": self._describe.get("version"), "libraries": self._describe.get("libraries", {}),
                "capabilities": sorted(self.capabilities), "scope": scope, "driver": self._describe,
                "erasure": (self._describe.get("capabilities") or {}).get("erasure"),
                "runtime": prepared.runtime if prepared else None,
                "packages": dict(prepared.packages) if prepared else {},
                **({"fork_server": prepared.detail["fork_server"]} if prepared and "fork_server" in prepared.detail
                   else {})}

    def begin(self, namespace: str, seed: int = 0) -> None:
        """A fresh, isolated memory for one scenario: its scopes are prefixed with ``namespace``."""
        self.namespace, self._ids = namespace, {}

    def write(self, scope: Scope, key: str, value: str, ttl_steps: int | None) -> Ack:
        """``write`` with meta.key (and ttl_steps, only with "ttl"); remembers the record id."""
        if ttl_steps is not None and "ttl" not in self.capabilities:
            raise AdapterError(f"write {key}: ttl_steps given to a SUT that declares no ttl")
        meta = {"role": "user", "source": "memlab-lifecycle", "key": key,
                **({} if ttl_steps is None else {"ttl_steps": ttl_steps})}
        answer = self._mutate("write", scope, text=value, meta=meta)
        self._ids.setdefault(self._where(scope, key), []).append(self._record_id("write", answer))
        return _ack(answer)

    def correct(self, scope: Scope, key: str, value: str) -> Ack:
        """The SUT's own ``update`` of each record carrying the key, or a superseding write."""
        ids = self._ids.get(self._where(scope, key))
        if "update" not in self.capabilities or not ids:
            return self.write(scope, key, value, None)
        answers = [self._mutate("update", scope, record=rid, text=value, meta={"key": key}) for rid in ids]
        self._ids[self._where(scope, key)] = list(dict.fromkeys(ids + [self._record_id("update", a) for a in answers]))
        return _ack(*answers)

    def delete(self, scope: Scope, key: str) -> Ack:
        """``erase`` of every record id carrying the key in the scope; each answer must name its id."""
        if "erase" not in self.capabilities:
            raise AdapterError(f"delete {key}: the row declares no per-record erasure (capability erase)\n"
                               "  fix: the runner does not send deletes to such a row; declare erase only "
                               "where the driver's erase removes one record")
        ids = self._ids.pop(self._where(scope, key), [])
        if not ids:
            return Ack(True, 0.0, {}, f"no record carries {key!r} in this scope: nothing to erase")
        answers = []
        for rid in ids:
            answer = self._mutate("erase", scope, record=rid)
            if rid not in [str(i) for i in answer.get("erased") or []]:
                raise AdapterError(f"erase of record {rid} ({key!r}) answered erased={answer.get('erased')}, "
                                   f"which does not name it (after {answer['seconds']:.3f} s)\n"
                                   "  fix: the driver's erase must return the ids it erased")
            answers.append(answer)
        return _ack(*answers)

    def advance_time(self, steps: int) -> Ack:
        """``advance_time`` (only with "ttl")."""
        if "ttl" not in self.capabilities:
            raise AdapterError("advance_time: the SUT declares no ttl")
        return _ack(self._checked("advance_time", self.sut.call("advance_time", steps=steps)))

    def query(self, scope: Scope, prompt: str) -> Served:
        """``read`` of the scope with the prompt as ``query``: what the agent would be served, each
        record read whole: its text, then its meta's leaves, then its other fields (id ...)."""
        answer = self._checked("read", self.sut.call("read", query=prompt, **self._fields(scope)))
        records = [dict(r) for r in answer.get("records") or []]
        text = "\n".join(record_text(r, ("text", "meta")) for r in records)
        return Served(records=records, text=text, raw=answer, seconds=answer.get("seconds", 0.0))

    def close(self) -> None:
        """Stop the SUT process and its services."""
        self.sut.stop()

    def __enter__(self) -> "DriverAdapter":
        return self if self.sut.client is not None else self.start()  # a started adapter is not started twice

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- helpers -----------------------------------------------------------------
    def _ns(self, scope: Scope) -> tuple[str, str]:
        if self.namespace is None:
            raise AdapterError("no scenario begun\n  fix: call begin(namespace) before the first op")
        return f"{self.namespace}:{scope.tenant_id}", f"{self.namespace}:{scope.user_id}"

    def _where(self, scope: Scope, key: str) -> tuple[str, str, str]:
        return (*self._ns(scope), key)

    def _fields(self, scope: Scope) -> dict[str, Any]:
        tenant, user = self._ns(scope)
        fields: dict[str, Any] = {"context": Scope(tenant, user).folded()}  # injective: a '/' in an id is escaped
        if self.scope_mode == "separate":
            fields["scope"] = {"tenant_id": tenant, "user_id": user}
        return fields

    def _mutate(self, op: str, scope: Scope, **fields: Any) -> dict[str, Any]:
        return self._checked(op, self.sut.call(op, **self._fields(scope), **fields))

    def _checked(self, op: str, answer: dict[str, Any]) -> dict[str, Any]:
        if not answer["ok"]:
            raise AdapterError(f"the SUT refused {op} after {answer.get('seconds', 0):.3f} s: "
                               f"{answer.get('error')}{self.sut.log_note()}")
        return answer

    def _record_id(self, op: str, answer: dict[str, Any]) -> str:
        rid = (answer.get("record") or {}).get("id")
        if rid is None:
            raise AdapterError(f"the {op} answer names no record id: {answer}\n"
                               f"  fix: the driver's {op} must return the record with its id")
        return str(rid)


def offered(described: dict[str, Any]) -> frozenset[str] | None:
    """What a driver's describe offers the lifecycle gate (None: it does not say). ``erase`` is
    offered by ``capabilities.erasure: record`` too, so a driver of the protocol need not list it."""
    caps = described.get("capabilities") or {}
    if caps.get("lifecycle") is None:
        return None
    return frozenset(caps["lifecycle"]) | ({"erase"} if caps.get("erasure") == "record" else set())


def _check_offered(profile: Profile, declared: frozenset[str], described: dict[str, Any]) -> None:
    """A profile declaring more than the driver offers is refused at start (AdapterError)."""
    offers = offered(described)
    if offers is not None and not declared <= offers:
        raise AdapterError(f"{profile.path}: lifecycle.capabilities declares {sorted(declared - offers)}, "
                           f"which the driver does not offer (it offers {sorted(offers)})\n"
                           "  fix: declare only what it offers")


def lifecycle_of(profile: Profile) -> tuple[frozenset[str], str]:
    """The row's lifecycle capabilities and scope mode (``lab.profile`` validated them)."""
    if profile.lifecycle is None:
        raise AdapterError(f"{profile.path}: row {profile.row} is not measured by the lifecycle gate\n"
                           "  fix: add lifecycle to its measurements, with a lifecycle: block")
    return frozenset(profile.lifecycle.capabilities), profile.lifecycle.scope


def _ack(*answers: dict[str, Any]) -> Ack:
    """One acknowledgement for one or several driver answers (each already ok)."""
    seconds = round(sum(a.get("seconds", 0.0) for a in answers), 6)
    raw = answers[0] if len(answers) == 1 else {"calls": list(answers)}
    return Ack(True, seconds, raw)
