"""A team's memory service in the front door, behind a small HTTP shim (docs/front-door.md, "Your own
service through a shim").

The shim's config is the lifecycle shim's (``lab.lifecycle.adapters.http_config``: name, base_url,
headers, timeouts); the front door adds three POST routes under the same base_url, each answered with
JSON:

- ``/frontdoor/reset`` ``{"trust_root": HEX}``: a fresh, empty store whose trusted writer's Ed25519
  public key is HEX; answers ``{"ok": true}``. Every case starts with one.
- ``/frontdoor/write`` ``{"scope": {"tenant", "user", "session"}, "text", "label", "signature": HEX or
  null, "tags": [...]}``: the service's own write path, label and signature exactly as the channel made
  them; answers ``{"accepted": true|false}``.
- ``/frontdoor/read`` ``{"scope", "query", "k", "tag": str or null}``: what the service serves that
  scope for the query; answers ``{"records": [{"text": str, "marker": str or null}]}``, ``marker`` the
  service's own flag on a record it serves as untrusted.
- ``/frontdoor/restart`` ``{}`` (optional: the restarted position): the service stops the process that
  serves memory and starts it again on what it persisted, answering ``{"ok": true}`` once it serves;
  a shim without the route answers 404 and is measured live only.

The adapter checks nothing a store decides (no signature, label or scope): it hands each write over and
keeps what was served. A request that fails or an answer of another shape is an ``HttpError``: a
harness error of the run (exit 2), never a verdict.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from lab.frontdoor.observations import Served
from lab.frontdoor.scope import Scope
from lab.lifecycle.adapters.http_config import HttpConfig
from lab.lifecycle.adapters.http_config_checks import load_http_config
from lab.lifecycle.adapters.http_json import excerpt
from lab.lifecycle.adapters.http_reach import loopback
from lab.lifecycle.adapters.http_transport import HttpError, Transport

ROUTES = {"reset": "/frontdoor/reset", "write": "/frontdoor/write", "read": "/frontdoor/read",
          "restart": "/frontdoor/restart"}
MAX_RECORDS = 1000  # records one read may serve


class ShimStore:
    """The ``MemoryStore`` protocol over one shim; ``fresh`` resets the service for the next case."""

    def __init__(self, config: HttpConfig):
        self.config = config
        self._wire = Transport(config.resolved_headers(), proxy_env=not loopback(urlsplit(config.base_url).hostname),
                               where=str(config.path), secrets=config.secrets())
        self._deadline = float(config.timeouts.get("query", 10.0))

    def close(self) -> None:
        self._wire.close()

    def fresh(self, trust_root: bytes) -> ShimStore:
        """The service reset to an empty store trusting ``trust_root`` (the genuine writer's public key)."""
        self._post("reset", {"trust_root": trust_root.hex()})
        return self

    def restart(self) -> None:
        """The service restarted on what it persisted (the restarted position): ``{"ok": true}`` once it serves."""
        answer = self._post("restart", {})
        if answer.get("ok") is not True:
            raise self._shape("restart", answer, 'answer {"ok": true} once the restarted service serves')

    def restarts(self) -> bool:
        """Whether the service offers the restarted position: its ``/frontdoor/restart`` answers (no such
        route: it does not; any other failure is raised)."""
        try:
            self.restart()
        except HttpError as exc:
            if exc.kind == "route" and exc.status in (404, 405):
                return False
            raise
        return True

    def write(self, scope: Scope, text: str, label: str, signature: bytes | None,
              tags: frozenset[str] = frozenset(), signer: bytes | None = None) -> bool:
        answer = self._post("write", {"scope": scope.model_dump(), "text": text, "label": label,
                                      "signature": signature.hex() if signature is not None else None,
                                      "signer": signer.hex() if signer is not None else None,
                                      "tags": sorted(tags)})
        accepted = answer.get("accepted")
        if not isinstance(accepted, bool):
            raise self._shape("write", answer, 'answer {"accepted": true} or {"accepted": false}')
        return accepted

    def read(self, scope: Scope, query: str, k: int, tag: str | None = None) -> list[Served]:
        answer = self._post("read", {"scope": scope.model_dump(), "query": query, "k": k, "tag": tag})
        records = answer.get("records")
        if not isinstance(records, list) or len(records) > MAX_RECORDS or not all(
                isinstance(r, dict) and set(r) <= {"text", "marker"} and isinstance(r.get("text"), str)
                and (r.get("marker") is None or isinstance(r.get("marker"), str)) for r in records):
            raise self._shape("read", answer, f'answer {{"records": [{{"text": "...", "marker": null}}]}} with at '
                                              f"most {MAX_RECORDS} records, each a text and the service's own marker")
        return [Served(text=r["text"], marker=r.get("marker")) for r in records]

    def _post(self, endpoint: str, body: dict[str, Any]) -> dict[str, Any]:
        route = ROUTES[endpoint]
        answer, _, _, _ = self._wire.post(endpoint, self.config.base_url + route, route, body, self._deadline)
        if not isinstance(answer, dict):
            raise self._shape(endpoint, answer, "answer with a JSON object")
        return answer

    def _shape(self, endpoint: str, answer: Any, fix: str) -> HttpError:
        return HttpError(endpoint, "shape", f"POST {ROUTES[endpoint]} answered {excerpt(answer)}",
                         f"{fix} (docs/front-door.md; config {self.config.path})")


def shim_store(path: Path) -> ShimStore:
    """The store behind the shim the config at ``path`` names (HttpConfigError when it is not valid,
    ValueError naming a header's environment variable that is not set)."""
    config = load_http_config(path)
    try:
        return ShimStore(config)
    except KeyError as exc:
        raise ValueError(f"headers: environment variable {exc.args[0]} is not set\n"
                         f"  fix: export {exc.args[0]}=... before running") from None
