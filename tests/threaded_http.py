"""A test's HTTP server run in a thread of the test process for a ``with`` block (the front-door shim,
the lifecycle shims and the peer-contract shim all serve so)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import HTTPServer


@contextmanager
def in_thread(server: HTTPServer, poll: float = 0.5) -> Iterator[str]:
    """The base URL of ``server`` (bound to 127.0.0.1) while the block runs; shut down, closed and
    joined afterwards (``poll``: how often it looks for the shutdown, in seconds)."""
    thread = threading.Thread(target=server.serve_forever, args=(poll,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
