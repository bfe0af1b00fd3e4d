"""Shims written to the peer gate's contract (memorycheck's): flat ``tenant_id``/``user_id``,
``{"answer", "retrieved"}`` answers, any 2xx for a mutation. One store, two front ends (the
standard library's http.server and FastAPI), and the ways a real stack behaves:

- ``correct``: a keyed store per (tenant, user, key); the answer quotes every value of the scope;
- ``leaky``: filters by tenant only (another user's values reach the answer);
- ``eventual``: writes and deletes take effect ``DELAY`` seconds after their ok;
- ``paraphrase``: the answer says values in its own words; ``retrieved`` carries them;
- ``naive``: deletes and corrections are acknowledged and ignored (the old values stay served);
- ``disguise``: a deleted value stays, served with a soft hyphen between its letters (invisible on
  screen, not the same string).

``serve(mode, frontend)`` runs one on 127.0.0.1, port 0, in a thread of the test process
(``serve(store=...)``: a subclass's store, e.g. one that adds to ``live``). As the
peer's own templates do, a request that lacks a field reads it as "" (so a shim sent another
contract's body silently puts every caller in one scope) — except FastAPI, whose models refuse
it with a 422.
"""
from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from threaded_http import in_thread

DELAY = 0.5
MODES = ("correct", "leaky", "eventual", "paraphrase", "naive", "disguise")


class Store:
    """(tenant, user, key) -> [values], logical time, and the mode's way of serving them."""

    def __init__(self, mode: str = "correct"):
        assert mode in MODES, mode
        self.mode, self.lock = mode, threading.Lock()
        self.facts: dict[tuple[str, str, str], list[tuple[str, int | None]]] = {}
        self.pending: list[tuple[float, callable]] = []
        self.now = 0

    def _later(self, change) -> None:
        if self.mode == "eventual":
            self.pending.append((time.monotonic() + DELAY, change))
        else:
            change()

    def _settle(self) -> None:
        due = [c for at, c in self.pending if at <= time.monotonic()]
        self.pending = [(at, c) for at, c in self.pending if at > time.monotonic()]
        for change in due:
            change()

    def reset(self) -> None:
        with self.lock:
            self.facts, self.pending, self.now = {}, [], 0

    def write(self, tenant: str, user: str, key: str, value: str, ttl: int | None) -> None:
        expires = None if ttl is None else self.now + ttl
        with self.lock:
            def change():
                held = self.facts.setdefault((tenant, user, key), [])
                if self.mode == "naive":
                    held.append((value, expires))
                else:
                    held[:] = [(value, expires)]
            self._later(change)

    def delete(self, tenant: str, user: str, key: str) -> None:
        with self.lock:
            if self.mode == "disguise":
                held = self.facts.get((tenant, user, key), [])
                held[:] = [("\u00ad".join(v), expires) for v, expires in held]
            elif self.mode != "naive":
                self._later(lambda: self.facts.pop((tenant, user, key), None))

    def advance(self, steps: int) -> None:
        with self.lock:
            self.now += steps

    def live(self, tenant: str, user: str, prompt: str = "") -> list[tuple[str, str]]:
        """(key, value) of everything the scope is served for ``prompt``, in key order."""
        with self.lock:
            self._settle()
            return [(k, v) for (t, u, k), values in sorted(self.facts.items())
                    if t == tenant and (self.mode == "leaky" or u == user)
                    for v, expires in values if expires is None or self.now < expires]

    def query(self, tenant: str, user: str, prompt: str = "") -> dict:
        seen = self.live(tenant, user, prompt)
        retrieved = [{"key": k, "value": v} for k, v in seen]
        if not seen:
            return {"answer": "I don't have anything stored about that.", "retrieved": []}
        if self.mode == "paraphrase":
            return {"answer": f"I recall {len(seen)} thing(s) about this user, in my own words.", "retrieved": retrieved}
        return {"answer": "Here's what I remember: " + "; ".join(f"{k} is {v}" for k, v in seen) + ".",
                "retrieved": retrieved}


def handle(store: Store, route: str, body: dict) -> dict:
    """One request of the peer's contract on ``store``, fields read as its templates read them."""
    tenant, user = body.get("tenant_id", ""), body.get("user_id", "")
    if route == "/reset":
        store.reset()
    elif route == "/write":
        store.write(tenant, user, body["key"], body["value"], body.get("ttl_steps"))
    elif route == "/delete":
        store.delete(tenant, user, body["key"])
    elif route == "/advance_time":
        store.advance(int(body["steps"]))
    elif route == "/query":
        return store.query(tenant, user, body.get("prompt", ""))
    return {"ok": True}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out at once (no 40 ms delayed-ACK stall)
    store: Store

    def do_POST(self):  # noqa: N802 - http.server's name
        length = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(length) or b"{}")
        if self.path not in ("/reset", "/write", "/delete", "/query", "/advance_time"):
            self.send_error(404)
            return
        data = json.dumps(handle(self.store, self.path, body)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def fastapi_app(store: Store):
    """The same store behind FastAPI models, as the peer's FastAPI template declares them."""
    from fastapi import FastAPI
    from pydantic import BaseModel

    class Scoped(BaseModel):
        tenant_id: str
        user_id: str

    class Write(Scoped):
        key: str
        value: str
        ttl_steps: int | None = None

    class Delete(Scoped):
        key: str

    class Query(Scoped):
        prompt: str
        seed: int = 0

    class Reset(BaseModel):
        namespace: str

    class Advance(BaseModel):
        steps: int

    app = FastAPI()
    for route, model in (("/reset", Reset), ("/write", Write), ("/delete", Delete), ("/query", Query),
                         ("/advance_time", Advance)):
        def endpoint(body: model, route=route):  # noqa: B008 - one closure per route
            return handle(store, route, body.model_dump())
        endpoint.__annotations__["body"] = model
        app.post(route)(endpoint)
    return app


@contextmanager
def serve(mode: str = "correct", frontend: str = "stdlib", store: Store | None = None) -> Iterator[tuple[str, Store]]:
    """(base URL, store) of a peer-contract shim on 127.0.0.1:0 in a thread (``store``: one of the
    caller's, e.g. a subclass; else a new one in ``mode``); stopped afterwards."""
    store = store if store is not None else Store(mode)
    if frontend == "stdlib":
        with in_thread(ThreadingHTTPServer(("127.0.0.1", 0), type("H", (_Handler,), {"store": store})), 0.02) as url:
            yield url, store
        return
    import socket

    import uvicorn

    sock = socket.socket()
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # accepted connections inherit it (no 40 ms stall)
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(fastapi_app(store), log_level="error", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}", store
    finally:
        server.should_exit = True
        thread.join(timeout=5)
        sock.close()


def config(tmp_path, url: str, **keys) -> "Path":  # noqa: F821
    """A config file in the peer's own format (its example's keys) pointing at ``url``."""
    path = tmp_path / "memorycheck_http.yaml"
    lines = [f'base_url: "{url}"', f"supports_ttl: {str(keys.pop('supports_ttl', False)).lower()}",
             f"timeout_seconds: {keys.pop('timeout_seconds', 10)}",
             f"convergence_timeout_seconds: {keys.pop('convergence_timeout_seconds', 5)}"]
    lines += [f"{k}: {v}" for k, v in keys.items()]
    path.write_text("\n".join(lines) + "\n")
    return path
