"""A scenario written out as YAML in either shape: memlab's own, or the peer gate's (memorycheck's).

``memlab lifecycle export`` turns a pack into the other shape (a team taking memlab's bundled pack
to memorycheck, or moving its packs to memlab's shape); loading the file back gives the same
scenario (the tests check the round trip). A step acting in another scope than the subject says
so with ``as:`` (only the fields that differ); a rescope's ``to`` names only what differs from
the step's scope. Example::

    >>> from lab.lifecycle.scenario import Scenario, Scope, Step
    >>> s = Scenario("demo", "A demo", (), Scope("acme", "ann"),
    ...              (Step(0, 5, "write", Scope("acme", "ann"), key="city", value="Porto"),), "demo.yaml")
    >>> print(to_yaml(s, "memorycheck"), end="")
    id: demo
    title: A demo
    tags: []
    subject: {tenant_id: acme, user_id: ann}
    steps:
    - {op: write, key: city, value: Porto}
"""

from __future__ import annotations

from typing import Any

import yaml

from lab.lifecycle.scenario import Scenario, Scope, Step

SHAPES = ("memlab", "memorycheck")


def _differs(scope: Scope, base: Scope) -> dict[str, str]:
    return {f: getattr(scope, f) for f in ("tenant_id", "user_id") if getattr(scope, f) != getattr(base, f)}


def _fields(step: Step) -> dict[str, Any]:
    """The op's own fields, in the order the formats write them."""
    out: dict[str, Any] = {}
    for name in ("key", "value", "ttl_steps", "steps", "prompt"):
        if getattr(step, name) is not None:
            out[name] = getattr(step, name)
    if step.op == "rescope" and step.to is not None:
        out["to"] = _differs(step.to, step.scope)
    if step.must_use:
        out["expect"] = {"must_use": list(step.must_use)}
    return out


def step_data(step: Step, subject: Scope, shape: str) -> dict[str, Any]:
    """One step as plain data in ``shape``."""
    scope = _differs(step.scope, subject) if step.op != "advance_time" else {}
    if shape == "memorycheck":
        return {"op": step.op, **_fields(step), **({"as": scope} if scope else {})}
    return {step.op: _fields(step), **({"as": scope} if scope else {})}


def to_data(scenario: Scenario, shape: str) -> dict[str, Any]:
    """The scenario as plain data in ``shape``."""
    if shape not in SHAPES:
        raise ValueError(f"shape must be one of {SHAPES}, not {shape!r}")
    return {"id": scenario.id, "title": scenario.title, "tags": list(scenario.tags),
            "subject": {"tenant_id": scenario.subject.tenant_id, "user_id": scenario.subject.user_id},
            "steps": [step_data(s, scenario.subject, shape) for s in scenario.steps]}


class _Dumper(yaml.SafeDumper):
    """Block style at the top, flow style for each step and scope, every string quoted only when needed."""


def _flow(dumper: yaml.SafeDumper, data: dict) -> Any:
    return dumper.represent_mapping("tag:yaml.org,2002:map", data.items(), flow_style=True)


class _Step(dict):
    pass


_Dumper.add_representer(_Step, _flow)


def to_yaml(scenario: Scenario, shape: str) -> str:
    """The scenario as a YAML file in ``shape`` (each step on one line)."""
    data = to_data(scenario, shape)
    data["subject"] = _Step(data["subject"])
    data["steps"] = [_Step(s) for s in data["steps"]]
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=10_000)
