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
result set can save it), and JSON nested more than ``MAX_ANSWER_DEPTH`` deep (kept inside an
observation, it would nest deeper than a result set is read). Every failure is an :class:`HttpError`
(an :class:`AdapterError`: a harness fault, never a verdict) naming the endpoint, what happened,
the measured latency and the fix; text from the shim in a message is made inert (control and
escape characters shown as ``\\xNN``, cut to a few hundred characters) and every secret memlab expanded
(a token, a header value from the environment) is redacted (:func:`redact`) from every text an
error carries and from what an answer saves. Loopback (:func:`loopback`, decided by the address a
host parses or resolves to, any spelling) is never sent through a proxy.

May import: the standard library, httpx (and httpcore, its network layer: the deadline-bounded
backend), ``lab.lifecycle.adapters``, ``lab.resultset.loading`` (how deep a result set is read)
and ``lab.driver.lines`` (how deep a JSON value nests, measured as for a driver's answers).
"""
from __future__ import annotations

import contextvars
import json
import math
import socket
import time
import zlib
from ipaddress import IPv4Address, ip_address
from typing import Any

import httpcore
import httpx

from lab.driver.lines import json_depth
from lab.lifecycle.adapters import AdapterError
from lab.resultset.loading import MAX_JSON_DEPTH

MAX_ANSWER_BYTES = 4 * 1024 * 1024
#: The deepest answer read: an observation keeps it a few levels down and is read back at most
#: MAX_JSON_DEPTH deep.
MAX_ANSWER_DEPTH = MAX_JSON_DEPTH // 2
#: Error kinds where the endpoint did not answer as an endpoint should (vs "shape": it answered
#: 2xx, but not in the contract's shape; "convergence": a mutation that never showed).
ANSWER_KINDS = ("connect", "route", "timeout", "transport", "status", "size", "encoding")
#: What a redacted secret reads as.
REDACTED = "[redacted]"
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
    if json_depth(payload) > MAX_ANSWER_DEPTH:
        raise _too_deep()
    return text, payload


def _too_deep() -> Refused:
    return Refused(f"JSON nested too deep (more than {MAX_ANSWER_DEPTH} levels)",
                   "answer with what the agent is served, not a deeply nested structure")


def redact(text: str, secrets: tuple[str, ...] | list[str]) -> str:
    """``text`` with every secret replaced by ``[redacted]``: as it is, and as a library or a shim quotes it
    (``repr`` of the str or its bytes, JSON-escaped, stripped). Apply it before :func:`inert`."""
    if not secrets or not text:
        return text
    for secret in secrets:
        forms = {secret, secret.strip(), json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1],
                 repr(secret)[1:-1], repr(secret.encode("utf-8", "replace"))[2:-1]}
        for form in sorted((f for f in forms if f.strip()), key=len, reverse=True):
            text = text.replace(form, REDACTED)
    return text


def _scrub(value: Any, secrets: tuple[str, ...]) -> Any:
    """A JSON value with every string (member names too) redacted."""
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, dict):
        return {redact(k, secrets): _scrub(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v, secrets) for v in value]
    return value


#: Names that are loopback by convention (RFC 6761 ``localhost``; /etc/hosts' others) when they do not resolve.
LOOPBACK_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback")


def _address(text: str):
    """The IP address a host literal spells (any spelling the resolver takes: ``127.1``, ``2130706433``,
    ``0x7f000001``, ``::ffff:127.0.0.1``), or None for a name."""
    try:
        return ip_address(text.split("%", 1)[0])
    except ValueError:
        pass
    try:
        return IPv4Address(socket.inet_aton(text))  # the legacy IPv4 forms
    except (OSError, ValueError, UnicodeError):
        return None


def _is_loopback(address) -> bool:
    mapped = getattr(address, "ipv4_mapped", None)
    return (mapped or address).is_loopback


def loopback(host: str | None) -> bool:
    """Whether a host is this machine (never sent through a proxy), decided by the address it parses or
    resolves to (every address loopback), not by its spelling; a name that does not resolve is loopback
    only when it is one of ``LOOPBACK_NAMES`` or under ``.localhost``."""
    name = (host or "").strip().removeprefix("[").removesuffix("]").rstrip(".").lower()
    if not name:
        return False
    address = _address(name)
    if address is not None:
        return _is_loopback(address)
    try:
        found = {info[4][0] for info in socket.getaddrinfo(name, None, proto=socket.IPPROTO_TCP)}
    except (OSError, UnicodeError):
        return name in LOOPBACK_NAMES or name.endswith(".localhost")
    addresses = [_address(a) for a in found]
    return bool(addresses) and all(a is not None and _is_loopback(a) for a in addresses)


_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("memlab_http_deadline", default=None)


def _left(timeout: float | None) -> float | None:
    """A socket operation's timeout bounded by the time left to the request's deadline (httpcore's
    timeout error when none is left)."""
    end = _DEADLINE.get()
    if end is None:
        return timeout
    left = end - time.monotonic()
    if left <= 0:
        raise httpcore.ReadTimeout("the request's deadline passed")
    return left if timeout is None else min(timeout, left)


class _BoundedStream(httpcore.NetworkStream):
    """A connection whose every read and write ends by the request's deadline: an endless run of
    ``102 Processing`` (read by httpcore in a loop, each read with a fresh timeout) cannot extend it."""

    def __init__(self, stream: httpcore.NetworkStream):
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, _left(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, _left(timeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context, server_hostname=None, timeout=None) -> httpcore.NetworkStream:
        return _BoundedStream(self._stream.start_tls(ssl_context, server_hostname, _left(timeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _BoundedBackend(httpcore.NetworkBackend):
    def __init__(self, backend: httpcore.NetworkBackend):
        self._backend = backend

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        return _BoundedStream(self._backend.connect_tcp(host, port, _left(timeout), local_address, socket_options))

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        return _BoundedStream(self._backend.connect_unix_socket(path, _left(timeout), socket_options))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


def _bound(transport: Any) -> None:
    """Give an httpx transport's pool the deadline-bounded network backend (httpx names no public way)."""
    pool = getattr(transport, "_pool", None)
    backend = getattr(pool, "_network_backend", None)
    if backend is not None and not isinstance(backend, _BoundedBackend):
        pool._network_backend = _BoundedBackend(backend)


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
            _bound(mounted)

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
                            status=exc.status, seconds=exc.seconds, body=_scrub(exc.body, self.secrets)) from None
        return payload, status, seconds, received  # the answer's bytes were redacted as they were read

    def _post(self, endpoint: str, url: str, route: str, body: dict, deadline: float) -> tuple[Any, int, float, str]:
        start = time.perf_counter()
        left = lambda: max(0.001, deadline - (time.perf_counter() - start))  # noqa: E731
        limit = _DEADLINE.set(time.monotonic() + deadline)  # every socket operation ends by then
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
            _DEADLINE.reset(limit)
        seconds = time.perf_counter() - start
        if seconds > deadline:
            raise self.late(endpoint, route, deadline, seconds)
        try:
            (received, payload), refused = _decoded(data), None
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
