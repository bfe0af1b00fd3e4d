"""What the judge decided at one query, as the plain data a lifecycle row keeps.

``CHECKS`` names the checks with their priorities and ``LABELS`` the ledger labels each
forbidden-value check catches; ``KEPT_CHECKS`` the checks of each judge revision published rows
were written under, so a row is re-derived with its own checks (:func:`checks_of`) when one is
added. ``CheckResult``: one check at one query (its opportunities,
violations, the values left unjudged and why, what reached the agent) and its status;
``QueryJudgement``: every check at one query, with the no-memory baseline and the accuracy counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from lab.lifecycle.ledger import Known, Label

CHECKS: dict[str, str] = {"scope_leakage": "P1", "deletion_residue": "P1", "stale_reuse": "P2",
                          "expiry_leak": "P2", "missing_current_fact": "P2"}
LABELS: dict[str, frozenset[Label]] = {
    "scope_leakage": frozenset({Label.FOREIGN_USER, Label.FOREIGN_TENANT}),
    "deletion_residue": frozenset({Label.DELETED}),
    "stale_reuse": frozenset({Label.STALE}),
    "expiry_leak": frozenset({Label.EXPIRED}),
}
WHY_RETRIEVED = "reached the agent (retrieved) but not its answer"
_FIVE = {"scope_leakage": "P1", "deletion_residue": "P1", "stale_reuse": "P2", "expiry_leak": "P2",
         "missing_current_fact": "P2"}
#: Judge revision -> its checks (name -> priority), as rows of it hold them. Adding a check: a new judge
#: revision (lab.lifecycle.matching.JUDGE_REVISION), the old one kept here.
KEPT_CHECKS: dict[int, dict[str, str]] = {1: _FIVE, 2: _FIVE, 3: _FIVE}


def checks_of(revision: int) -> dict[str, str]:
    """The checks (name -> priority) a row of judge ``revision`` holds: the kept ones, else today's."""
    return KEPT_CHECKS.get(revision, CHECKS)


@dataclass(frozen=True)
class CheckResult:
    """One check at one query: the values it could catch (``opportunities``), those that violate it
    for sure (``violations``), those the judge cannot decide because they reached the agent but not
    its answer (``unjudged``), and those that reached the agent at all (``retrieved``)."""

    opportunities: tuple[Known, ...] = ()
    violations: tuple[Known, ...] = ()
    unjudged: tuple[Known, ...] = ()
    retrieved: tuple[Known, ...] = ()
    why: tuple[str, ...] = ()  # for each unjudged value, why (empty: revision 1, where it is always retrieval)

    @property
    def status(self) -> str | None:
        """A forbidden-value check at this query: FAIL, NOT TESTED (unjudged), PASS; None without
        an opportunity."""
        if not self.opportunities:
            return None
        return "FAIL" if self.violations else "NOT TESTED" if self.unjudged else "PASS"

    def reason(self, value: Known) -> str:
        """Why an unjudged value is unjudged."""
        return self.why[self.unjudged.index(value)] if self.why else WHY_RETRIEVED

    def to_json(self) -> dict[str, Any]:
        """Plain data (``why`` only when set)."""
        out: dict[str, Any] = {name: [k.to_json() for k in getattr(self, name)]
                               for name in ("opportunities", "violations", "unjudged", "retrieved")}
        if self.why:
            out["why"] = list(self.why)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CheckResult:
        """The inverse of ``to_json``."""
        return cls(*(tuple(Known.from_json(k) for k in data.get(name, []))
                     for name in ("opportunities", "violations", "unjudged", "retrieved")),
                   tuple(data.get("why", ())))


@dataclass(frozen=True)
class QueryJudgement:
    """Every check at one query; the must_use facts the no-memory baseline has (``baseline``: in the
    prompt); whether the SUT said what reached the agent (``has_retrieval``); the must_use keys
    with no current value here (``no_current``: a peer-shaped scenario's NOT TESTED); the checks
    that would have had an opportunity here had every step been sent (``untestable``: what a SUT
    that cannot express a step, e.g. TTL, leaves NOT TESTED)."""

    checks: Mapping[str, CheckResult]
    baseline: tuple[Known, ...] = ()
    has_retrieval: bool = False
    no_current: tuple[str, ...] = ()
    untestable: tuple[str, ...] = ()

    def only(self, names: Mapping[str, str]) -> QueryJudgement:
        """This judgement restricted to the checks ``names`` (a revision's: :func:`checks_of`)."""
        return replace(self, checks={n: r for n, r in self.checks.items() if n in names},
                       untestable=tuple(n for n in self.untestable if n in names))

    @property
    def accuracy_opportunities(self) -> int:
        """must_use keys with a current value at this query that the judge could decide."""
        missing = self.checks["missing_current_fact"]
        return len(missing.opportunities) - len(missing.unjudged)

    @property
    def accuracy_hits(self) -> int:
        """Those whose current value the answer used."""
        return self.accuracy_opportunities - len(self.checks["missing_current_fact"].violations)

    @property
    def baseline_hits(self) -> int:
        """The decided must_use facts the prompt alone holds (what a no-memory agent would serve)."""
        unjudged = self.checks["missing_current_fact"].unjudged
        return sum(1 for k in self.baseline if k not in unjudged)

    def to_json(self) -> dict[str, Any]:
        """Plain data."""
        return {"checks": {name: result.to_json() for name, result in self.checks.items()},
                "baseline": [k.to_json() for k in self.baseline], "has_retrieval": self.has_retrieval,
                "no_current": list(self.no_current), "untestable": list(self.untestable)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> QueryJudgement:
        """The inverse of ``to_json``."""
        return cls({name: CheckResult.from_json(result) for name, result in data["checks"].items()},
                   tuple(Known.from_json(k) for k in data["baseline"]), bool(data["has_retrieval"]),
                   tuple(data["no_current"]), tuple(data.get("untestable", ())))
