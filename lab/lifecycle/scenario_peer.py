"""A step in the peer gate's shape (memorycheck's scenario format), read as the peer reads it.

::

    - op: write                 # write | correct | delete | rescope | advance_time | query
      key: plan
      value: starter-legacy-2024
      ttl_steps: 2              # write or correct
    - op: rescope
      key: plan
      to: {user_id: bob}        # merged over the step's scope
    - op: advance_time
      steps: 1
    - op: query
      prompt: "Which plan is this user on?"
      expect: {must_use: [plan]}  # optional; an empty list asks nothing
      as: {user_id: bob}        # any step: merged over the subject

Errors where the peer refuses too: no ``op`` or an unknown one, a missing field, ``expect``
or ``to`` of the wrong type, a ttl or step count that is not a number, ``advance_time`` by
less than one step. Warnings (``Parser.forgive``) where the peer takes what memlab's own
shape would refuse, taken the peer's way: an unknown or misplaced field (ignored), text
written as a number or boolean (its ``str``), ``ttl_steps`` below 1 (1: the peer expires a
value only at the next ``advance_time``, so 0 and 1 are the same there), a ttl or step count
written as text or a fraction (its ``int``), ``as:`` on ``advance_time`` (ignored), a key named
twice in ``must_use`` (each counted, as the peer counts it).

A ``correct`` that carries ``ttl_steps`` is run as a write with that TTL (the peer's correct
*is* a write; a SUT's own update takes no TTL).
"""

from __future__ import annotations

from typing import Any

from lab.lifecycle.scenario import OPS, Scope, Step
from lab.lifecycle.scenario_read import Where
from lab.lifecycle.scenario_parser import Parser, kind

#: op -> {field: required}: the peer's fields of each op, all written beside ``op``.
PEER_FIELDS: dict[str, dict[str, bool]] = {
    "write": {"key": True, "value": True, "ttl_steps": False},
    "correct": {"key": True, "value": True, "ttl_steps": False},
    "delete": {"key": True}, "rescope": {"key": True, "to": True}, "advance_time": {"steps": True},
    "query": {"prompt": True, "expect": False}}
PEER_EXAMPLES = {"write": "- {op: write, key: plan, value: starter-legacy-2024}",
                 "correct": "- {op: correct, key: plan, value: scale-annual-2026}",
                 "delete": "- {op: delete, key: plan}", "rescope": "- {op: rescope, key: plan, to: {user_id: bob}}",
                 "advance_time": "- {op: advance_time, steps: 1}",
                 "query": "- {op: query, prompt: Which plan?, expect: {must_use: [plan]}}"}


def peer_step(parser: Parser, index: int, item: dict, subject: Scope) -> Step:
    """One ``- op: NAME`` step, its fields beside ``op``, validated as the peer validates it."""
    where: Where = ("steps", index)
    op = item.get("op")
    if not isinstance(op, str) or op not in OPS:
        raise parser.fail(where + ("op",), f"unknown op {op!r}", f"use one of: {', '.join(OPS)}, "
                          f"e.g. {PEER_EXAMPLES['write']}")
    spec = PEER_FIELDS[op]
    parser.fields(item, where, spec, PEER_EXAMPLES[op], beside=("op", "as"))
    scope = subject
    if item.get("as") is not None and item.get("as") != {}:
        if op == "advance_time":
            parser.forgive(where + ("as",), "advance_time moves the one logical clock: it has no scope",
                           "remove as: from this step", "it is ignored")
        else:
            scope = parser.scope(item["as"], where + ("as",), subject)
    found: dict[str, Any] = {n: parser.text(item[n], where + (n,)) for n in ("key", "value", "prompt") if n in spec
                             and n in item}
    if "value" in found:
        parser.judged_value(found["value"], where + ("value",))
    if "ttl_steps" in spec and item.get("ttl_steps") is not None:
        found["ttl_steps"] = _count(parser, item["ttl_steps"], where + ("ttl_steps",), floor=True)
    if op == "advance_time":
        found["steps"] = _count(parser, item["steps"], where + ("steps",), floor=False)
    if op == "rescope":
        found["to"] = parser.target(item["to"], where + ("to",), scope)
    if op == "query":
        found["must_use"] = _must_use(parser, item.get("expect"), where + ("expect",))
    if op == "correct" and "ttl_steps" in found:
        op = "write"  # the peer's correct is a write, TTL included
    return Step(index=index, line=parser.lines[where], op=op, scope=scope, **found)


def _count(parser: Parser, value: Any, where: Where, floor: bool) -> int:
    """A whole number the way the peer reads one (``int``); ``floor``: below 1 counts as 1."""
    shown = where[-1]
    try:
        if isinstance(value, (dict, list)) or value is None:
            raise ValueError
        number = int(value)
    except (TypeError, ValueError):
        raise parser.fail(where, f"must be a whole number, not {kind(value)}", f"e.g. {shown}: 2") from None
    if isinstance(value, bool) or not isinstance(value, int):
        parser.forgive(where, f"must be a whole number, not {kind(value)} ({value!r})", f"write e.g. {shown}: 2",
                       f"taken as {number}, as memorycheck takes it")
    if number >= 1:
        return number
    if not floor:
        raise parser.fail(where, f"must be at least 1, not {number}", f"e.g. {shown}: 1")
    parser.forgive(where, f"must be at least 1, not {number}", f"write {shown}: 1",
                   "taken as 1: memorycheck expires a value only at the next advance_time, so the two are the same")
    return 1


def _must_use(parser: Parser, expect: Any, where: Where) -> tuple[str, ...]:
    """``expect: {must_use: [keys]}``; absent, null or empty asks nothing (as the peer reads it)."""
    if not expect:
        return ()
    body = parser.fields(expect, where, {"must_use": False}, "expect: {must_use: [plan]}")
    keys = body.get("must_use") or []
    if not isinstance(keys, list):
        raise parser.fail(where + ("must_use",), f"must be a list of keys, not {kind(keys)}",
                          "e.g. must_use: [plan]")
    out = tuple(parser.text(k, where + ("must_use", i)) for i, k in enumerate(keys))
    if len(set(out)) != len(out):
        parser.forgive(where + ("must_use",), "names a key twice", "name each key once",
                       "each is counted, as memorycheck counts it")
    return out
