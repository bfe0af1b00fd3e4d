"""The lifecycle additions to the protocol (images/README.md, "Lifecycle additions").

The ops ``update`` and ``advance_time`` (sent only to a driver whose profile declares them)
and what a ``write``/``read``/``erase``/``update`` request may carry beside its context:
``scope`` ({tenant_id, user_id}, only with ``tenants``) and ``read``'s ``query``. A driver that
knows none of them keeps working. Imports only the standard library and ``protocol``.
"""

from __future__ import annotations

from typing import Any

from memlab_driver.protocol import BadRequest, Unsupported, field, record


class LifecycleOps:
    """The lifecycle part of :class:`~memlab_driver.Driver`: override what the SUT offers."""

    #: Lifecycle additions, set before each write/read/erase/update: the request's ``scope``
    #: ({"tenant_id", "user_id"}, only to a driver declaring ``tenants``) and ``read``'s ``query``.
    scope: dict[str, str] | None = None
    query: str | None = None

    def update(self, context: str, record_id: str, text: str, meta: dict) -> dict:
        """Lifecycle: the SUT's own update of one record; return it (at least {"id"})."""
        raise Unsupported("update")

    def advance_time(self, steps: int) -> int | None:
        """Lifecycle: advance the SUT's logical clock by ``steps``; return the new time (or None)."""
        raise Unsupported("advance_time")


def set_additions(driver: LifecycleOps, req: dict) -> None:
    """Set ``driver.scope`` and ``driver.query`` from a request (None where it has none)."""
    driver.scope = scope(req)
    driver.query = field(req, "query", str, default=None) if req["op"] == "read" else None


def scope(req: dict) -> dict[str, str] | None:
    """The lifecycle ``scope`` of a request ({tenant_id, user_id} strings), or None when absent."""
    found: Any = field(req, "scope", dict, default=None)
    if found is not None and not all(isinstance(found.get(k), str) for k in ("tenant_id", "user_id")):
        raise BadRequest(f"{req['op']}: scope must be {{tenant_id, user_id}} strings")
    return None if found is None else {"tenant_id": found["tenant_id"], "user_id": found["user_id"]}


def update(driver: LifecycleOps, context: str, req: dict) -> dict:
    """Serve ``update``: the answer's ``record``."""
    rec = driver.update(context, field(req, "record", str), field(req, "text", str),
                        field(req, "meta", dict, default={}))
    return {"record": record(rec)}


def advance_time(driver: LifecycleOps, req: dict) -> dict:
    """Serve ``advance_time``: the answer's ``result: {now}`` when the driver says the new time."""
    steps = field(req, "steps", int)
    if isinstance(steps, bool) or steps < 0:
        raise BadRequest("advance_time: steps must be a non-negative integer")
    now = driver.advance_time(steps)
    return {} if now is None else {"result": {"now": now}}
