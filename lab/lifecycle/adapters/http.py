"""HttpAdapter: a team's own memory service behind the HTTP shim contract (docs/lifecycle-http.md).

The service is not the lab's to run: the adapter exposes no volumes (erasure at rest is not
measured) and cannot restart it (no restarted position).

Each op is one POST with a JSON body. A mutation is confirmed from its answer only (2xx and
``"ok": true``, an echoed key must match); anything else, or an answer slower than its
timeout, raises :class:`HttpError` (an :class:`AdapterError`) naming the endpoint, the status,
an excerpt of the body, the measured latency and the fix. A query is asked once: the adapter
never polls until an expected value appears. Example, with the example shim running::

    from lab.lifecycle.adapters.http import HttpAdapter, load_http_config
    from lab.lifecycle.scenario import Scope
    with HttpAdapter(load_http_config("examples/lifecycle-shim/shim.yaml")) as sut:
        sut.begin("s0-demo")
        sut.write(Scope("acme", "ann"), "city", "Lisbon", None)
        sut.query(Scope("acme", "ann"), "Where do I live?").text      # 'Lisbon'

May import: the standard library, httpx, structlog, ``lab.lifecycle.adapters`` and its config.
"""
from __future__ import annotations

import json
import time
from ipaddress import ip_address
from typing import Any
from urllib.parse import urlsplit

import httpx
import structlog

from lab.lifecycle.adapters import Ack, AdapterError, Served
from lab.lifecycle.adapters.http_config import HttpConfig, HttpConfigError, load_http_config

__all__ = ["HttpAdapter", "HttpConfig", "HttpConfigError", "HttpError", "load_http_config", "parse_records"]

log = structlog.get_logger(__name__)

#: Error kinds where the endpoint did not answer as an endpoint should (vs "shape": it answered
#: 2xx, but not in the contract's shape).
ANSWER_KINDS = ("connect", "route", "timeout", "transport", "status")
SHAPE_FIX = 'answer {"memories": [{"text": "...", "key": "..."}]} (or {"answer": "..."} for prose)'


class HttpError(AdapterError):
    """One endpoint's failure: ``kind`` (connect|route|timeout|transport|status|shape), the fix."""

    def __init__(self, endpoint: str, kind: str, message: str, fix: str, *,
                 status: int | None = None, seconds: float = 0.0):
        super().__init__(f"{endpoint}: {message}\n  fix: {fix}")
        self.endpoint, self.kind, self.message, self.fix = endpoint, kind, message, fix
        self.status, self.seconds = status, seconds


def excerpt(value: Any, limit: int = 200) -> str:
    """A one-line excerpt of a body (JSON or text) for an error message."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


def parse_records(payload: dict) -> list[dict]:
    """The served records of a query answer: ``answer`` when present, else each memory."""
    if "answer" in payload:
        if not isinstance(payload["answer"], str):
            raise HttpError("query", "shape", f'"answer" is {excerpt(payload["answer"])}, not a string', SHAPE_FIX)
        return [{"text": payload["answer"], "meta": {"kind": "answer"}}]
    memories = payload.get("memories")
    if not isinstance(memories, list):
        raise HttpError("query", "shape", f'answered {excerpt(payload)}: no "memories" list or "answer"', SHAPE_FIX)
    records = []
    for i, item in enumerate(memories):
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            raise HttpError("query", "shape", f"memories[{i}] is {excerpt(item)}, not an object with a text string",
                            SHAPE_FIX)
        records.append({"text": item["text"], "meta": {k: v for k, v in item.items() if k != "text"}})
    return records


def _loopback(host: str | None) -> bool:
    try:
        return host == "localhost" or ip_address(host or "").is_loopback
    except ValueError:
        return False


class HttpAdapter:
    """The :class:`lab.lifecycle.adapters.Adapter` protocol over the HTTP shim contract."""

    def __init__(self, config: HttpConfig, *, transport: httpx.BaseTransport | None = None):
        try:
            headers = config.resolved_headers()
        except KeyError as exc:
            raise AdapterError(f"headers: environment variable {exc.args[0]} is not set\n"
                               f"  fix: export {exc.args[0]}=... before running") from None
        self.config = config
        self.name = f"http:{config.name}"
        # The contract's delete is per key: per-record erasure ("erase") is always there.
        self.capabilities = frozenset({"update", "erase"} | {c for c, on in config.capabilities.items() if on})
        # Loopback is never proxied; elsewhere the environment's proxy settings apply.
        self._client = httpx.Client(headers=headers, transport=transport,
                                    trust_env=not _loopback(urlsplit(config.base_url).hostname))

    def __enter__(self) -> HttpAdapter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def describe(self) -> dict:
        """The service as the results name it (header names only, never their values)."""
        folded = "tenants" not in self.capabilities
        return {"sut": self.config.name, "version": None, "libraries": {"httpx": httpx.__version__},
                "capabilities": sorted(self.capabilities),
                "scope": ("folded: user_id sent as '<tenant_id>/<user_id>'" if folded
                          else "tenant_id and user_id sent apart"),
                "transport": "http", "config": self.config.to_json()}

    def begin(self, namespace: str) -> None:
        """POST reset: every scope empty, logical time 0 (``namespace`` is informative)."""
        self._mutate("reset", {"namespace": namespace})

    def write(self, scope: Any, key: str, value: str, ttl_steps: int | None) -> Ack:
        """POST write; ``ttl_steps`` is sent only when the config declares ttl."""
        body = {"scope": self._scope(scope), "key": key, "value": value}
        if ttl_steps is not None and "ttl" in self.capabilities:
            body["ttl_steps"] = ttl_steps
        return self._mutate("write", body)

    def correct(self, scope: Any, key: str, value: str) -> Ack:
        """A correction is a write to the same key: by the contract it supersedes."""
        return self._mutate("write", {"scope": self._scope(scope), "key": key, "value": value})

    def delete(self, scope: Any, key: str) -> Ack:
        """POST delete: the key's whole history in the scope."""
        return self._mutate("delete", {"scope": self._scope(scope), "key": key})

    def advance_time(self, steps: int) -> Ack:
        """POST advance_time (only when the config declares ttl)."""
        if "ttl" not in self.capabilities:
            raise HttpError("advance_time", "route", "the config declares no ttl",
                            f"set capabilities.ttl: true in {self.config.path} if the service implements it")
        return self._mutate("advance_time", {"steps": steps})

    def query(self, scope: Any, prompt: str) -> Served:
        """POST query, once; the judge reads the answer, or the memories' text joined by newline."""
        payload, seconds = self._call("query", {"scope": self._scope(scope), "prompt": prompt})
        records = parse_records(payload)
        return Served(records, "\n".join(r["text"] for r in records), payload, seconds)

    def close(self) -> None:
        """Close the connection pool (the service itself is not ours to stop)."""
        self._client.close()

    def _scope(self, scope: Any) -> dict[str, str]:
        if "tenants" in self.capabilities:
            return {"tenant_id": scope.tenant_id, "user_id": scope.user_id}
        return {"tenant_id": scope.tenant_id, "user_id": f"{scope.tenant_id}/{scope.user_id}"}

    def _mutate(self, endpoint: str, body: dict) -> Ack:
        payload, seconds = self._call(endpoint, body)
        if payload.get("ok") is not True:
            raise HttpError(endpoint, "shape", f'answered {excerpt(payload)} without "ok": true',
                            'answer {"ok": true} (2xx) once the mutation is applied; refuse with a non-2xx '
                            'status and a JSON error', seconds=seconds)
        if "key" in body and "key" in payload and payload["key"] != body["key"]:
            raise HttpError(endpoint, "shape", f"acknowledged key {payload['key']!r}, not {body['key']!r}",
                            "echo the request's key, or leave key out of the answer", seconds=seconds)
        return Ack(True, seconds, payload)

    def _call(self, endpoint: str, body: dict) -> tuple[dict, float]:
        kind = "query" if endpoint == "query" else "mutation"
        timeout, url, where = self.config.timeouts[kind], self.config.url(endpoint), self.config.path
        start = time.perf_counter()
        try:
            resp = self._client.post(url, json=body, timeout=timeout)
        except httpx.TimeoutException:
            raise self._late(endpoint, kind, time.perf_counter() - start) from None
        except httpx.ConnectError as exc:
            raise HttpError(endpoint, "connect", f"cannot connect to {url} ({exc})",
                            f"start the service, or fix base_url in {where}") from None
        except httpx.HTTPError as exc:
            raise HttpError(endpoint, "transport", f"POST {url} failed: {exc}",
                            "check the service's logs; it must answer every POST with JSON") from None
        seconds = time.perf_counter() - start
        log.debug("lifecycle.http", endpoint=endpoint, status=resp.status_code, seconds=round(seconds, 4))
        if seconds > timeout:
            raise self._late(endpoint, kind, seconds)
        status = resp.status_code
        if status in (404, 405):
            raise HttpError(endpoint, "route", f"POST {url} answered {status}: no such route",
                            f"implement POST {self.config.paths[endpoint]} in the service, or set "
                            f"paths.{endpoint} in {where} to its route", status=status, seconds=seconds)
        payload = _json(resp)
        if not 200 <= status < 300:
            told = payload.get("fix") if isinstance(payload, dict) else None
            raise HttpError(endpoint, "status", f"POST {url} answered {status}: {excerpt(resp.text)}",
                            told or f"fix the service's {endpoint} handler (the request followed "
                            "docs/lifecycle-http.md)", status=status, seconds=seconds)
        if not isinstance(payload, dict):
            raise HttpError(endpoint, "shape", f"answered {status} with {excerpt(resp.text)}, not a JSON object",
                            "answer with a JSON object (Content-Type: application/json)",
                            status=status, seconds=seconds)
        return payload, seconds

    def _late(self, endpoint: str, kind: str, seconds: float) -> HttpError:
        limit = self.config.timeouts[kind]
        return HttpError(endpoint, "timeout", f"no answer within timeouts.{kind} = {limit:g} s "
                         f"(measured {seconds:.3f} s)",
                         f"make POST {self.config.paths[endpoint]} answer faster, or raise timeouts.{kind} "
                         f"in {self.config.path}", seconds=seconds)


def _json(resp: httpx.Response) -> Any:
    try:
        return resp.json()
    except ValueError:
        return None
