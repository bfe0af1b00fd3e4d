"""The doctor: does an HTTP shim keep the contract the lifecycle gate relies on? Fast, in order.

``doctor(load_http_config(path))`` runs, against a *test* instance (it resets the store), in
either contract (the report says which, and why): endpoints (each answers 2xx; a 422 that names
the other contract's fields says so), contract (each answer's shape), convergence (write ->
visible, measured), answering (does the answer quote stored values?), user and tenant
isolation, deletion (delete -> gone, measured), ttl (when declared) and timeouts (the configured
ones against 5x the measured latencies); the checks of what the store does with the probe once served
(isolation, deletion, TTL) are :mod:`lab.lifecycle.doctor_store`'s. Every failure carries its fix. The probe value is unique per
run and holds diacritics and a separator (``Zürich-Øst 3fa9c2d1``): a layer that still serves it
folded (``Zurich-Ost``), escaped or highlighted fails as the gate's judge fails it, and one that
serves an encoding the judge cannot undo makes the deletion check a warning (the gate: NOT TESTED).

The doctor polls to *measure*, as the gate polls to confirm: convergence until the probe is
served, deletion and TTL until it is gone, each up to the convergence timeout. A store whose
writes and deletes show after a while passes, with the latency printed (the gate waits for each
mutation the same way); one whose probe never shows, or never goes, fails. On a correct store
the first query already answers, so a passing doctor never waits out a timeout to prove an
absence (isolation is asked once, after the probe has converged for its owner).

**Silent collapse.** A shim that reads other field names than the contract sends (``scope.user_id``
where the config speaks memorycheck's flat ``user_id``, or the reverse) puts every caller in one
scope and answers 200: isolation then fails for every user and tenant at once. When isolation
fails and the shim did not echo the scope it was sent, the doctor replays the isolation probe in
the other contract's request shape; if that one holds, it says the shim reads the other
contract's fields and how to say so in the config.

May import: the standard library and ``lab.lifecycle`` (the HTTP adapter, ``Scope``, the judge and its
``Known``).
"""
from __future__ import annotations

import math
import secrets
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from lab.lifecycle.adapters.http import ANSWER_KINDS, HttpAdapter, HttpConfig, HttpError
from lab.lifecycle.doctor_store import (FIELDS, KEY, OTHER_TENANT, OTHER_USER, OWNER, PROMPT, SAY, Check, deletion,
                                        isolation, ttl)
from lab.lifecycle.matching import served_uses
from lab.lifecycle.scenario import Scope

__all__ = ["Check", "DoctorReport", "doctor", "probe_value"]

PROBE_STEM = "Zürich-Øst"  # needs folding (Ø is no letter with a mark) and holds a separator
MARGIN = 5  # advised timeout: at least this many times the measured latency ...
FLOOR = 1.0  # ... and never under this many seconds


@dataclass
class DoctorReport:
    """Every check in order, the advised timeouts, the measured latencies and the total wall time."""

    service: dict
    checks: list[Check] = field(default_factory=list)
    advice: dict = field(default_factory=dict)
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no check failed (checks not run are named, never passed)."""
        return not any(c.ok is False for c in self.checks)

    def to_json(self) -> dict:
        """The report as plain data."""
        return {"ok": self.ok, "service": self.service, "checks": [asdict(c) for c in self.checks],
                "advice": self.advice, "notes": list(self.notes), "seconds": round(self.seconds, 4)}

    def lines(self) -> list[str]:
        """The report for a terminal: one line per check, each failure followed by its fix."""
        out = [f"doctor: {self.service['name']} at {self.service['base_url']}, contract {self.service['contract']}"]
        out += [f"  note: {n}" for n in self.notes]
        for c in self.checks:
            status = "WARN" if c.warn and c.ok else {True: "PASS", False: "FAIL", None: "SKIP"}[c.ok]
            out.append(f"  {status}  {c.name:<17} {c.detail}  [{c.seconds * 1000:.0f} ms]")
            if (c.ok is False or c.warn) and c.fix:
                out.append(f"        fix: {c.fix}")
        measured = self.advice.get("measured", {})
        shown = [f"{what} {measured[k]:.3f} s" for k, what in (("visible", "write -> visible"),
                                                                ("gone", "delete -> gone")) if measured.get(k) is not None]
        if shown:
            out.append("  measured: " + ", ".join(shown))
        failed = [c.name for c in self.checks if c.ok is False]
        verdict = "PASS" if self.ok else f"FAIL ({', '.join(failed)})"
        out.append(f"doctor: {verdict} in {self.seconds:.2f} s")
        return out


def doctor(config: HttpConfig) -> DoctorReport:
    """Check a shim in order and fast; never raises for the service's faults (they are checks)."""
    start = time.perf_counter()
    report = DoctorReport(service=config.to_json())
    report.notes.append(_contract_note(config))
    if config.unset_token:
        report.notes.append(f"auth_token_env names {config.unset_token}, which is not set: requests go without "
                            "Authorization, as memorycheck sends them")
    with HttpAdapter(config) as sut:
        sut.confirm_mutations = False  # the doctor measures convergence itself
        probe = _Probe(sut, config, report)
        probe.run()
        try:
            sut.begin("memlab-doctor-done")  # leave the test store empty
        except HttpError:
            pass
    report.advice = probe.advice()
    report.seconds = time.perf_counter() - start
    return report


def _contract_note(config: HttpConfig) -> str:
    other = "memlab" if config.contract == "memorycheck" else "memorycheck"
    return (f"speaking {config.contract}'s contract (the scope sent as {FIELDS[config.contract]}), as the config "
            f"says; for a shim written to {other}'s, say {SAY[other]}")


class _Probe:
    """The doctor's run: the checks share one adapter, the probe values and the measurements."""

    def __init__(self, sut: HttpAdapter, config: HttpConfig, report: DoctorReport):
        self.sut, self.config, self.report = sut, config, report
        self.value = probe_value()
        self.measured: dict[str, float | None] = {"mutation": 0.0, "query": 0.0, "visible": None, "gone": None}
        self.limit = config.convergence["timeout"]
        self.errors: list[HttpError] = []  # what the endpoints check met, for the contract check
        self.acks: list[dict] = []  # the write answers, to see whether the shim echoes the scope
        self.last = None  # the last query's Served

    def run(self) -> None:
        steps: list[tuple[str, Callable[[], Check]]] = [
            ("endpoints", self.endpoints), ("contract", self.contract), ("convergence", self.convergence),
            ("answering", self.answering),
            ("user_isolation", lambda: isolation(self, OTHER_USER, "another user of the same tenant")),
            ("tenant_isolation", lambda: isolation(self, OTHER_TENANT, "the same user id in another tenant")),
            ("deletion", lambda: deletion(self)), ("ttl", lambda: ttl(self)), ("timeouts", self.timeouts)]
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
        self.measured[kind] = max(self.measured[kind] or 0.0, result.seconds)
        return result

    def reset(self, namespace: str) -> None:
        """POST reset, its latency counted with the mutations'."""
        start = time.perf_counter()
        self.sut.begin(namespace)
        self.measured["mutation"] = max(self.measured["mutation"] or 0.0, time.perf_counter() - start)

    def write(self, scope: Scope, key: str, value: str, ttl: int | None = None) -> None:
        """POST write, its answer kept (does the shim echo the scope?)."""
        self.acks.append(self.timed("mutation", self.sut.write(scope, key, value, ttl)).raw)

    def served(self, scope: Scope, value: str) -> tuple[bool, bool]:
        """(in the answer, in what was retrieved) for ``value`` at one query."""
        got = self.last = self.timed("query", self.sut.query(scope, PROMPT))
        return served_uses(value, got.text), any(served_uses(value, r) for r in got.retrieved or [])

    def poll(self, scope: Scope, value: str, present: bool) -> tuple[bool, int, float]:
        """Query until ``value`` is (or is not) served, up to the convergence timeout: (reached, queries, s)."""
        start, n = time.perf_counter(), 0
        while True:
            n += 1
            if any(self.served(scope, value)) == present:
                return True, n, time.perf_counter() - start
            waited = time.perf_counter() - start
            if waited > self.limit:
                return False, n, waited
            time.sleep(min(max(waited / 4, 0.005), self.config.convergence["interval"]))

    def endpoints(self) -> Check:
        calls = [("reset", lambda: self.reset("memlab-doctor")),
                 ("write", lambda: self.write(OWNER, KEY, self.value)),
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
            hint = _other_contract_hint(self.config, dead)
            return Check("endpoints", False, "; ".join(f"{e.endpoint}: {e.message}" for e in dead) + hint[0],
                         hint[1] or " ".join(dict.fromkeys(e.fix for e in dead)))
        return Check("endpoints", True, ", ".join(name for name, _ in calls) + " answered 2xx")

    def contract(self) -> Check:
        bad = [e for e in self.errors if e.kind == "shape"]
        if bad:
            return Check("contract", False, "; ".join(f"{e.endpoint}: {e.message}" for e in bad),
                         " ".join(dict.fromkeys(e.fix for e in bad)))
        if self.config.contract == "memorycheck":
            return Check("contract", True, 'mutations answered 2xx; query answered {"answer": ...}')
        return Check("contract", True, 'mutations answered {"ok": true}; query answered memories or answer')

    def convergence(self) -> Check:
        self.reset("memlab-doctor")
        start = time.perf_counter()
        self.write(OWNER, KEY, self.value)
        seen, n, _ = self.poll(OWNER, self.value, present=True)
        latency = time.perf_counter() - start
        if not seen:
            return Check("convergence", False, f"the probe written was not served within the convergence timeout "
                                               f"({self.limit:g} s, {n} queries)",
                         f"check that /query reads the store /write writes, for the same scope; if it is only slow, "
                         f"raise the convergence timeout in {self.config.path} above its latency")
        self.measured["visible"] = latency
        when = "at the first query after the write's ok" if n == 1 else f"{latency:.3f} s after the write ({n} queries)"
        return Check("convergence", True, f"write -> visible: the probe was served {when}"
                                          + ("; the gate waits for each write the same way" if n > 1 else ""))

    def answering(self) -> Check:
        in_answer, in_retrieved = self.served(OWNER, self.value)
        if in_answer:
            return Check("answering", True, "the answer quotes the stored value: the judge can read it")
        return Check("answering", True, "the answer does not quote the stored value, which reached the agent "
                                        "(retrieved): the agent says it in its own words",
                     "the judge matches values, not paraphrases: the gate reports such queries NOT TESTED (and the "
                     "gate INCONCLUSIVE) rather than PASS. For a full measurement point /query at the store or at a "
                     "layer that quotes stored values" if in_retrieved else "", warn=True)

    def timeouts(self) -> Check:
        advice, configured = self.advice()["timeouts"], self.config.timeouts
        short = {kind: advice[kind] for kind, s in self.slowest().items() if configured[kind] < MARGIN * s}
        measured = ", ".join(f"{k} {v * 1000:.1f} ms" for k, v in self.measured.items() if v is not None)
        if short:
            return Check("timeouts", False, "; ".join(f"the {k} timeout {configured[k]:g} s is under {v:g} s"
                                                      for k, v in short.items()) + f" (measured at most: {measured})",
                         f"raise them in {self.config.path}: " + ", ".join(f"{k}: {v:g}" for k, v in short.items()))
        return Check("timeouts", True, ", ".join(f"{k} {configured[k]:g} s" for k in self.slowest())
                     + f" cover {MARGIN}x the slowest measured ({measured})")

    def advice(self) -> dict:
        """Advised timeouts: at least MARGIN x the slowest measured latency, never under FLOOR s."""
        return {"timeouts": {k: _advised(s) for k, s in self.slowest().items()}, "measured": dict(self.measured)}

    def slowest(self) -> dict[str, float]:
        """The slowest measured latency per timeout."""
        return {"mutation": self.measured["mutation"] or 0.0, "query": self.measured["query"] or 0.0,
                "convergence": max(self.measured["visible"] or 0.0, self.measured["gone"] or 0.0)}


def probe_value() -> str:
    """The doctor's probe, unique per run: diacritics and a separator (``Zürich-Øst 3fa9c2d1``), so a
    layer that folds, escapes or highlights it is caught as the gate's judge catches the pack's values."""
    return f"{PROBE_STEM} {secrets.token_hex(4)}"


def _advised(seconds: float) -> float:
    return max(FLOOR, math.ceil(seconds * MARGIN * 10) / 10)


def _other_contract_hint(config: HttpConfig, errors: list[HttpError]) -> tuple[str, str]:
    """A 422 (or 400) naming the other contract's scope fields: (detail addition, fix) or ("", "")."""
    other = "memlab" if config.contract == "memorycheck" else "memorycheck"
    wanted = {"memlab": ("scope",), "memorycheck": ("tenant_id", "user_id")}[other]
    for e in errors:
        if e.status in (400, 422) and any(f in str(e.body) for f in wanted):
            return (f"; the shim asks for {FIELDS[other]}: it speaks {other}'s contract",
                    f"this config speaks {config.contract}'s; say {SAY[other]} in {config.path}")
    return "", ""
