"""An example lifecycle shim: a correct memory store behind the HTTP shim contract.

Standard library only. It honours supersession (a write replaces the key's value in its
scope), deletion, TTL on logical time (``/advance_time``) and tenant + user isolation.
The contract is docs/lifecycle-http.md; its config is shim.yaml next to this file::

    python3 examples/lifecycle-shim/shim.py --port 8765     # prints the URL it listens on
    memlab lifecycle doctor examples/lifecycle-shim/shim.yaml

It listens on 127.0.0.1 only. ``--port 0`` picks a free port (printed). A real service
keeps its own store; the routes, bodies and answers are what it must share with this one.
"""
from __future__ import annotations

import argparse
import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class BadRequest(ValueError):
    """A request body the contract does not allow (answered 400 with the fix)."""

    def __init__(self, message: str, fix: str):
        super().__init__(message)
        self.fix = fix


@dataclass
class Entry:
    """One stored value and the logical time it stops being served (None: never)."""

    value: str
    expires_at: int | None


class Store:
    """The memory: (tenant, user, key) -> current value; logical time for TTL."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.entries: dict[tuple[str, str, str], Entry] = {}
        self.now = 0

    def reset(self) -> None:
        """Forget everything: every scope empty, logical time back to 0."""
        with self.lock:
            self.entries.clear()
            self.now = 0

    def write(self, scope: tuple[str, str], key: str, value: str, ttl_steps: int | None) -> None:
        """Store ``value`` as the current value of ``key`` (supersedes any earlier one)."""
        with self.lock:
            expires = None if ttl_steps is None else self.now + ttl_steps
            self.entries[(*scope, key)] = Entry(value, expires)

    def delete(self, scope: tuple[str, str], key: str) -> None:
        """Remove ``key`` from the scope (its value is never served again)."""
        with self.lock:
            self.entries.pop((*scope, key), None)

    def advance(self, steps: int) -> None:
        """Advance logical time; values whose TTL has run out stop being served."""
        with self.lock:
            self.now += steps

    def query(self, scope: tuple[str, str], prompt: str) -> list[dict]:
        """The scope's live memories (this store serves them all, whatever the prompt)."""
        with self.lock:
            return [{"text": e.value, "key": k[2]} for k, e in sorted(self.entries.items())
                    if k[:2] == scope and (e.expires_at is None or self.now < e.expires_at)]


class Handler(BaseHTTPRequestHandler):
    """The five POST routes of the contract; every answer is JSON."""

    protocol_version = "HTTP/1.1"  # keep-alive: one connection for a whole run
    disable_nagle_algorithm = True  # headers and body go out at once (no 40 ms delayed-ACK stall)
    routes = {"/reset": "reset", "/write": "write", "/delete": "delete", "/query": "query",
              "/advance_time": "advance_time"}

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        """Dispatch one request to its route; bad bodies answer 400 with the fix."""
        route = self.routes.get(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if route is None:
            return self.answer(404, {"error": f"no route POST {self.path}",
                                     "fix": "use one of " + ", ".join(self.routes)})
        try:
            body = json.loads(raw or b"{}")
            if not isinstance(body, dict):
                raise BadRequest("the body is not a JSON object", "send a JSON object")
            self.answer(200, getattr(self, "on_" + route)(body, self.server.store))
        except json.JSONDecodeError:
            self.answer(400, {"error": "the body is not JSON", "fix": "send a JSON object"})
        except BadRequest as exc:
            self.answer(400, {"error": str(exc), "fix": exc.fix})

    def answer(self, status: int, payload: dict) -> None:
        """Send ``payload`` as JSON with ``status``."""
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (its timeout): not ours
            self.close_connection = True

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (http.server's name)
        """Quiet: no line per request."""

    def on_reset(self, body: dict, store: Store) -> dict:
        """Empty every scope and reset logical time."""
        store.reset()
        return {"ok": True}

    def on_write(self, body: dict, store: Store) -> dict:
        """Store a value (supersedes); ttl_steps optional."""
        ttl = body.get("ttl_steps")
        if ttl is not None and (not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 1):
            raise BadRequest("ttl_steps must be a whole number >= 1", "send ttl_steps: 1 or more, or leave it out")
        store.write(scope_of(body), text_field(body, "key"), text_field(body, "value"), ttl)
        return {"ok": True, "key": body["key"]}

    def on_delete(self, body: dict, store: Store) -> dict:
        """Delete a key in a scope."""
        store.delete(scope_of(body), text_field(body, "key"))
        return {"ok": True, "key": body["key"]}

    def on_query(self, body: dict, store: Store) -> dict:
        """The scope's memories for a prompt."""
        return {"memories": store.query(scope_of(body), text_field(body, "prompt"))}

    def on_advance_time(self, body: dict, store: Store) -> dict:
        """Advance logical time by ``steps``."""
        steps = body.get("steps")
        if not isinstance(steps, int) or isinstance(steps, bool) or steps < 0:
            raise BadRequest("steps must be a whole number >= 0", "send {\"steps\": 1}")
        store.advance(steps)
        return {"ok": True, "now": store.now}


def text_field(body: dict, name: str) -> str:
    """A required string field of a request body."""
    value = body.get(name)
    if not isinstance(value, str):
        raise BadRequest(f"{name} must be a string", f"send {name!r} as a JSON string")
    return value


def scope_of(body: dict) -> tuple[str, str]:
    """The (tenant_id, user_id) of a request body."""
    scope = body.get("scope")
    if not isinstance(scope, dict):
        raise BadRequest("scope must be an object", 'send "scope": {"tenant_id": "...", "user_id": "..."}')
    return text_field(scope, "tenant_id"), text_field(scope, "user_id")


class ShimServer(ThreadingHTTPServer):
    """A threading HTTP server on 127.0.0.1 holding one Store."""

    daemon_threads = True

    def __init__(self, port: int = 0, store: Store | None = None, handler: type = Handler):
        super().__init__(("127.0.0.1", port), handler)
        self.store = store if store is not None else Store()

    @property
    def url(self) -> str:
        """The base URL the server listens on."""
        return f"http://127.0.0.1:{self.server_address[1]}"


def main(argv: list[str] | None = None) -> None:
    """Serve until Ctrl-C; print the URL first (``--port 0`` picks a free port)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1 (0: any free port)")
    args = parser.parse_args(argv)
    server = ShimServer(args.port)
    print(f"lifecycle shim listening on {server.url}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
