"""One bounded POST to a shim: a deadline for the whole request, a cap on the answer, errors named.

A shim is outside code: hostile until bounded. ``Transport.post`` gives each request one
deadline for everything (connect, headers, every byte of the body; an answer that trickles in
one byte at a time is cut at the deadline, not at a timeout that restarts on every byte; a shim
that stops sending altogether is cut at most one deadline later) and reads at most
``MAX_ANSWER_BYTES`` of the (decoded) answer, returned as received beside its JSON (the evidence is
the body, not a re-serialisation); an object that repeats a member name is refused (read last-wins,
the first value would reach the agent unjudged). Every failure is an :class:`HttpError` (an
:class:`AdapterError`: a harness fault, never a verdict) naming the endpoint, what happened, the
measured latency and the fix; text from the shim in a message is made inert (control and
escape characters shown as ``\\xNN``, cut to a few hundred characters).

May import: the standard library, httpx and ``lab.lifecycle.adapters``.
"""
from __future__ import annotations

import json
import time
from ipaddress import ip_address
from typing import Any

import httpx

from lab.lifecycle.adapters import AdapterError

MAX_ANSWER_BYTES = 4 * 1024 * 1024
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


class DuplicateKey(ValueError):
    """A JSON object that names one member twice."""


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in pairs:
        if name in out:
            raise DuplicateKey(name)
        out[name] = value
    return out


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
        """POST ``body``; (the answer as JSON, None when empty or not JSON; the status; seconds; the
        answer's text as received)."""
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
                status, text = resp.status_code, bytes(raw)
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
            payload = json.loads(text, object_pairs_hook=_unique) if text.strip() else None
        except RecursionError:
            raise HttpError(endpoint, "shape", f"answered {status} with JSON nested too deep to read",
                            "answer with what the agent is served, not a deeply nested structure",
                            status=status, seconds=seconds) from None
        except DuplicateKey as exc:
            raise HttpError(endpoint, "shape", f"answered {status} with a JSON object that names "
                            f"{inert(str(exc.args[0]), 80)!r} twice: which value reached the agent is ambiguous",
                            "send each member name once per object", status=status, seconds=seconds) from None
        except ValueError:
            payload = None
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
            raise HttpError(endpoint, "status", f"POST {url} answered {status}: {excerpt(text.decode('utf-8', 'replace'))}",
                            inert(told) if told else f"fix the service's {endpoint} handler (see the request the "
                            "contract describes)", status=status, seconds=seconds, body=payload)
        if text.strip() and payload is None:
            raise HttpError(endpoint, "shape", f"answered {status} with {excerpt(text.decode('utf-8', 'replace'))}, "
                            "not JSON", "answer with JSON (Content-Type: application/json)",
                            status=status, seconds=seconds)
        return payload, status, seconds, text.decode("utf-8", "replace")

    def late(self, endpoint: str, route: str, limit: float, seconds: float) -> HttpError:
        """The error of a request that took longer than its deadline."""
        return HttpError(endpoint, "timeout", f"no whole answer within {limit:g} s (measured {seconds:.3f} s)",
                         f"make POST {route} answer faster, or raise its timeout in {self.where}", seconds=seconds)
