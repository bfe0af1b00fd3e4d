"""One deadline for a whole request, down to the socket: httpx's network backend wrapped so that every
read and write ends by the time left (``DEADLINE``, set per request), so an endless run of informational
answers (``102 Processing``, each read with a fresh timeout) cannot extend it. Imports the standard
library and httpcore (httpx's network layer)."""

from __future__ import annotations

import contextvars
import time
from typing import Any

import httpcore

DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("memlab_http_deadline", default=None)


def _left(timeout: float | None) -> float | None:
    """A socket operation's timeout bounded by the time left to the request's deadline (httpcore's
    timeout error when none is left)."""
    end = DEADLINE.get()
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


def bound(transport: Any) -> None:
    """Give an httpx transport's pool the deadline-bounded network backend (httpx names no public way)."""
    pool = getattr(transport, "_pool", None)
    backend = getattr(pool, "_network_backend", None)
    if backend is not None and not isinstance(backend, _BoundedBackend):
        pool._network_backend = _BoundedBackend(backend)
