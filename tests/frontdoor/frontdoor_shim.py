"""A front-door shim for the tests: one of memlab's stores served over HTTP on loopback, in the routes
docs/front-door.md gives (reset, write, read, and restart where asked), answering exactly what the store
decided.

``serve(make, restarts=...)`` runs it on a free port for a ``with`` block (``restarts``: None, no restart
route; "persist", a restart keeps the store; "forget", a restart empties it, as a service keeping memory
only in its process would); ``config(folder, url, name)`` writes its
shim config. ``answers`` replaces a route's answer (a hostile shim).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from lab.frontdoor.scope import Scope
from threaded_http import in_thread


class Service:
    """The store behind the shim, made anew at every reset."""

    def __init__(self, make: Callable[[bytes], Any], restarts: str | None = None):
        self.make, self.store, self.answers, self.restarts = make, None, {}, restarts
        self.requests: list[tuple[str, dict]] = []
        self.trust_root = b""

    def handle(self, route: str, body: dict) -> Any:
        self.requests.append((route, body))
        if route in self.answers:
            return self.answers[route]
        if route == "/frontdoor/reset":
            self.trust_root = bytes.fromhex(body["trust_root"])
            self.store = self.make(self.trust_root)
            return {"ok": True}
        if route == "/frontdoor/restart" and self.restarts is not None:
            if self.restarts == "forget" and self.store is not None:
                self.store = self.make(self.trust_root)
            return {"ok": True}
        if "scope" not in body:
            return None
        scope = Scope(**body["scope"])
        if route == "/frontdoor/write":
            signature = bytes.fromhex(body["signature"]) if body["signature"] is not None else None
            return {"accepted": bool(self.store.write(scope, body["text"], body["label"], signature,
                                                      frozenset(body["tags"])))}
        if route == "/frontdoor/read":
            served = self.store.read(scope, body["query"], body["k"], tag=body["tag"])
            return {"records": [{"text": s.text, "marker": s.marker} for s in served]}
        return None


@contextlib.contextmanager
def serve(make: Callable[[bytes], Any], restarts: str | None = None) -> Iterator[tuple[str, Service]]:
    """(base URL, service) of a shim over ``make``'s stores, on 127.0.0.1, for the block."""
    service = Service(make, restarts)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (the standard library's name)
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            answer = service.handle(self.path, body)
            data = json.dumps(answer).encode() if answer is not None else b'{"error": "no such route"}'
            self.send_response(200 if answer is not None else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    with in_thread(ThreadingHTTPServer(("127.0.0.1", 0), Handler)) as url:
        yield url, service


def config(folder: Path, url: str, name: str) -> Path:
    """A shim config naming the service ``name`` at ``url``."""
    path = folder / f"{name}.yaml"
    path.write_text(f"name: {name}\nbase_url: {url}\ntimeouts: {{mutation: 5, query: 5}}\n", encoding="utf-8")
    return path
