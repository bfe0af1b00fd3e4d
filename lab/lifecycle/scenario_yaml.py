"""Scenario files to Scenario objects: the field-level validator of both step shapes.

memlab's own shape writes a step as ``- write: {key: …, value: …}`` (one op key, its fields
under it: ``memlab_step``); the peer gate's shape (memorycheck's) as ``- op: write`` with the fields beside
``op`` (``lab.lifecycle.scenario_peer``). One file may hold either, one pack both. A file with
any step in the peer's shape is read as the peer reads it: what the peer accepts is never
refused. Where memlab would be stricter (an unknown field the peer ignores, a number where
text belongs, a key written twice), that is a **warning** with file, line and fix, and the
value is taken as the peer takes it. A file in memlab's own shape stays strict: those are
errors. What neither accepts (a missing field, an unknown op, a rescope onto its own scope)
is an error in both.

The reader (``scenario_read``) bounds the YAML; the field checks both shapes share are
``scenario_parser``'s; the rules that need the whole scenario (what
was written where, distinctive values) are in ``scenario_rules``. The file format is
documented in ``lab.lifecycle.scenario``.
"""

from __future__ import annotations

from typing import Any

from lab.lifecycle.scenario import OPS, Scenario, Scope, Step
from lab.lifecycle.scenario_parser import Parser, is_peer_shaped, kind
from lab.lifecycle.scenario_peer import peer_step
from lab.lifecycle.scenario_read import Where, read_yaml

TOP = {"id": True, "title": True, "tags": False, "subject": True, "steps": True}  # field: required
FIELDS: dict[str, dict[str, bool]] = {
    "write": {"key": True, "value": True, "ttl_steps": False}, "correct": {"key": True, "value": True},
    "delete": {"key": True}, "rescope": {"key": True, "to": True}, "advance_time": {"steps": True},
    "query": {"prompt": True, "expect": False}}
EXAMPLES = {"write": '{key: office, value: "Lisbon office on Rua Augusta"}', "delete": "{key: office}",
            "correct": '{key: office, value: "Porto office on Rua das Flores"}',
            "rescope": "{key: office, to: {user_id: bob}}", "advance_time": "{steps: 2}",
            "query": "{prompt: Where is my office?, expect: {must_use: [office]}}"}


def read_scenario(parser: Parser) -> tuple[Scenario, dict[Where, int]]:
    """The validated Scenario of ``parser``'s file and the line of every field path; each step read by
    its shape's function."""
    data, parser.lines, odd = read_yaml(parser.path)
    parser.lenient = is_peer_shaped(data)
    for o in odd:
        parser.oddity(o)
    parser.fields(data, (), TOP, "id: <name>, title: <text>, subject: {tenant_id, user_id}, steps: [...]")
    sid = parser.scenario_id(data["id"])
    subject = parser.scope(data["subject"], ("subject",), None)
    steps = data["steps"]
    if not isinstance(steps, list):
        raise parser.fail(("steps",), f"must be a list of steps, not {kind(steps)}",
                          "e.g. steps: [{write: {key: k, value: v}}]")
    if not steps:
        parser.forgive(("steps",), "no steps: the scenario measures nothing",
                       "add steps, e.g. steps: [{write: {key: k, value: v}}]", "it is run, and asks nothing")
    parsed = tuple(peer_step(parser, i, item, subject) if isinstance(item, dict) and "op" in item
                   else memlab_step(parser, i, item, subject) for i, item in enumerate(steps))
    return Scenario(sid, parser.text(data["title"], ("title",)), parser.tags(data.get("tags", [])), subject,
                    parsed, str(parser.path)), parser.lines


def memlab_step(parser: Parser, index: int, item: Any, subject: Scope) -> Step:
    """One step in memlab's shape: exactly one op key with its fields, and an optional ``as:``
    (the peer's shape: ``scenario_peer.peer_step``)."""
    where: Where = ("steps", index)
    if not isinstance(item, dict):
        raise parser.fail(where, f"a step is a one-key mapping {{op: {{fields}}}}, not {kind(item)}",
                          f"e.g. - write: {EXAMPLES['write']}")
    ops = [k for k in item if k != "as"]
    for name in ops:
        if name not in OPS:
            raise parser.fail(where + (name,), f"unknown op {name!r}", f"use one of: {', '.join(OPS)} "
                              f"(a step is {{op: {{fields}}}}, e.g. - write: {EXAMPLES['write']})")
    if len(ops) != 1:
        raise parser.fail(where, f"a step has exactly one op, found {len(ops)}",
                          "split it into one step per op" if ops else f"add one, e.g. - write: {EXAMPLES['write']}")
    op, inner = ops[0], where + (ops[0],)
    body = parser.fields(item[op], inner, FIELDS[op], f"{op}: {EXAMPLES[op]}")
    scope = subject
    if "as" in item:
        if op == "advance_time":
            raise parser.fail(where + ("as",), "advance_time moves the one logical clock: it has no scope",
                              "remove as: from this step")
        scope = parser.scope(item["as"], where + ("as",), subject)
    found: dict[str, Any] = {n: parser.text(body[n], inner + (n,)) for n in ("key", "value", "prompt") if n in body}
    if "value" in found:
        parser.judged_value(found["value"], inner + ("value",))
    found.update({n: parser.positive(body[n], inner + (n,)) for n in ("ttl_steps", "steps") if n in body})
    if "to" in body:
        found["to"] = parser.target(body["to"], inner + ("to",), scope)
    if "expect" in body:
        found["must_use"] = _must_use(parser, body["expect"], inner + ("expect",))
    return Step(index=index, line=parser.lines[where], op=op, scope=scope, **found)


def _must_use(parser: Parser, value: Any, where: Where) -> tuple[str, ...]:
    """``expect: {must_use: [keys]}``: a non-empty list of distinct keys."""
    keys = parser.fields(value, where, {"must_use": True}, "expect: {must_use: [office]}")["must_use"]
    if not isinstance(keys, list) or not keys:
        raise parser.fail(where + ("must_use",), "must be a non-empty list of keys",
                          "e.g. must_use: [office], or remove expect:")
    out = tuple(parser.text(k, where + ("must_use", i)) for i, k in enumerate(keys))
    if len(set(out)) != len(out):
        raise parser.fail(where + ("must_use",), "names a key twice", "name each key once")
    return out
