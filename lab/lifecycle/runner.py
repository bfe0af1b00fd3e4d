"""The lifecycle runner: drive an adapter through scenarios and keep what it observed.

It observes only (no verdicts): every mutation's acknowledgement and every query's served
answer go into a JSON-ready observation; the lead's derive step replays a Ledger from the
saved scenario and judges each saved query. A step the SUT cannot express is listed in
``skipped`` with the reason and ``applied``: advance_time without "ttl", and a delete or rescope
without "erase" (per-record erasure), are not sent (``applied: false``: derive does not replay
them either); a write's ttl_steps without "ttl" is dropped, the write still sent
(``applied: true``). An AdapterError (a harness fault) stops that scenario, and the
observation keeps what was measured with ``error: {stage, message}``.

``rescope`` is the ledger's definition, acted out: a ``delete`` at the old scope, then a
``write`` at the new one of the key's current value with the TTL it has left
(``Ledger.rescope_plan``); with nothing current, only the delete. Its step entry carries
``to``, ``ack`` (the delete's) and ``write_ack``.

Positions (each its own result): ``live`` keeps one SUT process for the run; ``restarted`` stops
the SUT and its services after every mutation sent and starts them anew before the next step
(the entry's ``restart``: seconds of the stop and the start). After every delete and rescope the
volumes are scanned for the deleted values (``residue``: the entry's ``erasure_at_rest``) — live
right after the acknowledgement, restarted while everything is stopped.
"""

from __future__ import annotations

import json
import random
import traceback
from typing import Any, Callable, Iterable

from lab.lifecycle.adapters import Adapter, AdapterError, can_restart, volumes_of
from lab.lifecycle.ledger import Ledger
from lab.lifecycle.residue import ErasureProbe
from lab.lifecycle.scenario import Scenario, Scope, Step
from lab.logs import get_logger
from lab.resultset.loading import MAX_JSON_BYTES

log = get_logger(__name__)

MIB = 1024 * 1024
#: The bytes of JSON one observation may hold of a SUT's answers: half of what a set's reader takes.
EVIDENCE_BUDGET = MAX_JSON_BYTES // 2
NO_TTL = "the SUT declares no TTL"
NO_ERASE = "the SUT declares no per-record erasure (capability erase)"
POSITIONS = ("live", "restarted")
NO_RESTART = ("{name} cannot be restarted by the lab (an HTTP shim's service is not the lab's to stop)\n"
              "  fix: run it with --position live; the restarted position needs a SUT row the lab starts")


def check_position(adapter: Adapter, position: str) -> None:
    """An unknown position, or ``restarted`` on an adapter that cannot restart: an AdapterError."""
    if position not in POSITIONS:
        raise AdapterError(f"unknown position {position!r}\n  fix: use one of {', '.join(POSITIONS)}")
    if position == "restarted" and not can_restart(adapter):
        raise AdapterError(NO_RESTART.format(name=adapter.name))


def run_scenario(adapter: Adapter, scenario: Scenario, seed: int, namespace: str, position: str = "live",
                 probe: ErasureProbe | None = None) -> dict[str, Any]:
    """Run one scenario on ``adapter`` in ``namespace``; return its raw observation (``probe``: the
    pack's erasure-at-rest attribution on this store, else one for this scenario alone)."""
    check_position(adapter, position)
    probe = probe or ErasureProbe([scenario], volumes_of(adapter), position)
    probe.begin(scenario.id)
    obs: dict[str, Any] = {"scenario": scenario.id, "seed": seed, "namespace": namespace, "position": position,
                           "adapter": adapter.name, "steps": [], "queries": [], "skipped": [], "error": None}
    ledger = Ledger(ttl="ttl" in adapter.capabilities)  # what a rescope moves, what a delete erases
    budget = Budget(obs)
    stage = "begin"
    try:
        adapter.begin(namespace, seed)
        for step in scenario.steps:
            stage = f"{step.op} step {step.index}"
            entry = _step(adapter, step, ledger, obs)
            budget.spend()  # AdapterError past it: the observation stays one memlab's reader takes
            if entry is False:  # not sent: the ledger does not apply it either
                continue
            deleted, moved = ledger.deletes(step), ledger.rescope_plan(step) if step.op == "rescope" else None
            ledger.apply(step)
            if entry is None:
                continue
            plan = (probe.plan(scenario.id, deleted, ledger.held(), moved[0] if moved else None)
                    if step.op in ("delete", "rescope") else None)
            if position == "live":
                if plan is not None:
                    entry["erasure_at_rest"] = probe.scan(plan)
                continue
            stage = f"restart after {step.op} step {step.index}"
            scan = None if plan is None else (lambda: entry.__setitem__("erasure_at_rest", probe.scan(plan)))
            entry["restart"] = adapter.restart(scan)  # type: ignore[attr-defined]
    except AdapterError as exc:
        obs["error"] = {"stage": stage, "message": str(exc)}
    except Exception as exc:  # a crash of the lab itself is still a harness error of this scenario
        obs["error"] = {"stage": stage, "message": f"{type(exc).__name__}: {exc}",
                        "traceback": traceback.format_exc()}
    if obs["error"]:
        log.warning("lifecycle.scenario_error", scenario=scenario.id, seed=seed, **obs["error"])
    return obs


class Budget:
    """What one observation may hold of the SUT's answers (``EVIDENCE_BUDGET`` bytes of JSON): every answer is
    kept whole as evidence, so a service answering too much for one scenario stops it as a harness error
    (the answers past the budget left out, their size said) instead of writing an observation that memlab's
    own reader refuses (lab.resultset.loading.MAX_JSON_BYTES) or filling the memory."""

    def __init__(self, obs: dict[str, Any]):
        self.obs, self.size, self.counted = obs, 0, {"steps": 0, "queries": 0}

    def spend(self) -> None:
        """Count what the last step added; past the budget, drop it and raise ``AdapterError``."""
        added = 0
        for part, seen in self.counted.items():
            new = self.obs[part][seen:]
            added += sum(len(json.dumps(item, default=str)) for item in new)
        if self.size + added > EVIDENCE_BUDGET:
            for part, seen in self.counted.items():
                del self.obs[part][seen:]
            raise AdapterError(f"the SUT's answers to this scenario came to {(self.size + added) / MIB:.0f} MiB of "
                               f"evidence, over the {EVIDENCE_BUDGET / MIB:.0f} MiB one observation holds (the last "
                               f"step's {added / MIB:.1f} MiB left out)\n  fix: serve less for one query (memlab "
                               "keeps every answer whole as evidence), or split the scenario")
        self.size += added
        self.counted = {part: len(self.obs[part]) for part in self.counted}


def run_pack(adapter: Adapter, scenarios: Iterable[Scenario], seeds: int | Iterable[int],
             save: Callable[[dict[str, Any]], Any] = lambda obs: None,
             progress: Callable[[str], None] = lambda label: None, position: str = "live",
             only: set[tuple[str, int]] | None = None) -> list[dict[str, Any]]:
    """Every scenario once per seed (namespace ``s{seed}-{id}``; order shuffled by the seed, seed 0
    keeps file order) in ``position``; ``save`` gets each observation as it ends, ``progress`` its label;
    ``only``: just these (scenario, seed) runs (a resume)."""
    check_position(adapter, position)
    scenarios = list(scenarios)
    probe = ErasureProbe(scenarios, volumes_of(adapter), position)
    out = []
    for seed in range(seeds) if isinstance(seeds, int) else seeds:
        order = list(scenarios)
        if seed != 0:
            random.Random(seed).shuffle(order)
        for scenario in order:
            if only is not None and (scenario.id, seed) not in only:
                continue
            obs = run_scenario(adapter, scenario, seed, f"s{seed}-{scenario.id}", position, probe)
            save(obs)
            progress(f"seed {seed} {scenario.id}")
            out.append(obs)
    return out


def _step(adapter: Adapter, step: Step, ledger: Ledger, obs: dict[str, Any]) -> dict[str, Any] | None | bool:
    """One scenario step through the adapter, its acknowledgement or served answer into ``obs``:
    the step entry of a mutation sent, None for a query, False for a step not sent."""
    caps = adapter.capabilities
    entry: dict[str, Any] = {"index": step.index, "op": step.op, "scope": _scope(step.scope)}
    if step.key is not None:
        entry["key"] = step.key
    if step.op == "query":
        served = adapter.query(step.scope, step.prompt or "")
        obs["queries"].append({"index": step.index, "scope": entry["scope"], "prompt": step.prompt,
                               "must_use": list(step.must_use), "served": served.to_json()})
        return None
    if step.op == "advance_time" and "ttl" not in caps:
        return _skip(obs, step, NO_TTL, applied=False)
    if step.op in ("delete", "rescope") and "erase" not in caps:
        what = "the delete was" if step.op == "delete" else "the rescope (a delete, then a write at the new scope) was"
        return _skip(obs, step, f"{NO_ERASE}: {what} not sent", applied=False)
    if step.op == "write":
        if step.ttl_steps is not None and "ttl" not in caps:
            _skip(obs, step, f"{NO_TTL}: written without ttl_steps {step.ttl_steps}")
        ack = adapter.write(step.scope, step.key, step.value, step.ttl_steps if "ttl" in caps else None)
    elif step.op == "correct":
        ack = adapter.correct(step.scope, step.key, step.value)
    elif step.op == "delete":
        ack = adapter.delete(step.scope, step.key)
    elif step.op == "advance_time":
        entry["steps"] = step.steps
        ack = adapter.advance_time(step.steps)
    elif step.op == "rescope":
        entry["to"] = _scope(step.to)
        entry["ack"] = adapter.delete(step.scope, step.key).to_json()
        obs["steps"].append(entry)
        _rescope_write(adapter, step, ledger, entry, obs)
        return entry
    else:
        raise AdapterError(f"step {step.index}: unknown op {step.op!r}")
    entry["ack"] = ack.to_json()
    obs["steps"].append(entry)
    return entry


def _rescope_write(adapter: Adapter, step: Step, ledger: Ledger, entry: dict[str, Any],
                   obs: dict[str, Any]) -> None:
    """The write half of a rescope: the key's current value (and the TTL it has left) at ``to``."""
    plan = ledger.rescope_plan(step)  # the ledger before the step: what the move carries
    if plan is None:
        _skip(obs, step, f"nothing current to move for {step.key!r}: only the delete was sent")
        return
    value, ttl_left = plan
    if ttl_left is not None and "ttl" not in adapter.capabilities:
        _skip(obs, step, f"{NO_TTL}: moved without the {ttl_left} steps of TTL left")
        ttl_left = None
    entry["write_ack"] = adapter.write(step.to, step.key, value, ttl_left).to_json()


def _skip(obs: dict[str, Any], step: Step, reason: str, applied: bool = True) -> bool:
    """List the step in ``skipped``; ``applied``: whether it was sent at all (returned)."""
    obs["skipped"].append({"index": step.index, "op": step.op, "reason": reason, "applied": applied})
    return applied


def _scope(scope: Scope) -> dict[str, str]:
    return {"tenant_id": scope.tenant_id, "user_id": scope.user_id}
