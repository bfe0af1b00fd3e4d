"""The lifecycle runner: drive an adapter through scenarios and keep what it observed.

It observes only (no verdicts): every mutation's acknowledgement and every query's served
answer go into a JSON-ready observation; the lead's derive step replays a Ledger from the
saved scenario and judges each saved query. A step the SUT cannot express (advance_time, or
a write's ttl_steps, without "ttl") is listed in ``skipped`` with the reason; the write still
happens, without its TTL. An AdapterError (a harness fault) stops that scenario, and the
observation keeps what was measured with ``error: {stage, message}``.

``rescope`` is the ledger's definition, acted out: a ``delete`` at the old scope, then a
``write`` at the new one of the key's current value with the TTL it has left
(``Ledger.rescope_plan``); with nothing current, only the delete. Its step entry carries
``to``, ``ack`` (the delete's) and ``write_ack``.
"""

from __future__ import annotations

import random
import traceback
from typing import Any, Callable, Iterable

import structlog

from lab.lifecycle.adapters import Adapter, AdapterError
from lab.lifecycle.ledger import Ledger
from lab.lifecycle.scenario import Scenario, Scope, Step

log = structlog.get_logger(__name__)

NO_TTL = "the SUT declares no TTL"


def run_scenario(adapter: Adapter, scenario: Scenario, seed: int, namespace: str) -> dict[str, Any]:
    """Run one scenario on ``adapter`` in ``namespace``; return its raw observation."""
    obs: dict[str, Any] = {"scenario": scenario.id, "seed": seed, "namespace": namespace,
                           "adapter": adapter.name, "steps": [], "queries": [], "skipped": [], "error": None}
    ledger = Ledger(ttl="ttl" in adapter.capabilities)  # only to know what a rescope moves
    stage = "begin"
    try:
        adapter.begin(namespace)
        for step in scenario.steps:
            stage = f"{step.op} step {step.index}"
            _step(adapter, step, ledger, obs)
            ledger.apply(step)
    except AdapterError as exc:
        obs["error"] = {"stage": stage, "message": str(exc)}
    except Exception as exc:  # a crash of the lab itself is still a harness error of this scenario
        obs["error"] = {"stage": stage, "message": f"{type(exc).__name__}: {exc}",
                        "traceback": traceback.format_exc()}
    if obs["error"]:
        log.warning("lifecycle.scenario_error", scenario=scenario.id, seed=seed, **obs["error"])
    return obs


def run_pack(adapter: Adapter, scenarios: Iterable[Scenario], seeds: int | Iterable[int],
             save: Callable[[dict[str, Any]], Any] = lambda obs: None,
             progress: Callable[[str], None] = lambda label: None) -> list[dict[str, Any]]:
    """Every scenario once per seed (namespace ``s{seed}-{id}``; order shuffled by the seed, seed 0
    keeps file order); ``save`` gets each observation as it ends, ``progress`` its label."""
    scenarios = list(scenarios)
    out = []
    for seed in range(seeds) if isinstance(seeds, int) else seeds:
        order = list(scenarios)
        if seed != 0:
            random.Random(seed).shuffle(order)
        for scenario in order:
            obs = run_scenario(adapter, scenario, seed, f"s{seed}-{scenario.id}")
            save(obs)
            progress(f"seed {seed} {scenario.id}")
            out.append(obs)
    return out


def _step(adapter: Adapter, step: Step, ledger: Ledger, obs: dict[str, Any]) -> None:
    """One scenario step through the adapter; its acknowledgement or served answer into ``obs``."""
    ttl = "ttl" in adapter.capabilities
    entry: dict[str, Any] = {"index": step.index, "op": step.op, "scope": _scope(step.scope)}
    if step.key is not None:
        entry["key"] = step.key
    if step.op == "query":
        served = adapter.query(step.scope, step.prompt or "")
        obs["queries"].append({"index": step.index, "scope": entry["scope"], "prompt": step.prompt,
                               "must_use": list(step.must_use), "served": served.to_json()})
        return
    if step.op == "advance_time" and not ttl:
        return _skip(obs, step, NO_TTL)
    if step.op == "write":
        if step.ttl_steps is not None and not ttl:
            _skip(obs, step, f"{NO_TTL}: written without ttl_steps {step.ttl_steps}")
        ack = adapter.write(step.scope, step.key, step.value, step.ttl_steps if ttl else None)
    elif step.op == "correct":
        ack = adapter.correct(step.scope, step.key, step.value)
    elif step.op == "delete":
        ack = adapter.delete(step.scope, step.key)
    elif step.op == "advance_time":
        entry["steps"] = step.steps
        ack = adapter.advance_time(step.steps)
    elif step.op == "rescope":
        entry["to"] = _scope(step.to)
        ack = adapter.delete(step.scope, step.key)
        entry["ack"] = ack.to_json()
        obs["steps"].append(entry)
        _rescope_write(adapter, step, ledger, entry, obs)
        return
    else:
        raise AdapterError(f"step {step.index}: unknown op {step.op!r}")
    entry["ack"] = ack.to_json()
    obs["steps"].append(entry)


def _rescope_write(adapter: Adapter, step: Step, ledger: Ledger, entry: dict[str, Any],
                   obs: dict[str, Any]) -> None:
    """The write half of a rescope: the key's current value (and the TTL it has left) at ``to``."""
    plan = ledger.rescope_plan(step)  # the ledger before the step: what the move carries
    if plan is None:
        return _skip(obs, step, f"nothing current to move for {step.key!r}: only the delete was sent")
    value, ttl_left = plan
    if ttl_left is not None and "ttl" not in adapter.capabilities:
        _skip(obs, step, f"{NO_TTL}: moved without the {ttl_left} steps of TTL left")
        ttl_left = None
    entry["write_ack"] = adapter.write(step.to, step.key, value, ttl_left).to_json()


def _skip(obs: dict[str, Any], step: Step, reason: str) -> None:
    obs["skipped"].append({"index": step.index, "op": step.op, "reason": reason})


def _scope(scope: Scope) -> dict[str, str]:
    return {"tenant_id": scope.tenant_id, "user_id": scope.user_id}
