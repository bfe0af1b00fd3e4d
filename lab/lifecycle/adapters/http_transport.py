"""One bounded POST to a shim: a deadline for the whole request, a cap on the answer, errors named.

A shim is outside code: hostile until bounded. ``Transport.post`` gives each request one
deadline for everything (connect, headers, every byte of the body; an answer that trickles in
one byte at a time is cut at the deadline, not at a timeout that restarts on every byte; a shim
that stops sending altogether is cut at most one deadline later) and reads at most
``MAX_ANSWER_BYTES`` of the (decoded) answer, returned as received beside its JSON (the evidence is
the body, not a re-serialisation). Informational answers (an endless ``102 Processing``) cannot extend
the deadline: every socket read and write of the request is bounded by the time left (a network
backend that knows the request's deadline). The answer's bytes are decoded here, capped *while* they
are decoded (a few KB of gzip expand to GBs): at most one ``Content-Encoding`` (gzip or deflate) is
read; stacked or unknown encodings are refused (kind ``encoding``). A 2xx answer is JSON in UTF-8, read as strictly as the result
set that keeps it: an object that repeats a member name is refused (read last-wins, the first value
would reach the agent unjudged), so are NaN, Infinity and a number no float holds (``1e400``: no
result set can save it), and JSON nested more than ``http_json.MAX_ANSWER_DEPTH`` deep (kept inside an
observation, it would nest deeper than a result set is read). Every failure is an :class:`HttpError`
(an :class:`AdapterError`: a harness fault, never a verdict) naming the endpoint, what happened,
the measured latency and the fix; text from the shim in a message is made inert (control and
escape characters shown as ``\\xNN``, cut to a few hundred characters) and every secret memlab expanded
(a token, a header value from the environment) is redacted (:func:`lab.lifecycle.adapters.http_secrets.redact`) from every text an
error carries and from what an answer saves. Loopback (:func:`lab.lifecycle.adapters.http_reach.loopback`, decided by the address a
host parses or resolves to, any spelling) is never sent through a proxy.

May import: the standard library, httpx, ``lab.lifecycle.adapters`` (its exception, the deadline-bounded
backend ``http_deadline`` and the redaction of ``http_secrets``; whether a host is loopback is
``http_reach``'s), ``lab.resultset.loading`` (how deep a result set is read) and ``lab.driver.lines``
(how deep a JSON value nests, measured as for a driver's answers).
"""
from __future__ import annotations

import time
import zlib
from typing import Any

import httpx

from lab.lifecycle.adapters import AdapterError
from lab.lifecycle.adapters.http_deadline import DEADLINE, bound
from lab.lifecycle.adapters.http_json import Refused, decoded, excerpt, inert
from lab.lifecycle.adapters.http_secrets import redact, scrub

MAX_ANSWER_BYTES = 4 * 1024 * 1024
#: Error kinds where the endpoint did not answer as an endpoint should (vs "shape": it answered
#: 2xx, but not in the contract's shape; "convergence": a mutation that never showed).
ANSWER_KINDS = ("connect", "route", "timeout", "transport", "status", "size", "encoding")
#: The encodings read (one at most); asked for explicitly, so the HTTP library's defaults do not matter.
ENCODINGS = ("gzip", "x-gzip", "deflate")


class HttpError(AdapterError):
    """One endpoint's failure: ``kind`` (connect|route|timeout|transport|status|size|encoding|shape|
    convergence), the fix, the status and the measured seconds; ``body`` the answer when one came."""

    def __init__(self, endpoint: str, kind: str, message: str, fix: str, *,
                 status: int | None = None, seconds: float = 0.0, body: Any = None):
        super().__init__(f"{endpoint}: {message}\n  fix: {fix}")
        self.endpoint, self.kind, self.message, self.fix = endpoint, kind, message, fix
        self.status, self.seconds, self.body = status, seconds, body


class _Decoder:
    """An answer's ``Content-Encoding`` undone chunk by chunk, never more than ``cap`` decoded bytes in
    memory: ``feed`` returns the decoded bytes, raises :class:`_Over` past the cap, :class:`_Refused`
    for an encoding not read."""

    def __init__(self, header: str, cap: int):
        codings = [c.strip().lower() for c in header.split(",") if c.strip() and c.strip().lower() != "identity"]
        if len(codings) > 1:
            raise _Refused(f"stacked encodings (Content-Encoding: {inert(header, 80)}): at most one is read, "
                           "so its decoded size stays bounded")
        if codings and codings[0] not in ENCODINGS:
            raise _Refused(f"Content-Encoding {inert(codings[0], 40)}, which is not read")
        self.coding, self.cap, self.size, self._first = (codings or [None])[0], cap, 0, True
        self._zlib = (zlib.decompressobj(zlib.MAX_WBITS | 16) if self.coding in ("gzip", "x-gzip")
                      else zlib.decompressobj() if self.coding == "deflate" else None)

    def feed(self, chunk: bytes) -> bytes:
        if self._zlib is None:
            out = chunk
        else:
            try:
                out = self._zlib.decompress(chunk, self.cap - self.size + 1)  # never more than the room left + 1
            except zlib.error:
                if not (self._first and self.coding == "deflate"):
                    raise _Refused(f"a {self.coding} body that does not decode") from None
                self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)  # deflate sent raw, as some servers do
                out = self._zlib.decompress(chunk, self.cap - self.size + 1)
        self._first = False
        return self._count(out)

    def flush(self) -> bytes:
        return self._count(self._zlib.flush(self.cap - self.size + 1) if self._zlib is not None else b"")

    def _count(self, out: bytes) -> bytes:
        self.size += len(out)
        if self.size > self.cap:
            raise _Over()
        return out


class _Over(Exception):
    pass


class _Refused(Exception):
    pass


class Transport:
    """POST JSON to a shim's endpoints with one deadline per request and a capped answer."""

    def __init__(self, headers: dict[str, str], *, proxy_env: bool, where: str,
                 transport: httpx.BaseTransport | None = None, secrets: tuple[str, ...] | None = None):
        """``proxy_env``: whether the environment's proxy settings apply (never for loopback: then no
        proxy at all, explicitly); ``secrets``: the values to redact from every text an error carries
        (None: every header value, and its last word, the credential of ``Bearer <token>``)."""
        self.where = where  # the config file, for fixes
        if secrets is None:
            secrets = {v for v in headers.values()} | {v.split()[-1] for v in headers.values() if v.split()}
        self.secrets = tuple(sorted((s for s in secrets if s.strip()), key=len, reverse=True))
        self._client = httpx.Client(headers={"Accept-Encoding": ", ".join(ENCODINGS), **headers},
                                    transport=transport, trust_env=proxy_env, mounts=None if proxy_env else {},
                                    follow_redirects=False)
        for mounted in [self._client._transport, *self._client._mounts.values()]:  # the env's proxies too
            bound(mounted)

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()

    def post(self, endpoint: str, url: str, route: str, body: dict, deadline: float) -> tuple[Any, int, float, str]:
        """POST ``body``; (the answer as JSON, None when empty; the status; seconds; the answer's text
        as received: its bytes decoded as UTF-8), every secret redacted from it and from any error."""
        try:
            payload, status, seconds, received = self._post(endpoint, url, route, body, deadline)
        except HttpError as exc:
            if not self.secrets:
                raise
            raise HttpError(exc.endpoint, exc.kind, redact(exc.message, self.secrets), redact(exc.fix, self.secrets),
                            status=exc.status, seconds=exc.seconds, body=scrub(exc.body, self.secrets)) from None
        return payload, status, seconds, received  # the answer's bytes were redacted as they were read

    def _post(self, endpoint: str, url: str, route: str, body: dict, deadline: float) -> tuple[Any, int, float, str]:
        start = time.perf_counter()
        left = lambda: max(0.001, deadline - (time.perf_counter() - start))  # noqa: E731
        limit = DEADLINE.set(time.monotonic() + deadline)  # every socket operation ends by then
        try:
            with self._client.stream("POST", url, json=body, timeout=httpx.Timeout(left())) as resp:
                raw = bytearray()
                try:
                    if resp.is_stream_consumed:  # an answer already in memory (a mock transport's), decoded
                        decoder, chunks = _Decoder("", MAX_ANSWER_BYTES), iter([resp.content])
                    else:
                        decoder = _Decoder(resp.headers.get("content-encoding", ""), MAX_ANSWER_BYTES)
                        chunks = resp.iter_raw()
                    for chunk in chunks:
                        raw += decoder.feed(chunk)
                        if time.perf_counter() - start > deadline:
                            raise httpx.ReadTimeout("deadline")
                    raw += decoder.flush()
                except _Over:
                    raise HttpError(endpoint, "size", f"the answer is over {MAX_ANSWER_BYTES} bytes (decoded)",
                                    "answer with what the agent is served, not the whole store",
                                    status=resp.status_code, seconds=time.perf_counter() - start) from None
                except _Refused as exc:
                    raise HttpError(endpoint, "encoding", f"POST {url} answered {resp.status_code} with {exc}",
                                    "answer uncompressed, or with one Content-Encoding: gzip or deflate",
                                    status=resp.status_code, seconds=time.perf_counter() - start) from None
                status, data = resp.status_code, self._redacted(bytes(raw))
        except httpx.TimeoutException:
            raise self.late(endpoint, route, deadline, time.perf_counter() - start) from None
        except httpx.ConnectError as exc:
            raise HttpError(endpoint, "connect", f"cannot connect to {url} ({inert(redact(str(exc), self.secrets))})",
                            f"start the service, or fix base_url in {self.where}") from None
        except httpx.HTTPError as exc:
            raise HttpError(endpoint, "transport", f"POST {url} failed: {inert(redact(str(exc), self.secrets))}",
                            "check the service's logs; it must answer every POST with JSON") from None
        finally:
            DEADLINE.reset(limit)
        seconds = time.perf_counter() - start
        if seconds > deadline:
            raise self.late(endpoint, route, deadline, seconds)
        try:
            (received, payload), refused = decoded(data), None
        except Refused as exc:
            (received, payload), refused = (None, None), exc
        if 300 <= status < 400:
            raise HttpError(endpoint, "route", f"POST {url} answered {status}, a redirect (to "
                            f"{inert(redact(resp.headers.get('location', '?'), self.secrets))}); redirects are not "
                            "followed",
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

    def _redacted(self, data: bytes) -> bytes:
        """An answer's bytes with every secret redacted before anything reads them (a shim that echoes
        the request's headers); bytes that are not UTF-8 kept as they came."""
        if not self.secrets:
            return data
        text = data.decode("utf-8", "surrogateescape")
        clean = redact(text, self.secrets)
        return data if clean == text else clean.encode("utf-8", "surrogateescape")

    def late(self, endpoint: str, route: str, limit: float, seconds: float) -> HttpError:
        """The error of a request that took longer than its deadline."""
        return HttpError(endpoint, "timeout", f"no whole answer within {limit:g} s (measured {seconds:.3f} s)",
                         f"make POST {route} answer faster, or raise its timeout in {self.where}", seconds=seconds)
