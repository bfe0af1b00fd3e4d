"""The protocol's shapes (images/README.md): request fields, answer shapes, fault kinds.

A fault (:class:`BadRequest`, :class:`Unsupported`) answers ``refused: false`` (a harness
error); :class:`Refused` repeats a refused ``open``. Pure functions on the decoded request and
on what a driver returns; imports only the standard library.
"""

from __future__ import annotations

import json
from typing import Any

#: Every op, in the order the answer to an unknown op names them.
OPS = ("open", "describe", "write", "read", "erase", "audit", "update", "advance_time",
       "frontdoor_open", "frontdoor_write", "frontdoor_read", "frontdoor_message")


class BadRequest(ValueError):
    """The request (or the configuration it carries) is wrong: a harness fault, ``refused: false``."""


class Unsupported(NotImplementedError):
    """The driver does not offer this op: a harness fault, ``refused: false``."""


class BadOp(BadRequest):
    """An unknown op in an otherwise well-formed request: the answer still echoes its id."""

    def __init__(self, rid: int, message: str):
        super().__init__(message)
        self.rid = rid


class Refused(Exception):
    """Raised for every op after ``open`` was refused: the same error again."""

    def __init__(self, error: dict):
        super().__init__(error.get("message", ""))
        self.error = error


def error(exc: BaseException) -> dict:
    """An answer's ``error``: the exception's class name and message."""
    return {"type": type(exc).__name__, "message": str(exc)}


def parse(line: bytes) -> dict:
    """Decode one request line; a fault raises BadRequest (the answer then echoes id null)."""
    try:
        request = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise BadRequest(f"not a JSON line: {exc}") from None
    if not isinstance(request, dict):
        raise BadRequest("a request is a JSON object")
    rid = request.get("id")
    if not isinstance(rid, int) or isinstance(rid, bool):
        raise BadRequest("request id must be an integer")
    if request.get("op") not in OPS:
        raise BadOp(rid, f"unknown op {request.get('op')!r}; use one of {list(OPS)}")
    return request


def field(req: dict, name: str, kind: type, default: Any = ...) -> Any:
    """``req[name]``, which must be a ``kind``; ``default`` when absent or null (a BadRequest without one)."""
    if name not in req or req[name] is None:
        if default is ...:
            raise BadRequest(f"{req['op']}: missing field {name!r}")
        return default
    if not isinstance(req[name], kind):
        raise BadRequest(f"{req['op']}: field {name!r} must be {kind.__name__}")
    return req[name]


def record(rec: Any) -> dict:
    """A record the driver returned, checked (it has an ``id``) and shaped: id a string, meta a dict."""
    if not isinstance(rec, dict) or "id" not in rec:
        raise BadRequest(f"driver returned a record without an id: {rec!r}")
    meta = rec.get("meta") or {}
    return {**rec, "id": str(rec["id"]), "meta": dict(meta)}


def audit(result: Any) -> dict:
    """The driver's audit result, checked and shaped: {ok, problems, call}."""
    if not isinstance(result, dict) or not isinstance(result.get("ok"), bool):
        raise BadRequest(f"driver audit must return {{ok, problems, call}}, got {result!r}")
    return {"ok": result["ok"], "problems": [str(p) for p in result.get("problems") or []],
            "call": str(result.get("call", ""))}


def describe(result: Any) -> dict:
    """The driver's describe result, checked (sut, version) and completed (libraries, capabilities)."""
    if not isinstance(result, dict) or not {"sut", "version"} <= set(result):
        raise BadRequest(f"driver describe must return {{sut, version, libraries, capabilities}}, got {result!r}")
    return {"libraries": {}, "capabilities": {}, **result}
