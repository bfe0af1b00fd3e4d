"""Checks and the gate: from the query judgements of a run to PASS / FAIL / NOT TESTED.

``summarise`` (one seed): per check, violations and opportunities summed over every query (a
value counts once per query it was in reach of), rate = violations / opportunities. A check with
zero opportunities, or named in ``not_testable`` (what the SUT cannot express, e.g. TTL), is
NOT TESTED — never PASS; a summary whose checks are all NOT TESTED is INCONCLUSIVE.
Current-fact accuracy = must_use hits / opportunities; the no-memory baseline the same over the
prompts alone; ``memory_utility_delta`` = accuracy - baseline accuracy (None: no opportunity).

``gate`` (all seeds): ``fail_on="p1"`` blocks on P1 checks, ``"p2"`` on P1 and P2. A blocking
check that FAILs in any seed fails the gate (so an unstable check that fails anywhere blocks);
``unstable`` lists the checks whose status differs across seeds. INCONCLUSIVE, never PASS, when
no seed ran, when every check the gate rests on is NOT TESTED in every seed, or when a seed's
memory_utility_delta is None or <= 0: a store that remembers nothing passes every forgetting
check trivially (LIFECYCLE.md: "a SUT cannot pass by never remembering").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lab.lifecycle.judge import CHECKS, QueryJudgement

PASS, FAIL, NOT_TESTED, INCONCLUSIVE = "PASS", "FAIL", "NOT TESTED", "INCONCLUSIVE"
FAIL_ON = {"p1": frozenset({"P1"}), "p2": frozenset({"P1", "P2"})}
JUDGE_LIMITS = ("Judge: deterministic matching of normalised values (NFKC, casefold, punctuation "
                "folded, token boundaries) in the served text: high precision; a paraphrased or "
                "reworded value is not recognised (recall limit), so a violation can be missed, "
                "and a current fact served only in other words counts as missing.")
NO_OPPORTUNITY = {
    "scope_leakage": "no query came while another user's or tenant's value existed",
    "deletion_residue": "no query came after a delete or rescope in the querying scope",
    "stale_reuse": "no query came after a correction in the querying scope",
    "expiry_leak": "no query came after a value's TTL ran out",
    "missing_current_fact": "no query named, in must_use, a key with a current value",
}


@dataclass(frozen=True)
class CheckSummary:
    """One check over one seed's queries."""

    name: str
    severity: str
    status: str
    violations: int
    opportunities: int
    reason: str = ""

    @property
    def rate(self) -> float | None:
        """violations / opportunities, None without opportunities."""
        return self.violations / self.opportunities if self.opportunities else None

    def to_json(self) -> dict[str, Any]:
        """Plain data: status, severity, violations, opportunities, rate, reason."""
        return {"status": self.status, "severity": self.severity, "violations": self.violations,
                "opportunities": self.opportunities, "rate": self.rate, "reason": self.reason}


@dataclass(frozen=True)
class Accuracy:
    """Current facts served (hits) out of the must_use facts that had a current value."""

    hits: int
    opportunities: int

    @property
    def rate(self) -> float | None:
        """hits / opportunities, None without opportunities."""
        return self.hits / self.opportunities if self.opportunities else None

    def to_json(self) -> dict[str, Any]:
        """Plain data."""
        return {"hits": self.hits, "opportunities": self.opportunities, "rate": self.rate}


@dataclass(frozen=True)
class Summary:
    """One seed: every check, accuracy, the no-memory baseline and the status."""

    checks: Mapping[str, CheckSummary]
    current_fact_accuracy: Accuracy
    baseline: Accuracy

    @property
    def memory_utility_delta(self) -> float | None:
        """Accuracy minus the no-memory baseline's, None without opportunities."""
        acc, base = self.current_fact_accuracy.rate, self.baseline.rate
        return None if acc is None or base is None else acc - base

    @property
    def status(self) -> str:
        """FAIL if any check fails, INCONCLUSIVE if none was tested, else PASS."""
        statuses = {c.status for c in self.checks.values()}
        if FAIL in statuses:
            return FAIL
        return INCONCLUSIVE if statuses == {NOT_TESTED} else PASS

    def to_json(self) -> dict[str, Any]:
        """Plain data."""
        return {"status": self.status, "checks": {n: c.to_json() for n, c in self.checks.items()},
                "current_fact_accuracy": self.current_fact_accuracy.to_json(),
                "baseline": self.baseline.to_json(),
                "memory_utility_delta": self.memory_utility_delta}


@dataclass(frozen=True)
class Gate:
    """The verdict over every seed, with the checks that block and those that are unstable."""

    status: str
    fail_on: str
    blocking: tuple[str, ...]
    unstable: tuple[str, ...]
    reasons: tuple[str, ...]
    statuses: Mapping[str, tuple[str, ...]]  # check -> its status in each seed

    def to_json(self) -> dict[str, Any]:
        """Plain data."""
        return {"status": self.status, "fail_on": self.fail_on, "blocking": list(self.blocking),
                "unstable": list(self.unstable), "reasons": list(self.reasons),
                "statuses": {n: list(s) for n, s in self.statuses.items()}}


def summarise(judgements: Sequence[QueryJudgement],
              not_testable: Mapping[str, str] | None = None) -> Summary:
    """Sum one seed's query judgements into a Summary; ``not_testable`` maps check -> reason."""
    not_testable = dict(not_testable or {})
    unknown = sorted(set(not_testable) - set(CHECKS))
    if unknown:
        raise ValueError(f"not_testable names unknown checks {unknown}; use {sorted(CHECKS)}")
    checks = {}
    for name, severity in CHECKS.items():
        violations = sum(len(j.checks[name].violations) for j in judgements)
        chances = sum(len(j.checks[name].opportunities) for j in judgements)
        if name in not_testable:
            status, reason = NOT_TESTED, not_testable[name]
        elif not chances:
            status, reason = NOT_TESTED, NO_OPPORTUNITY[name]
        else:
            status, reason = (FAIL if violations else PASS), ""
        checks[name] = CheckSummary(name, severity, status, violations, chances, reason)
    chances = sum(j.accuracy_opportunities for j in judgements)
    return Summary(checks, Accuracy(sum(j.accuracy_hits for j in judgements), chances),
                   Accuracy(sum(j.baseline_hits for j in judgements), chances))


def gate(summaries_per_seed: Sequence[Summary], fail_on: str = "p1") -> Gate:
    """The gate over every seed's Summary (``fail_on``: "p1" or "p2")."""
    if fail_on not in FAIL_ON:
        raise ValueError(f"fail_on must be one of {sorted(FAIL_ON)}, not {fail_on!r}")
    gating = [n for n, sev in CHECKS.items() if sev in FAIL_ON[fail_on]]
    statuses = {n: tuple(s.checks[n].status for s in summaries_per_seed) for n in CHECKS}
    unstable = tuple(n for n in CHECKS if len(set(statuses[n])) > 1)
    blocking = tuple(n for n in gating if FAIL in statuses[n])
    if blocking:
        reasons = tuple(f"{n} ({CHECKS[n]}) FAILs in seed(s) "
                        f"{', '.join(str(i) for i, s in enumerate(statuses[n]) if s == FAIL)}"
                        for n in blocking)
        return Gate(FAIL, fail_on, blocking, unstable, reasons, statuses)
    reasons = _inconclusive(summaries_per_seed, gating, statuses)
    return Gate(INCONCLUSIVE if reasons else PASS, fail_on, (), unstable, reasons, statuses)


def _inconclusive(summaries: Sequence[Summary], gating: list[str],
                  statuses: Mapping[str, tuple[str, ...]]) -> tuple[str, ...]:
    if not summaries:
        return ("no seed ran",)
    reasons = []
    if all(set(statuses[n]) == {NOT_TESTED} for n in gating):
        reasons.append(f"every check the gate rests on ({', '.join(gating)}) is NOT TESTED")
    for seed, summary in enumerate(summaries):
        delta = summary.memory_utility_delta
        if delta is None or delta <= 0:
            shown = "none (no must_use fact had a current value)" if delta is None else f"{delta:+.2f}"
            reasons.append(f"seed {seed}: memory_utility_delta is {shown}: the SUT served no current "
                           "fact beyond the prompt, and a store that remembers nothing passes "
                           "every forgetting check")
    return tuple(reasons)
