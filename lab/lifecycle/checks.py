"""Checks and the gate: from the query judgements of a run to PASS / FAIL / NOT TESTED.

Counting as the peer gate defines it: ``summarise`` (one seed) counts, for each forbidden-value
check (scope_leakage, deletion_residue, stale_reuse, expiry_leak), **one opportunity per query**
that had a value carrying the check's label, and one violation per such query whose answer used
one (however many values it used: they are the finding's evidence); for missing_current_fact one
opportunity per must_use fact that had a current value. A finding is one (query, check) — one
(query, key) for missing_current_fact. rate = violations / opportunities over the queries the
judge could decide; ``not_tested`` counts the others:

- *unjudged*: the SUT said what reached the agent apart from its answer, and a forbidden value
  reached the agent but is not in the answer (or a current value reached it and is not in the
  answer): the agent may have used it in its own words, so the judge cannot decide. Any unjudged
  query makes the check NOT TESTED (never PASS) and, for a gating check, the gate INCONCLUSIVE;
- a must_use key with no current value at its query (a peer-shaped scenario's authoring slip).

A check with zero decided opportunities, or named in ``not_testable`` (what the SUT cannot
express, e.g. TTL), is NOT TESTED — never PASS; a summary whose checks are all NOT TESTED is
INCONCLUSIVE. Current-fact accuracy = must_use hits / decided opportunities; the no-memory baseline
the same over the prompts alone; ``memory_utility_delta`` = accuracy - baseline accuracy (None:
no opportunity). Beside the gate, never in it: ``retrieval``, the same checks judged on what
reached the agent (None when no query said).

``gate`` (all seeds): ``fail_on="p2"`` (the default, as the peer's) blocks on P1 and P2,
``"p1"`` on P1 only. A blocking check that FAILs in any seed fails the gate (so an unstable
check that fails anywhere blocks); ``blocking_findings`` counts the failing (query, check)s of the
blocking checks over every seed; ``unstable`` lists the checks whose status differs across seeds.
INCONCLUSIVE, never PASS, when no seed ran, when every check the gate rests on is NOT TESTED in
every seed, when a gating check has an unjudged query, or when a seed's memory_utility_delta is
None or <= 0: a store that remembers nothing passes every forgetting check trivially (a SUT cannot
pass by never remembering).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lab.lifecycle.judgement import CHECKS, WHY_RETRIEVED, QueryJudgement

PASS, FAIL, NOT_TESTED, INCONCLUSIVE = "PASS", "FAIL", "NOT TESTED", "INCONCLUSIVE"
FAIL_ON = {"p1": frozenset({"P1"}), "p2": frozenset({"P1", "P2"})}
DEFAULT_FAIL_ON = "p2"
JUDGE_LIMITS_BY_REVISION = {
    1: ("Judge: deterministic matching of normalised values (NFKC, casefold, invisible and "
        "combining characters dropped, punctuation folded, token boundaries) in the served text: "
        "high precision; a paraphrased or reworded value is not recognised (recall limit), so a "
        "violation can be missed, and a current fact served only in other words counts as missing "
        "— unless the SUT says what reached the agent, where such a query is NOT TESTED."),
    2: ("Judge: deterministic matching of normalised values (NFKC, casefold, invisible and combining "
        "characters dropped, punctuation folded, token boundaries) in every view of the served text: as "
        "served and with markup, terminal codes, percent-encoding, string escapes and quoted-printable, "
        "base64 or hex text undone, each also ASCII-folded and with lookalike letters mapped: high "
        "precision; a paraphrased or reworded value is not recognised (recall limit), so a violation can "
        "be missed, and a current fact served only in other words counts as missing — unless the SUT says "
        "what reached the agent, where such a query is NOT TESTED, as it is where the served text holds an "
        "encoding the judge cannot undo or a value folds together with a current one."),
}
JUDGE_LIMITS_BY_REVISION[3] = JUDGE_LIMITS_BY_REVISION[2]  # the same reading; revision 3 changes what is counted
JUDGE_LIMITS = JUDGE_LIMITS_BY_REVISION[3]
UNJUDGED = ("{n} quer{ies}: a {what} value reached the agent (retrieved) but not its answer; the judge "
            "cannot tell whether it drove the answer")
#: A forbidden-value check -> what its unjudged values are, in a reason's words.
UNJUDGED_WHAT = {"scope_leakage": "foreign", "deletion_residue": "deleted", "stale_reuse": "superseded",
                 "expiry_leak": "expired"}
NO_OPPORTUNITY = {
    "scope_leakage": "no query came while another user's or tenant's value existed",
    "deletion_residue": "no query came after a delete or rescope in the querying scope",
    "stale_reuse": "no query came after a correction in the querying scope",
    "expiry_leak": "no query came after a value's TTL ran out",
    "missing_current_fact": "no query named, in must_use, a key with a current value",
}


@dataclass(frozen=True)
class CheckSummary:
    """One check over one seed's queries (``not_tested``: queries, or facts, the judge could not
    decide; ``unjudged`` of them because a value reached the agent but not its answer)."""

    name: str
    severity: str
    status: str
    violations: int
    opportunities: int
    reason: str = ""
    not_tested: int = 0
    unjudged: int = 0

    @property
    def rate(self) -> float | None:
        """violations / opportunities, None without opportunities."""
        return self.violations / self.opportunities if self.opportunities else None

    def to_json(self) -> dict[str, Any]:
        """Plain data: status, severity, violations, opportunities, rate, not_tested, unjudged, reason."""
        return {"status": self.status, "severity": self.severity, "violations": self.violations,
                "opportunities": self.opportunities, "rate": self.rate, "not_tested": self.not_tested,
                "unjudged": self.unjudged, "reason": self.reason}


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
    """One seed: every check, accuracy, the no-memory baseline, the retrieval figures and the status."""

    checks: Mapping[str, CheckSummary]
    current_fact_accuracy: Accuracy
    baseline: Accuracy
    retrieval: Mapping[str, Mapping[str, Any]] | None = None

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
                "memory_utility_delta": self.memory_utility_delta, "retrieval": self.retrieval}


@dataclass(frozen=True)
class Gate:
    """The verdict over every seed, with the checks that block and those that are unstable."""

    status: str
    fail_on: str
    blocking: tuple[str, ...]
    unstable: tuple[str, ...]
    reasons: tuple[str, ...]
    statuses: Mapping[str, tuple[str, ...]]  # check -> its status in each seed
    blocking_findings: int = 0  # failing (query, check)s of the blocking checks, every seed

    def to_json(self) -> dict[str, Any]:
        """Plain data."""
        return {"status": self.status, "fail_on": self.fail_on, "blocking": list(self.blocking),
                "blocking_findings": self.blocking_findings, "unstable": list(self.unstable),
                "reasons": list(self.reasons), "statuses": {n: list(s) for n, s in self.statuses.items()}}


def query_counts(j: QueryJudgement, name: str) -> tuple[int, int, int, int]:
    """One query's (opportunities, violations, not tested, unjudged) for a check, counted as the peer
    counts: per query for a forbidden-value check, per must_use fact for missing_current_fact."""
    result = j.checks[name]
    if name == "missing_current_fact":
        unjudged = len(result.unjudged)
        return (len(result.opportunities) - unjudged, len(result.violations), unjudged + len(j.no_current),
                unjudged)
    status = result.status
    return (int(status in (PASS, FAIL)), int(status == FAIL), int(status == NOT_TESTED), int(status == NOT_TESTED))


def summarise(judgements: Sequence[QueryJudgement], not_testable: Mapping[str, str] | None = None,
              names: Mapping[str, str] = CHECKS) -> Summary:
    """Sum one seed's query judgements into a Summary of the checks ``names`` (a judge revision's:
    lab.lifecycle.judgement.checks_of); ``not_testable`` maps check -> reason."""
    # a check of today's the revision lacks is not its to report; a name no revision knows is refused
    not_testable = {n: why for n, why in (not_testable or {}).items() if n in names or n not in CHECKS}
    unknown = sorted(set(not_testable) - set(names))
    if unknown:
        raise ValueError(f"not_testable names unknown checks {unknown}; use {sorted(names)}")
    checks = {}
    for name, severity in names.items():
        chances, violations, untested, unjudged = (sum(c) for c in zip((0, 0, 0, 0), *(query_counts(j, name)
                                                                                       for j in judgements)))
        if name in not_testable:
            untested = sum(1 for j in judgements if name in j.untestable)
            status, reason = NOT_TESTED, not_testable[name]
        elif violations:
            status, reason = FAIL, ""
        elif unjudged:
            status, reason = NOT_TESTED, _unjudged_reason(name, unjudged, judgements)
        elif not chances:
            status, reason = NOT_TESTED, NO_OPPORTUNITY[name]
        else:
            status, reason = PASS, ""
        checks[name] = CheckSummary(name, severity, status, violations, chances, reason, untested, unjudged)
    chances = sum(j.accuracy_opportunities for j in judgements)
    return Summary(checks, Accuracy(sum(j.accuracy_hits for j in judgements), chances),
                   Accuracy(sum(j.baseline_hits for j in judgements), chances), retrieval_summary(judgements, names))


def retrieval_summary(judgements: Sequence[QueryJudgement],
                      names: Mapping[str, str] = CHECKS) -> dict[str, dict[str, Any]] | None:
    """The checks judged on what reached the agent, over the queries that said (None: none did): a
    forbidden value retrieved, per query; a current must_use fact not retrieved, per fact."""
    said = [j for j in judgements if j.has_retrieval]
    if not said:
        return None
    out = {}
    for name in names:
        results = [j.checks[name] for j in said]
        if name == "missing_current_fact":
            chances = sum(len(r.opportunities) for r in results)
            violations = chances - sum(len(r.retrieved) for r in results)
        else:
            chances = sum(1 for r in results if r.opportunities)
            violations = sum(1 for r in results if r.retrieved)
        out[name] = {"severity": names[name], "violations": violations, "opportunities": chances,
                     "rate": violations / chances if chances else None}
    return {"queries": len(said), "checks": out}


def _unjudged_reason(name: str, count: int, judgements: Sequence[QueryJudgement] = ()) -> str:
    others = sorted({w for j in judgements for w in j.checks[name].why if w != WHY_RETRIEVED})
    if others:  # revision 2: not only retrieval leaves a query undecided
        shown = "; ".join(others[:3]) + (f"; and {len(others) - 3} more" if len(others) > 3 else "")
        return (f"{count} {'fact(s)' if name == 'missing_current_fact' else 'quer' + ('y' if count == 1 else 'ies')} "
                f"the judge could not decide: {shown}")
    if name == "missing_current_fact":
        return (f"{count} current fact(s) reached the agent (retrieved) but not its answer; the judge cannot "
                "tell whether the answer used them in other words")
    return UNJUDGED.format(n=count, ies="y" if count == 1 else "ies", what=UNJUDGED_WHAT[name])


def gate(summaries_per_seed: Sequence[Summary], fail_on: str = DEFAULT_FAIL_ON,
         names: Mapping[str, str] = CHECKS) -> Gate:
    """The gate over every seed's Summary of the checks ``names`` (``fail_on``: "p1" or "p2")."""
    if fail_on not in FAIL_ON:
        raise ValueError(f"fail_on must be one of {sorted(FAIL_ON)}, not {fail_on!r}")
    gating = [n for n, sev in names.items() if sev in FAIL_ON[fail_on]]
    statuses = {n: tuple(s.checks[n].status for s in summaries_per_seed) for n in names}
    unstable = tuple(n for n in names if len(set(statuses[n])) > 1)
    blocking = tuple(n for n in gating if FAIL in statuses[n])
    if blocking:
        found = sum(s.checks[n].violations for s in summaries_per_seed for n in blocking)
        reasons = tuple(f"{n} ({names[n]}) FAILs in seed(s) "
                        f"{', '.join(str(i) for i, s in enumerate(statuses[n]) if s == FAIL)}"
                        for n in blocking)
        return Gate(FAIL, fail_on, blocking, unstable, reasons, statuses, found)
    reasons = _inconclusive(summaries_per_seed, gating, statuses)
    return Gate(INCONCLUSIVE if reasons else PASS, fail_on, (), unstable, reasons, statuses)


def _inconclusive(summaries: Sequence[Summary], gating: list[str],
                  statuses: Mapping[str, tuple[str, ...]]) -> tuple[str, ...]:
    if not summaries:
        return ("no seed ran",)
    reasons = []
    if all(set(statuses[n]) == {NOT_TESTED} for n in gating):
        reasons.append(f"every check the gate rests on ({', '.join(gating)}) is NOT TESTED")
    for name in gating:
        unjudged = [(seed, s.checks[name]) for seed, s in enumerate(summaries) if s.checks[name].unjudged]
        reasons += [f"seed {seed}: {name}: {check.reason}" for seed, check in unjudged]
    for seed, summary in enumerate(summaries):
        delta = summary.memory_utility_delta
        if delta is None or delta <= 0:
            shown = "none (no must_use fact had a current value)" if delta is None else f"{delta:+.2f}"
            reasons.append(f"seed {seed}: memory_utility_delta is {shown}: the SUT served no current "
                           "fact beyond the prompt, and a store that remembers nothing passes "
                           "every forgetting check")
    return tuple(reasons)
