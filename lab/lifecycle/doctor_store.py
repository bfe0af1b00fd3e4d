"""The doctor's checks of what a shim's store does with the probe once it is served: user and tenant
isolation (with the silent-collapse replay in the other contract's request shape), deletion (delete ->
gone, measured, and whether the judge can read the answer at all) and TTL; the probe's scopes, key and
contract words they share with :mod:`lab.lifecycle.doctor`, and its ``Check``. Each check takes the
doctor's probe (``lab.lifecycle.doctor._Probe``: the adapter, the config, the probe value, its writes,
polls and last answer) and returns its ``Check`` with the fix.

May import: the standard library and ``lab.lifecycle`` (the HTTP adapter, ``Scope``, the judge and its
``Known``); never :mod:`lab.lifecycle.doctor`, which imports it.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

from lab.lifecycle.adapters.http import HttpAdapter, HttpError
from lab.lifecycle.judge import judge_query
from lab.lifecycle.ledger import Known, Label
from lab.lifecycle.matching import served_uses
from lab.lifecycle.scenario import Scope

OWNER = Scope("memlab-doctor-a", "user-1")
OTHER_USER = Scope("memlab-doctor-a", "user-2")  # same tenant, another user
OTHER_TENANT = Scope("memlab-doctor-b", "user-1")  # same user id, another tenant
KEY, TTL_KEY, SIBLING_KEY = "memlab-doctor-probe", "memlab-doctor-ttl", "memlab-doctor-sibling"
PROMPT = f"What is the {KEY} for this user?"
FIELDS = {"memlab": "scope.tenant_id and scope.user_id", "memorycheck": "tenant_id and user_id at the top level"}
SAY = {"memlab": "`contract: memlab` (or memlab's keys: name, timeouts, capabilities)",
       "memorycheck": "`contract: memorycheck` (or memorycheck's keys: supports_ttl, timeout_seconds)"}


@dataclass
class Check:
    """One check's outcome: ok True/False, or None when not run (``detail`` says why); ``warn``: it
    passed, with something the user must know."""

    name: str
    ok: bool | None
    detail: str
    fix: str = ""
    seconds: float = 0.0
    warn: bool = False


def isolation(probe: Any, other: Scope, who: str) -> Check:
    """Is the probe written for OWNER kept from ``other`` (``who``, in words)?"""
    name = "user_isolation" if other.tenant_id == OWNER.tenant_id else "tenant_isolation"
    field_name = "user_id" if name == "user_isolation" else "tenant_id"
    folded = "" if probe.config.capabilities["tenants"] else " (tenants folded into user_id by the adapter)"
    if not any(probe.served(other, probe.value)):
        return Check(name, True, f"not served to {who}{folded}")
    detail = (f"the probe written as {OWNER.tenant_id}/{OWNER.user_id} was served to {who} "
              f"({other.tenant_id}/{other.user_id}): scope_leakage, P1{folded}")
    fix = (f"filter /query by {'scope.' if probe.config.contract == 'memlab' else ''}{field_name} as well: a memory "
           "is served only to the exact (tenant_id, user_id) that wrote it")
    collapse = _collapse(probe, other)
    probe.reset("memlab-doctor")  # the replay emptied the store: the probe back for the checks after this one
    probe.write(OWNER, KEY, probe.value)
    probe.poll(OWNER, probe.value, present=True)
    return Check(name, False, detail + collapse[0], collapse[1] or fix)


def _echoed(probe: Any) -> bool:
    """Whether the shim's write answers echo the scope it was sent (then it read those fields)."""
    return any(isinstance(a, dict) and (OWNER.user_id in str(a.get("user_id", "")) or "scope" in a) for a in probe.acks)


def _collapse(probe: Any, other: Scope) -> tuple[str, str]:
    """Replay the isolation probe in the other contract's request shape: (detail, fix) when that holds."""
    if _echoed(probe):
        return "; the shim echoed the scope it was sent, so it read these fields: a real leak", ""
    theirs = "memlab" if probe.config.contract == "memorycheck" else "memorycheck"
    with HttpAdapter(replace(probe.config, contract=theirs)) as sut:
        sut.confirm_mutations = False
        try:
            sut.begin("memlab-doctor-collapse")
            value = f"{probe.value}-other"
            sut.write(OWNER, KEY, value, None)
            leaked = served_uses(value, sut.query(other, PROMPT).text)
            kept = served_uses(value, sut.query(OWNER, PROMPT).text)
            sut.begin("memlab-doctor-collapse-done")
        except HttpError:
            return ("; the shim did not echo the scope; it probably reads other field names than "
                    f"{FIELDS[probe.config.contract]}"), ""
    if kept and not leaked:
        return (f"; sent as {FIELDS[theirs]} ({theirs}'s contract) the same probe stays apart: the shim reads "
                f"{theirs}'s fields and puts every caller in one scope when sent {probe.config.contract}'s"), \
               f"say {SAY[theirs]} in {probe.config.path}: the findings of a run like this one would be false"
    return (f"; the shim did not echo the scope, and {theirs}'s field names do not keep the scopes apart either: "
            f"it may read yet other names (it was sent {FIELDS[probe.config.contract]})"), ""


def deletion(probe: Any) -> Check:
    """Is the probe gone after its delete's ok, within the convergence timeout, as the judge reads it?"""
    probe.reset("memlab-doctor-delete")
    probe.write(OWNER, KEY, probe.value)
    probe.poll(OWNER, probe.value, present=True)
    start = time.perf_counter()
    probe.timed("mutation", probe.sut.delete(OWNER, KEY))
    gone, n, _ = probe.poll(OWNER, probe.value, present=False)
    seconds = time.perf_counter() - start
    if gone:
        probe.measured["gone"] = seconds
        when = "at the first query after the delete's ok" if n == 1 else f"{seconds:.3f} s after the delete ({n} queries)"
        detail = f"delete -> gone: the probe was gone {when}" + ("; the gate waits for each delete the same way"
                                                                 if n > 1 else "")
        why = _undecided(probe)
        if why:
            return Check("deletion", True, f"{detail}, as far as the judge can read: {why}",
                         "the gate reports such queries NOT TESTED (and the gate INCONCLUSIVE) rather than PASS: serve "
                         "memories as text, or stop serving deleted ones from every layer /query reads", warn=True)
        return Check("deletion", True, detail)
    return Check("deletion", False, f"the probe was still served {seconds:.2f} s after the delete's ok "
                                    f"({n} queries, convergence timeout {probe.limit:g} s): deletion_residue, P1 — or a "
                                    "delete slower than the timeout",
                 "make /delete remove the key's value in its scope from everything /query reads (indexes, caches, "
                 "history); if it is only slow, raise the convergence timeout above its latency")


def _undecided(probe: Any) -> str:
    """Why the judge cannot tell whether the last answer still serves the deleted probe ("": it can)."""
    deleted = Known(KEY, probe.value, OWNER, Label.DELETED, 0)
    got = probe.last
    check = judge_query([deleted], got.text, [], {}, retrieved=got.retrieved).checks["deletion_residue"]
    return check.reason(deleted) if check.unjudged else ""


def ttl(probe: Any) -> Check:
    """Does a value with ttl_steps 2 serve at time 1, go at time 2, and leave its sibling without TTL?"""
    if not probe.config.capabilities["ttl"]:
        return Check("ttl", None, "not declared (ttl false): the gate reports expiry_leak NOT TESTED")
    sut, rule = probe.sut, "a value written at time t with ttl_steps n is expired when now >= t + n"
    probe.reset("memlab-doctor-ttl")
    probe.write(OWNER, TTL_KEY, probe.value + "-ttl", 2)
    probe.write(OWNER, SIBLING_KEY, probe.value + "-sibling")
    probe.poll(OWNER, probe.value + "-sibling", present=True)
    probe.timed("mutation", sut.advance_time(1))
    if not any(probe.served(OWNER, probe.value + "-ttl")):
        return Check("ttl", False, "a value with ttl_steps 2 was gone after advance_time 1 (expired too early)",
                     f"count TTL in logical steps from /advance_time, not wall time: {rule}")
    probe.timed("mutation", sut.advance_time(1))
    gone, n, seconds = probe.poll(OWNER, probe.value + "-ttl", present=False)
    if not gone or n > 1:
        return Check("ttl", False, f"a value with ttl_steps 2 was still served after advance_time 2 "
                                   f"({seconds:.2f} s, {n} queries; the gate queries once after advance_time): "
                                   "expiry_leak", f"stop serving a value once its TTL has run out: {rule}")
    if not any(probe.served(OWNER, probe.value + "-sibling")):
        return Check("ttl", False, "a value written without ttl_steps expired with its TTL'd sibling",
                     "a value without ttl_steps never expires")
    return Check("ttl", True, "ttl_steps 2: served at time 1, gone at time 2; the sibling without TTL stayed")
