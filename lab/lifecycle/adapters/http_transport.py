"""One bounded POST to a shim: a deadline for the whole request, a cap on the answer, errors named.

A shim is outside code: hostile until bounded. ``Transport.post`` gives each request one
deadline for everything (connect, headers, every byte of the body; an answer that trickles in
one byte at a time is cut at the deadline, not at a timeout that restarts on every byte; a shim
that stops sending altogether is cut at most one deadline later) and reads at most
``MAX_ANSWER_BYTES`` of the (decoded) answer, returned as received beside its JSON (the evidence is
the body, not a re-serialisation). A 2xx answer is JSON in UTF-8, read as strictly as the result
set that keeps it: an object that repeats a member name is refused (read last-wins, the first value
would reach the agent unjudged), so are NaN, Infinity and a number no float holds (``1e400``: no
result set can save it), and JSON nested more than ``MAX_ANSWER_DEPTH`` deep (kept inside an
observation, it would nest deeper than a result set is read). Every failure is an :class:`HttpError`
(an :class:`AdapterError`: a harness fault, never a verdict) naming the endpoint, what happened,
the measured latency and the fix; text from the shim in a message is made inert (control and
escape characters shown as ``\\xNN``, cut to a few hundred characters).

May import: the standard library, httpx, ``lab.lifecycle.adapters`` and ``lab.resultset.loading``
(how deep a result set is read).
"""
from __future__ import annotations

import json
import math
import time
from ipaddress import ip_address
from typing import Any

import httpx

from lab.lifecycle.adapters import AdapterError
from lab.resultset.loading import MAX_JSON_DEPTH

MAX_ANSWER_BYTES = 4 * 1024 * 1024
#: The deepest answer read: an observation keeps it a few levels down and is read back at most
#: MAX_JSON_DEPTH deep.
MAX_ANSWER_DEPTH = MAX_JSON_DEPTH // 2
#: Error kinds where the endpoint did not answer as an endpoint should (vs "shape": it answered
#: 2xx, but not in the contract's shape; "convergence": a mutation that never showed).
ANSWER_KINDS = ("connect", "route", "timeout", "transport", "status", "size")


class HttpError(AdapterError):
    """One endpoint's failure: ``kind`` (connect|route|timeout|transport|status|size|shape|
    convergence), the fix, the status and the measured seconds; ``body`` the answer when one came."""

    def __init__(self, endpoint: str, kind: str, message: str, fix: str, *,
                 status: int | None = None, seconds: float = 0.0, body: Any = None):
        super().__init__(f"{endpoint}: {message}\n  fix: {fix}")
        self.endpoint, self.kind, self.message, self.fix = endpoint, kind, message, fix
        self.status, self.seconds, self.body = status, seconds, body


def inert(text: str, limit: int = 300) -> str:
    """Text from outside made safe to print: one line, control and escape characters as ``\\xNN``
    (or ``\\uNNNN``), at most ``limit`` characters."""
    shown = "".join(c if c.isprintable() and c not in "\x1b\x9b" else
                    (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}") for c in " ".join(str(text).split()))
    return shown if len(shown) <= limit else shown[:limit] + "..."


def excerpt(value: Any, limit: int = 200) -> str:
    """A one-line, inert excerpt of a body (JSON or text) for an error message."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return inert(text, limit)


class Refused(ValueError):
    """JSON a lenient reader takes and the contract refuses: ``what`` the answer holds, and the fix."""

    def __init__(self, what: str, fix: str):
        super().__init__(what)
        self.what, self.fix = what, fix


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in pairs:
        if name in out:
            raise Refused(f"a JSON object that names {inert(name, 80)!r} twice: which value reached the agent "
                          "is ambiguous", "send each key once in an object")
        out[name] = value
    return out


NUMBER_FIX = "send finite numbers that fit a float (any other value as a string)"


def _no_constant(name: str) -> Any:
    raise Refused(f"{name}, which is not JSON", NUMBER_FIX)


def _finite(lexeme: str) -> float:
    value = float(lexeme)
    if not math.isfinite(value):
        raise Refused(f"the number {inert(lexeme, 40)}, which no float holds", NUMBER_FIX)
    return value


def _depth(value: Any) -> int:
    """How deep a JSON value nests (a scalar 0, ``[]`` 1), walked with an explicit stack."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            stack.extend((member, level + 1) for member in (item.values() if isinstance(item, dict) else item))
    return deepest


def _decoded(data: bytes) -> tuple[str | None, Any]:
    """An answer's bytes as (its UTF-8 text, None when it is not UTF-8; its JSON, None when empty or
    not JSON); :class:`Refused` when it is JSON the contract refuses."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None, None
    if not data.strip():
        return text, None
    try:  # a byte order mark is tolerated, as a JSON reader of bytes does; the body keeps it
        payload = json.loads(text.removeprefix("\ufeff"), object_pairs_hook=_unique,
                             parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:
        raise _too_deep() from None
    except Refused:
        raise
    except ValueError:
        return text, None
    if _depth(payload) > MAX_ANSWER_DEPTH:
        raise _too_deep()
    return text, payload


def _too_deep() -> Refused:
    return Refused(f"JSON nested too deep (more than {MAX_ANSWER_DEPTH} levels)",
                   "answer with what the agent is served, not a deeply nested structure")


def loopback(host: str | None) -> bool:
    """Whether a host name is this machine (never sent through a proxy)."""
    try:
        return host == "localhost" or ip_address(host or "").is_loopback
    except ValueError:
        return False


class Transport:
    """POST JSON to a shim's endpoints with one deadline per request and a capped answer."""

    def __init__(self, headers: dict[str, str], *, proxy_env: bool, where: str,
                 transport: httpx.BaseTransport | None = None):
        self.where = where  # the config file, for fixes
        self._client = httpx.Client(headers=headers, transport=transport, trust_env=proxy_env,
                                    follow_redirects=False)

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()

    def post(self, endpoint: str, url: str, route: str, body: dict, deadline: float) -> tuple[Any, int, float, str]:
        """POST ``body``; (the answer as JSON, None when empty; the status; seconds; the answer's text
        as received: its bytes decoded as UTF-8)."""
        start = time.perf_counter()
        left = lambda: max(0.001, deadline - (time.perf_counter() - start))  # noqa: E731
        try:
            with self._client.stream("POST", url, json=body, timeout=httpx.Timeout(left())) as resp:
                raw = bytearray()
                for chunk in resp.iter_bytes():
                    raw += chunk
                    if len(raw) > MAX_ANSWER_BYTES:
                        raise HttpError(endpoint, "size", f"the answer is over {MAX_ANSWER_BYTES} bytes",
                                        "answer with what the agent is served, not the whole store",
                                        seconds=time.perf_counter() - start)
                    if time.perf_counter() - start > deadline:
                        raise httpx.ReadTimeout("deadline")
                status, data = resp.status_code, bytes(raw)
        except httpx.TimeoutException:
            raise self.late(endpoint, route, deadline, time.perf_counter() - start) from None
        except httpx.ConnectError as exc:
            raise HttpError(endpoint, "connect", f"cannot connect to {url} ({inert(str(exc))})",
                            f"start the service, or fix base_url in {self.where}") from None
        except httpx.HTTPError as exc:
            raise HttpError(endpoint, "transport", f"POST {url} failed: {inert(str(exc))}",
                            "check the service's logs; it must answer every POST with JSON") from None
        seconds = time.perf_counter() - start
        if seconds > deadline:
            raise self.late(endpoint, route, deadline, seconds)
        try:
            (received, payload), refused = _decoded(data), None
        except Refused as exc:
            (received, payload), refused = (None, None), exc
        if 300 <= status < 400:
            raise HttpError(endpoint, "route", f"POST {url} answered {status}, a redirect (to "
                            f"{inert(resp.headers.get('location', '?'))}); redirects are not followed",
                            f"point base_url (or paths.{endpoint}) in {self.where} at the final address",
                            status=status, seconds=seconds)
        if status in (404, 405):
            raise HttpError(endpoint, "route", f"POST {url} answered {status}: no such route",
                            f"implement POST {route} in the service, or point the config ({self.where}) at "
                            "its route", status=status, seconds=seconds)
        if not 200 <= status < 300:
            told = payload.get("fix") if isinstance(payload, dict) and isinstance(payload.get("fix"), str) else None
            raise HttpError(endpoint, "status", f"POST {url} answered {status}: {excerpt(data.decode('utf-8', 'replace'))}",
                            inert(told) if told else f"fix the service's {endpoint} handler (see the request the "
                            "contract describes)", status=status, seconds=seconds, body=payload)
        if refused is not None:
            raise HttpError(endpoint, "shape", f"answered {status} with {refused.what}", refused.fix,
                            status=status, seconds=seconds)
        if received is None or (data.strip() and payload is None):
            raise HttpError(endpoint, "shape", f"answered {status} with {excerpt(data.decode('utf-8', 'replace'))}, "
                            "not JSON in UTF-8", "answer with JSON in UTF-8 (Content-Type: application/json)",
                            status=status, seconds=seconds)
        return payload, status, seconds, received

    def late(self, endpoint: str, route: str, limit: float, seconds: float) -> HttpError:
        """The error of a request that took longer than its deadline."""
        return HttpError(endpoint, "timeout", f"no whole answer within {limit:g} s (measured {seconds:.3f} s)",
                         f"make POST {route} answer faster, or raise its timeout in {self.where}", seconds=seconds)
