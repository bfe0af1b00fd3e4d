"""The two HTTP shim contracts: what each request carries and how each answer is read.

======================  ==============================================  =============================================
                        memlab's own                                    memorycheck's (the peer gate's, unchanged)
======================  ==============================================  =============================================
scope in a request      ``{"scope": {"tenant_id", "user_id"}}``         ``"tenant_id"`` and ``"user_id"`` at the top
query request           ``{scope, "prompt"}``                           ``{tenant_id, user_id, "prompt", "seed"}``
query answer            ``{"memories": [{"text", ...}]}``, or            ``{"answer": str, "retrieved": [{...}]}``
                        ``{"answer": str}`` (memories beside it: what    (``retrieved`` optional)
                        reached the agent)
mutation answer         2xx with ``{"ok": true}`` (an echoed key must   any 2xx (JSON or empty)
                        match the request's)
======================  ==============================================  =============================================

``reset`` is ``{"namespace"}``, ``delete`` ``{scope, "key"}``, ``write`` ``{scope, "key", "value",
"ttl_steps"?}`` and ``advance_time`` ``{"steps"}`` in both. A query answer is read into
:class:`Reading`: the text the judge reads as the agent's answer, the served records, and what
reached the agent when the answer says so apart (``retrieved``: each retrieved item read whole, or
None). Everything that reached the agent is read (``leaves``): every member name, string and
number of a retrieved item or of a memory — its ``text`` first, then every other field — so a
deleted value in another field, or served as a JSON number, is judged like one in ``text``.

May import: the standard library and ``lab.lifecycle.adapters`` (its HTTP transport).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lab.lifecycle.adapters.http_json import excerpt
from lab.lifecycle.adapters.http_transport import HttpError
from lab.lifecycle.adapters.leaves import record_text, text_of

MEMLAB_SHAPE = 'answer {"memories": [{"text": "...", "key": "..."}]} (or {"answer": "..."} for prose)'
PEER_SHAPE = 'answer {"answer": "...", "retrieved": [{"key": "...", "value": "..."}]} ("retrieved" optional)'


@dataclass(frozen=True)
class Reading:
    """A query answer as the judge reads it."""

    records: list[dict]
    text: str
    retrieved: list[str] | None


def scope_fields(contract: str, tenant_id: str, user_id: str) -> dict[str, Any]:
    """How a request carries its scope in ``contract``."""
    if contract == "memorycheck":
        return {"tenant_id": tenant_id, "user_id": user_id}
    return {"scope": {"tenant_id": tenant_id, "user_id": user_id}}


def item_text(item: Any) -> str:
    """One retrieved item read whole: a string itself; else every member name, string and number, one a line."""
    return text_of(item)


def read_answer(contract: str, payload: Any) -> Reading:
    """A query's JSON answer in ``contract`` as a Reading; HttpError (kind shape) when it is not one."""
    if not isinstance(payload, dict):
        raise HttpError("query", "shape", f"answered {excerpt(payload)}, not a JSON object",
                        PEER_SHAPE if contract == "memorycheck" else MEMLAB_SHAPE, body=payload)
    return _peer(payload) if contract == "memorycheck" else _memlab(payload)


def _answer(payload: dict, fix: str) -> str:
    answer = payload["answer"]
    if not isinstance(answer, str):
        raise HttpError("query", "shape", f'"answer" is {excerpt(answer)}, not a string', fix, body=payload)
    return answer


def _peer(payload: dict) -> Reading:
    if "answer" not in payload:
        raise HttpError("query", "shape", f'answered {excerpt(payload)} without "answer"', PEER_SHAPE, body=payload)
    answer = _answer(payload, PEER_SHAPE)
    retrieved = payload.get("retrieved")
    if retrieved is not None and not isinstance(retrieved, list):
        raise HttpError("query", "shape", f'"retrieved" is {excerpt(retrieved)}, not a list', PEER_SHAPE, body=payload)
    records = [{"text": answer, "meta": {"kind": "answer"}}]
    return Reading(records, answer, [item_text(r) for r in retrieved] if retrieved is not None else None)


def _memlab(payload: dict) -> Reading:
    memories = payload.get("memories")
    if memories is None and "answer" not in payload:
        raise HttpError("query", "shape", f'answered {excerpt(payload)}: no "memories" list or "answer"',
                        MEMLAB_SHAPE, body=payload)
    records = []
    if memories is not None:
        if not isinstance(memories, list):
            raise HttpError("query", "shape", f'"memories" is {excerpt(memories)}, not a list', MEMLAB_SHAPE,
                            body=payload)
        for i, item in enumerate(memories):
            if not isinstance(item, dict) or not isinstance(item.get("text"), str):
                raise HttpError("query", "shape", f"memories[{i}] is {excerpt(item)}, not an object with a text "
                                "string", MEMLAB_SHAPE, body=payload)
            records.append({"text": item["text"], "meta": {k: v for k, v in item.items() if k != "text"}})
    if "answer" in payload:
        answer = _answer(payload, MEMLAB_SHAPE)
        retrieved = [record_text(m) for m in memories] if memories is not None else None
        return Reading([{"text": answer, "meta": {"kind": "answer"}}] + records, answer, retrieved)
    return Reading(records, "\n".join(record_text(m) for m in memories), None)


def mutation_shape(contract: str, endpoint: str, body: dict, payload: Any, seconds: float) -> None:
    """A mutation's answer in ``contract``: memlab's must say ``"ok": true`` (and echo the right key)."""
    if contract == "memorycheck":
        return
    if not isinstance(payload, dict) or payload.get("ok") is not True:
        raise HttpError(endpoint, "shape", f'answered {excerpt(payload)} without "ok": true',
                        'answer {"ok": true} (2xx) once the mutation is applied; refuse with a non-2xx '
                        'status and a JSON error', seconds=seconds, body=payload)
    if "key" in body and "key" in payload and payload["key"] != body["key"]:
        raise HttpError(endpoint, "shape", f"acknowledged key {excerpt(payload['key'])}, not {body['key']!r}",
                        "echo the request's key, or leave key out of the answer", seconds=seconds, body=payload)
