"""The doctor: does an HTTP shim keep the contract the lifecycle gate relies on? Fast, in order.

``doctor(load_http_config(path))`` runs, against a *test* instance (it resets the store):
endpoints (each answers 2xx), contract (each answer's shape), convergence (write -> read,
measured), user and tenant isolation, deletion, ttl (when declared) and timeouts (the
configured ones against 5x the measured latencies). Every failure carries its fix.

Only the doctor polls, and only to *measure*: convergence polls until the probe appears
and deletion until it is gone, up to ``timeouts.mutation``. On a correct store the first
query already answers, so a passing doctor never waits out a timeout to prove an absence
(isolation is asked once, after the probe has converged for its owner). The gate never polls.

May import: the standard library and ``lab.lifecycle`` (the HTTP adapter, ``Scope``).
"""
from __future__ import annotations

import math
import secrets
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from lab.lifecycle.adapters.http import ANSWER_KINDS, HttpAdapter, HttpConfig, HttpError
from lab.lifecycle.scenario import Scope

__all__ = ["Check", "DoctorReport", "doctor"]

OWNER = Scope("memlab-doctor-a", "user-1")
OTHER_USER = Scope("memlab-doctor-a", "user-2")  # same tenant, another user
OTHER_TENANT = Scope("memlab-doctor-b", "user-1")  # same user id, another tenant
KEY, TTL_KEY, SIBLING_KEY = "memlab-doctor-probe", "memlab-doctor-ttl", "memlab-doctor-sibling"
PROMPT = "What do you remember?"
MARGIN = 5  # advised timeout: at least this many times the measured latency ...
FLOOR = 1.0  # ... and never under this many seconds


@dataclass
class Check:
    """One check's outcome: ok True/False, or None when not run (``detail`` says why)."""

    name: str
    ok: bool | None
    detail: str
    fix: str = ""
    seconds: float = 0.0


@dataclass
class DoctorReport:
    """Every check in order, the advised timeouts and the total wall time."""

    service: dict
    checks: list[Check] = field(default_factory=list)
    advice: dict = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """True when no check failed (checks not run are named, never passed)."""
        return not any(c.ok is False for c in self.checks)

    def to_json(self) -> dict:
        """The report as plain data."""
        return {"ok": self.ok, "service": self.service, "checks": [asdict(c) for c in self.checks],
                "advice": self.advice, "seconds": round(self.seconds, 4)}

    def lines(self) -> list[str]:
        """The report for a terminal: one line per check, each failure followed by its fix."""
        out = [f"doctor: {self.service['name']} at {self.service['base_url']}"]
        for c in self.checks:
            status = {True: "PASS", False: "FAIL", None: "SKIP"}[c.ok]
            out.append(f"  {status}  {c.name:<17} {c.detail}  [{c.seconds * 1000:.0f} ms]")
            if c.ok is False and c.fix:
                out.append(f"        fix: {c.fix}")
        failed = [c.name for c in self.checks if c.ok is False]
        verdict = "PASS" if self.ok else f"FAIL ({', '.join(failed)})"
        out.append(f"doctor: {verdict} in {self.seconds:.2f} s")
        return out


def doctor(config: HttpConfig) -> DoctorReport:
    """Check a shim in order and fast; never raises for the service's faults (they are checks)."""
    start = time.perf_counter()
    report = DoctorReport(service=config.to_json())
    with HttpAdapter(config) as sut:
        probe = _Probe(sut, config, report)
        probe.run()
        try:
            sut.begin("memlab-doctor-done")  # leave the test store empty
        except HttpError:
            pass
    report.advice = probe.advice()
    report.seconds = time.perf_counter() - start
    return report


class _Probe:
    """The doctor's run: the checks share one adapter, the probe value and the measurements."""

    def __init__(self, sut: HttpAdapter, config: HttpConfig, report: DoctorReport):
        self.sut, self.config, self.report = sut, config, report
        self.value = f"probe-{secrets.token_hex(4)}"
        self.measured = {"mutation": 0.0, "query": 0.0, "convergence": None}
        self.limit = config.timeouts["mutation"]
        self.errors: list[HttpError] = []  # what the endpoints check met, for the contract check

    def run(self) -> None:
        steps: list[tuple[str, Callable[[], Check]]] = [
            ("endpoints", self.endpoints), ("contract", self.contract), ("convergence", self.convergence),
            ("user_isolation", lambda: _isolation(self, OTHER_USER, "another user of the same tenant")),
            ("tenant_isolation", lambda: _isolation(self, OTHER_TENANT, "the same user id in another tenant")),
            ("deletion", lambda: _deletion(self)), ("ttl", lambda: _ttl(self)), ("timeouts", self.timeouts)]
        blocked = ""
        for name, step in steps:
            if blocked and (name != "timeouts" or blocked != "convergence failed"):
                self.report.checks.append(Check(name, None, f"not run: {blocked}"))
                continue
            start = time.perf_counter()
            try:
                check = step()
            except HttpError as exc:
                check = Check(name, False, f"{exc.endpoint}: {exc.message}", exc.fix)
            check.seconds = time.perf_counter() - start
            self.report.checks.append(check)
            if check.ok is False and name in ("endpoints", "contract", "convergence"):
                blocked = f"{name} failed"

    def timed(self, kind: str, result):
        """Record an Ack's or a Served's latency; return it."""
        self.measured[kind] = max(self.measured[kind], result.seconds)
        return result

    def reset(self, namespace: str) -> None:
        """POST reset, its latency counted with the mutations'."""
        start = time.perf_counter()
        self.sut.begin(namespace)
        self.measured["mutation"] = max(self.measured["mutation"], time.perf_counter() - start)

    def served(self, scope: Scope, value: str) -> bool:
        return value in self.timed("query", self.sut.query(scope, PROMPT)).text

    def poll(self, scope: Scope, value: str, present: bool) -> tuple[bool, int, float]:
        """Query until ``value`` is (or is not) served, up to timeouts.mutation: (reached, queries, s)."""
        start, n, pause = time.perf_counter(), 0, 0.01
        while True:
            n += 1
            if self.served(scope, value) == present:
                return True, n, time.perf_counter() - start
            if time.perf_counter() - start > self.limit:
                return False, n, time.perf_counter() - start
            time.sleep(pause)
            pause = min(pause * 1.5, 0.05)

    def endpoints(self) -> Check:
        calls = [("reset", lambda: self.reset("memlab-doctor")),
                 ("write", lambda: self.timed("mutation", self.sut.write(OWNER, KEY, self.value, None))),
                 ("query", lambda: self.timed("query", self.sut.query(OWNER, PROMPT))),
                 ("delete", lambda: self.timed("mutation", self.sut.delete(OWNER, KEY)))]
        if self.config.capabilities["ttl"]:
            calls.append(("advance_time", lambda: self.timed("mutation", self.sut.advance_time(1))))
        for _, call in calls:
            try:
                call()
            except HttpError as exc:
                self.errors.append(exc)
                if exc.kind == "connect":
                    return Check("endpoints", False, exc.message, exc.fix)
        dead = [e for e in self.errors if e.kind in ANSWER_KINDS]
        if dead:
            return Check("endpoints", False, "; ".join(f"{e.endpoint}: {e.message}" for e in dead),
                         " ".join(dict.fromkeys(e.fix for e in dead)))
        return Check("endpoints", True, ", ".join(name for name, _ in calls) + " answered 2xx")

    def contract(self) -> Check:
        bad = [e for e in self.errors if e.kind == "shape"]
        if bad:
            return Check("contract", False, "; ".join(f"{e.endpoint}: {e.message}" for e in bad),
                         " ".join(dict.fromkeys(e.fix for e in bad)))
        return Check("contract", True, 'mutations answered {"ok": true}; query answered memories or answer')

    def convergence(self) -> Check:
        self.reset("memlab-doctor")
        start = time.perf_counter()
        self.timed("mutation", self.sut.write(OWNER, KEY, self.value, None))
        seen, n, _ = self.poll(OWNER, self.value, present=True)
        latency = time.perf_counter() - start
        if seen and n == 1:
            self.measured["convergence"] = latency
            return Check("convergence", True, f"the probe was served at the first query after the write's ok "
                                              f"(write + query {latency * 1000:.1f} ms)")
        advised = _advised(latency)
        fix = (f"answer /write only once the value is readable (read-your-writes: wait for the index or "
               f"replica before replying ok), and set timeouts.mutation to at least {advised:g} s "
               f"({MARGIN}x the measured {latency:.2f} s) in {self.config.path}")
        if not seen:
            return Check("convergence", False, f"the probe was not served within timeouts.mutation = "
                                               f"{self.limit:g} s ({n} queries)",
                         "check that /query reads the store /write writes, for the same scope; then " + fix)
        self.measured["convergence"] = latency
        return Check("convergence", False, f"the probe was served only {latency:.2f} s after the write "
                                           f"({n} queries); the gate queries once, right after the ok, and would "
                                           "read missing_current_fact", fix)

    def timeouts(self) -> Check:
        advice, configured = self.advice()["timeouts"], self.config.timeouts
        short = {kind: advice[kind] for kind, s in self.slowest().items() if configured[kind] < MARGIN * s}
        measured = ", ".join(f"{k} {v * 1000:.1f} ms" for k, v in self.measured.items() if v is not None)
        if short:
            return Check("timeouts", False, "; ".join(f"timeouts.{k} = {configured[k]:g} s is under {v:g} s"
                                                      for k, v in short.items()) + f" (measured at most: {measured})",
                         f"raise them in {self.config.path}: " + ", ".join(f"{k}: {v:g}" for k, v in short.items()))
        return Check("timeouts", True, f"mutation {configured['mutation']:g} s, query {configured['query']:g} s "
                                       f"cover {MARGIN}x the slowest measured ({measured})")

    def advice(self) -> dict:
        """Advised timeouts: at least MARGIN x the slowest measured latency, never under FLOOR s."""
        return {"timeouts": {k: _advised(s) for k, s in self.slowest().items()}, "measured": dict(self.measured)}

    def slowest(self) -> dict[str, float]:
        """The slowest measured latency per timeout (a write's includes its convergence)."""
        return {"mutation": max(self.measured["mutation"], self.measured["convergence"] or 0.0),
                "query": self.measured["query"]}


def _advised(seconds: float) -> float:
    return max(FLOOR, math.ceil(seconds * MARGIN * 10) / 10)


def _isolation(probe: _Probe, other: Scope, who: str) -> Check:
    name = "user_isolation" if other.tenant_id == OWNER.tenant_id else "tenant_isolation"
    field_name = "user_id" if name == "user_isolation" else "tenant_id"
    folded = "" if probe.config.capabilities["tenants"] else " (tenants folded into user_id by the adapter)"
    if probe.served(other, probe.value):
        return Check(name, False, f"the probe written as {OWNER.tenant_id}/{OWNER.user_id} was served to {who} "
                                  f"({other.tenant_id}/{other.user_id}): scope_leakage, P1{folded}",
                     f"filter /query by scope.{field_name} as well: a memory is served only to the exact "
                     "(tenant_id, user_id) that wrote it")
    return Check(name, True, f"not served to {who}{folded}")


def _deletion(probe: _Probe) -> Check:
    probe.timed("mutation", probe.sut.delete(OWNER, KEY))
    gone, n, seconds = probe.poll(OWNER, probe.value, present=False)
    if gone and n == 1:
        return Check("deletion", True, "the probe was gone at the first query after the delete's ok")
    fix = ("make /delete remove the key's value in its scope from everything /query reads (indexes, "
           "caches, history), and answer ok only once it is gone")
    if gone:
        return Check("deletion", False, f"the probe was still served {seconds:.2f} s after the delete's ok "
                                        f"({n} queries); the gate queries once and would read deletion_residue", fix)
    return Check("deletion", False, f"the probe was still served {seconds:.2f} s after the delete's ok "
                                    f"(timeouts.mutation = {probe.limit:g} s): deletion_residue, P1", fix)


def _ttl(probe: _Probe) -> Check:
    if not probe.config.capabilities["ttl"]:
        return Check("ttl", None, "not declared (capabilities.ttl: false): the gate reports expiry_leak NOT TESTED")
    sut, rule = probe.sut, "a value written at time t with ttl_steps n is expired when now >= t + n"
    probe.reset("memlab-doctor-ttl")
    probe.timed("mutation", sut.write(OWNER, TTL_KEY, probe.value + "-ttl", 2))
    probe.timed("mutation", sut.write(OWNER, SIBLING_KEY, probe.value + "-sibling", None))
    probe.timed("mutation", sut.advance_time(1))
    if not probe.served(OWNER, probe.value + "-ttl"):
        return Check("ttl", False, "a value with ttl_steps 2 was gone after advance_time 1 (expired too early)",
                     f"count TTL in logical steps from /advance_time, not wall time: {rule}")
    probe.timed("mutation", sut.advance_time(1))
    gone, n, seconds = probe.poll(OWNER, probe.value + "-ttl", present=False)
    if not gone or n > 1:
        return Check("ttl", False, f"a value with ttl_steps 2 was still served after advance_time 2 "
                                   f"({seconds:.2f} s, {n} queries): expiry_leak",
                     f"stop serving a value once its TTL has run out: {rule}")
    if not probe.served(OWNER, probe.value + "-sibling"):
        return Check("ttl", False, "a value written without ttl_steps expired with its TTL'd sibling",
                     "a value without ttl_steps never expires")
    return Check("ttl", True, "ttl_steps 2: served at time 1, gone at time 2; the sibling without TTL stayed")
