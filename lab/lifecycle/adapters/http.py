"""HttpAdapter: a team's own memory service behind an HTTP shim (docs/lifecycle-http.md).

Either contract (``http_contract``): memlab's own, or the peer gate's (memorycheck's) unchanged,
as the config says (``http_config``). The service is not the lab's to run: the adapter exposes
no volumes (erasure at rest is not measured) and cannot restart it (no restarted position).

Each op is one POST (``http_transport``: one deadline per request, a capped answer). Every
mutation is **confirmed** before the next step, as the peer's invariant requires: after a
write's ok the adapter queries until the written value is served, after a delete's until no
value the key held in that scope since the reset is served (a rescope is a delete and a write,
each confirmed), within ``convergence.timeout``, pausing a quarter of the time waited so far (at least 5 ms,
never more than ``convergence.interval``), so a mutation is seen at most about a quarter of its
latency late. The latency and the number of queries go into the Ack
(``confirm``) and so into the result set. A mutation that never shows is a harness error
(:class:`HttpError` kind ``convergence``) naming the latency measured and what was still (or
not yet) served, never a finding. A scenario's own queries are asked once. Confirming queries
ask ``What is the <key> for this user?`` (the peer's) and match as the judge does (normalised,
in the answer or in what was retrieved). Example, with the example shim running::

    from lab.lifecycle.adapters.http import HttpAdapter, load_http_config
    from lab.lifecycle.scenario import Scope
    with HttpAdapter(load_http_config("examples/lifecycle-shim/shim.yaml")) as sut:
        sut.begin("s0-demo")
        sut.write(Scope("acme", "ann"), "city", "Lisbon", None)
        sut.query(Scope("acme", "ann"), "Where do I live?").text      # 'Lisbon'

May import: the standard library, httpx, structlog, ``lab.lifecycle.adapters`` and its HTTP
modules, and ``lab.lifecycle.matching`` (the judge's matching rule).
"""
from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlsplit

import httpx

from lab.lifecycle.adapters import Ack, AdapterError, Served
from lab.lifecycle.adapters.http_config import HttpConfig, HttpConfigError
from lab.lifecycle.adapters.http_config_checks import load_http_config
from lab.lifecycle.adapters.http_contract import mutation_shape, read_answer, scope_fields
from lab.lifecycle.adapters.http_json import excerpt
from lab.lifecycle.adapters.http_reach import loopback
from lab.lifecycle.adapters.http_transport import ANSWER_KINDS, HttpError, Transport
from lab.lifecycle.matching import served_uses
from lab.logs import get_logger

__all__ = ["ANSWER_KINDS", "HttpAdapter", "HttpConfig", "HttpConfigError", "HttpError", "excerpt",
           "load_http_config"]

log = get_logger(__name__)
#: What a delete acknowledged but never applied is: a finding its reads judge (the default), or an error.
UNAPPLIED_DELETE = ("finding", "error")


class HttpAdapter:
    """The :class:`lab.lifecycle.adapters.Adapter` protocol over an HTTP shim, either contract."""

    def __init__(self, config: HttpConfig, *, transport: httpx.BaseTransport | None = None,
                 unapplied_delete: str = "finding"):
        try:
            headers = config.resolved_headers()
        except KeyError as exc:
            raise AdapterError(f"headers: environment variable {exc.args[0]} is not set (or not listed under "
                               f"env: in {config.path})\n  fix: export {exc.args[0]}=... before running") from None
        except ValueError as exc:  # the variable's name only: its value is a secret
            raise AdapterError(f"headers: environment variable {exc.args[0]} holds a control character (a trailing "
                               f"newline from a secret file?); its value is not shown\n"
                               f"  fix: set {exc.args[0]} without it") from None
        self.config, self.contract = config, config.contract
        self.name = f"http:{config.name}"
        # The contract's delete is per key: per-record erasure ("erase") is always there.
        self.capabilities = frozenset({"update", "erase"} | {c for c, on in config.capabilities.items() if on})
        self.confirm_mutations = True  # the doctor measures convergence itself, with this off
        # A delete acknowledged whose value is still served after the convergence timeout: the scenario goes
        # on and its reads judge it (deletion residue, P1: "finding"), or it is a harness error ("error", as
        # the peer gate treats it). A write that never shows is a harness error either way.
        if unapplied_delete not in UNAPPLIED_DELETE:
            raise ValueError(f"unapplied_delete {unapplied_delete!r}: one of {list(UNAPPLIED_DELETE)}")
        self.unapplied_delete = unapplied_delete
        self.seed = 0
        self._held: dict[tuple[str, str, str], list[str]] = {}  # (tenant, user, key) -> values written since reset
        # Loopback (any spelling, by its address) is never proxied; elsewhere the environment's proxy
        # settings apply. Every value expanded from the environment is redacted from what errors carry.
        self._wire = Transport(headers, proxy_env=not loopback(urlsplit(config.base_url).hostname),
                               where=str(config.path), transport=transport, secrets=config.secrets())

    def __enter__(self) -> HttpAdapter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def describe(self) -> dict:
        """The service as the results name it (header names only, never their values)."""
        folded = "tenants" not in self.capabilities
        return {"sut": self.config.name, "version": None, "libraries": {"httpx": httpx.__version__},
                "contract": self.contract, "capabilities": sorted(self.capabilities),
                "scope": ("folded: user_id sent as '<tenant_id>/<user_id>' (a '/' or '%' in an id percent-encoded)" if folded
                          else "tenant_id and user_id sent apart"),
                "transport": "http", "config": self.config.to_json()}

    def begin(self, namespace: str, seed: int = 0) -> None:
        """POST reset: every scope empty, logical time 0 (``namespace`` names the run; ``seed`` goes
        with each query of the peer's contract)."""
        self.seed = seed
        self._held.clear()
        self._mutate("reset", {"namespace": namespace})

    def write(self, scope: Any, key: str, value: str, ttl_steps: int | None) -> Ack:
        """POST write (``ttl_steps`` only when the config declares ttl), then confirm it is served."""
        body = {**self._scope(scope), "key": key, "value": value}
        if ttl_steps is not None and "ttl" in self.capabilities:
            body["ttl_steps"] = ttl_steps
        return self._written(scope, key, value, self._mutate("write", body))

    def correct(self, scope: Any, key: str, value: str) -> Ack:
        """A correction is a write to the same key: by either contract it supersedes."""
        return self._written(scope, key, value, self._mutate("write", {**self._scope(scope), "key": key,
                                                                        "value": value}))

    def delete(self, scope: Any, key: str) -> Ack:
        """POST delete (the key's whole history in the scope), then confirm none of it is served."""
        ack = self._mutate("delete", {**self._scope(scope), "key": key})
        held = self._held.pop(self._slot(scope, key), [])
        if not self.confirm_mutations or not held:
            return ack
        return self._confirmed(ack, "delete", scope, key, lambda served: not any(served_uses(v, served) for v in held),
                               f"a value of {key!r} ({excerpt(held[-1], 80)}) was still served",
                               judged=self.unapplied_delete == "finding")

    def advance_time(self, steps: int) -> Ack:
        """POST advance_time (only when the config declares ttl)."""
        if "ttl" not in self.capabilities:
            raise HttpError("advance_time", "route", "the config declares no ttl",
                            f"declare ttl in {self.config.path} if the service implements /advance_time")
        return self._mutate("advance_time", {"steps": steps})

    def query(self, scope: Any, prompt: str) -> Served:
        """POST query, once; the answer (or every memory read whole) as the agent's, what was retrieved,
        and the body as received (the evidence)."""
        body = {**self._scope(scope), "prompt": prompt}
        if self.contract == "memorycheck":
            body["seed"] = self.seed
        payload, _, seconds, received = self._wire.post("query", self.config.url("query"), self.config.paths["query"],
                                                        body, self.config.timeouts["query"])
        reading = read_answer(self.contract, payload)  # the body is the evidence: raw is not a second copy
        return Served(reading.records, reading.text, {}, seconds, reading.retrieved, body=received)

    def close(self) -> None:
        """Close the connection pool (the service itself is not ours to stop)."""
        self._wire.close()

    def _scope(self, scope: Any) -> dict[str, Any]:
        user = scope.user_id if "tenants" in self.capabilities else scope.folded()  # injective
        return scope_fields(self.contract, scope.tenant_id, user)

    @staticmethod
    def _slot(scope: Any, key: str) -> tuple[str, str, str]:
        return (scope.tenant_id, scope.user_id, key)

    def _written(self, scope: Any, key: str, value: str, ack: Ack) -> Ack:
        self._held.setdefault(self._slot(scope, key), []).append(value)
        if not self.confirm_mutations:
            return ack
        return self._confirmed(ack, "write", scope, key, lambda served: served_uses(value, served),
                               f"{excerpt(value, 80)} was not served")

    def _confirmed(self, ack: Ack, endpoint: str, scope: Any, key: str, done, still: str,
                   judged: bool = False) -> Ack:
        """Query until ``done(served text)``, within convergence.timeout: the Ack with ``confirm``. Past the
        timeout, a harness error; with ``judged``, the Ack with ``confirm.applied`` false and what was
        measured, so the scenario's reads judge what is still served."""
        limit, interval = self.config.convergence["timeout"], self.config.convergence["interval"]
        start, queries = time.perf_counter(), 0
        while True:
            served = self.query(scope, f"What is the {key} for this user?")
            queries += 1
            if done("\n".join([served.text, *(served.retrieved or [])])):
                seconds = time.perf_counter() - start
                return Ack(ack.ok, ack.seconds, ack.raw, ack.detail, {"seconds": round(seconds, 6), "queries": queries})
            waited = time.perf_counter() - start
            if waited >= limit and judged:
                log.warning("lifecycle.unapplied", endpoint=endpoint, key=key, seconds=round(waited, 3),
                            queries=queries)
                return Ack(ack.ok, ack.seconds, ack.raw, f"acknowledged, yet {still} {waited:.2f} s and {queries} "
                           "queries after the ok",
                           {"seconds": round(waited, 6), "queries": queries, "applied": False})
            if waited >= limit:
                raise HttpError(endpoint, "convergence", f"accepted {key!r}, but {still} {waited:.2f} s and "
                                f"{queries} queries after the ok", f"if the service is eventually consistent, raise "
                                f"the convergence timeout in {self.config.path} above its measured latency "
                                f"(memlab lifecycle doctor measures it); if it never shows, that is the service's "
                                f"{endpoint} not taking effect", seconds=waited)
            time.sleep(min(max(waited / 4, 0.005), interval, max(0.0, limit - waited)))

    def _mutate(self, endpoint: str, body: dict) -> Ack:
        payload, _, seconds, _ = self._wire.post(endpoint, self.config.url(endpoint), self.config.paths[endpoint], body,
                                                 self.config.timeouts["mutation"])
        mutation_shape(self.contract, endpoint, body, payload, seconds)
        log.debug("lifecycle.http", endpoint=endpoint, seconds=round(seconds, 4))
        return Ack(True, seconds, payload if isinstance(payload, dict) else {"answer": payload})
