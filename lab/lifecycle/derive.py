"""From saved lifecycle observations to a row: replay the truth, judge every saved query, sum.

Pure over saved data (the scenarios as loaded and the raw observations), so ``memlab verify``
recomputes a lifecycle row from its evidence exactly as the run derived it. The ledger is
replayed from the scenario, never taken from the observation; the served text is taken from
the observation, never re-asked.

A step the observation lists as skipped with ``applied: false`` (never sent to the SUT: a delete
or rescope without "erase", advance_time without "ttl") is not replayed either: the truth is what
was actually asked of the SUT.

A scenario whose observation carries an ``error`` (a harness fault) or lacks a query the
scenario asks is a harness error of the row: the queries it did observe are still judged,
and the row's status is ``error`` (the gate cannot be decided on part of a pack).

Beside the gate, never in it: ``restarts`` (the restarted position's count and median seconds
per restart) and ``erasure_at_rest`` (``residue.summarise`` of the saved scans).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from lab.lifecycle.checks import FAIL, JUDGE_LIMITS_BY_REVISION, NOT_TESTED, PASS, Summary, gate, summarise
from lab.lifecycle.judge import judge_query
from lab.lifecycle.judgement import CHECKS, LABELS, WHY_RETRIEVED, QueryJudgement, checks_of
from lab.lifecycle.ledger import Ledger
from lab.lifecycle.matching import JUDGE_REVISION, JudgeLimit
from lab.lifecycle.residue import summarise as erasure_summary
from lab.lifecycle.scenario import Scenario

Checks = Mapping[str, str]  # check name -> priority (a judge revision's: checks_of)
#: Decision rules of a lifecycle row under the first revision of the judge.
DECISION_RULES_1 = {
    "truth": "a ledger with logical time replayed from the saved scenario; never the SUT, never a model",
    "used": "a value drove the answer when its normalised form (invisible and combining characters dropped) "
            "appears in the answer on token boundaries, separators ignored (current values of the querying "
            "scope masked first)",
    "opportunity": "per query, for a forbidden-value check: the query had a known value carrying the check's "
                   "label; missing_current_fact: per must_use key with a current value",
    "rate": "violations / opportunities (one per query, or per must_use key), summed over the queries of a "
            "seed; a finding is one (query, check)",
    "unjudged": "where the SUT says what reached the agent apart from its answer: a value of the check that "
                "reached the agent but is not in the answer makes that query NOT TESTED, never PASS",
    "status": "NOT TESTED with no decided opportunity, with an unjudged query, or when the SUT cannot "
              "express the check; FAIL with any violation; else PASS",
    "gate": "fail_on p1 blocks on P1 checks, p2 on P1 and P2; a blocking check that FAILs in any "
            "seed fails; INCONCLUSIVE when every gating check is NOT TESTED, a gating check has an "
            "unjudged query, or memory_utility_delta <= 0",
    "error": "a scenario with a harness fault or a missing query makes the row an error: no gate",
    "not_applied": "a step skipped with applied: false was not sent to the SUT and is not replayed",
    "position": "live: one SUT process per run; restarted: the SUT and its services stopped and started "
                "anew after every mutation sent; each position its own row, never merged",
    "erasure_at_rest": "a raw byte scan of every volume file after each delete, for the deleted values a hit "
                       "can be attributed to; a storage finding, not part of the gate",
}
#: Decision rules of a lifecycle row, written into every lifecycle manifest (the judge's revision 2).
DECISION_RULES = {
    **DECISION_RULES_1,
    "used": "a value drove the answer when its normalised form (invisible and combining characters dropped) "
            "appears on token boundaries, separators ignored, in a view of the answer: as served, or with markup, "
            "terminal codes, percent-encoding, string escapes, quoted-printable, base64 or hex text undone (each to "
            "a fixed point), each view also ASCII-folded (ä as a or ae) and with lookalike letters mapped; current "
            "values of the querying scope masked first",
    "unjudged": "a value of the check that reached the agent (retrieved) but is not in the answer, a value found "
                "only where a current value it folds together with is, or any value where the served text holds an "
                "encoding the judge cannot undo (a base64-looking run that is not text) makes that query NOT "
                "TESTED, never PASS",
    "judge_bounds": "a query's answer or retrieved text over 8 Mi characters, or judged for over 120 s, is a "
                    "harness error of the row",
}
#: From the judge's revision 3: scope leakage is the SUT's only where the SUT keeps contexts apart.
NOT_THE_SUTS = {
    None: "the profile does not say who keeps contexts apart (lifecycle.isolation: sut, separate-store or "
          "driver): a leak or its absence could be the driver's",
    "driver": "contexts are kept apart by memlab's driver (it filters the SUT's records by context), not by the "
              "SUT: a leak or its absence would measure the driver",
    "separate-store": "each context is a store of its own (the driver opens one per context): no read path of the "
                      "SUT is asked to keep contexts apart",
}
DECISION_RULES_3 = {
    **DECISION_RULES,
    "isolation": "scope_leakage is counted only where the SUT keeps contexts apart on its read path (the "
                 "profile's lifecycle.isolation: sut; a team's HTTP shim is its service's); driver-enforced, "
                 "one-store-per-context or undeclared rows have it NOT TESTED with that reason",
}
NO_ERASE = {"context": "the SUT erases whole contexts only: no delete or rescope was sent (capability erase)",
            "record": "the row does not declare erase (lifecycle.capabilities): no delete or rescope was sent",
            "none": "no erasure: the SUT cannot erase a record, so no delete or rescope was sent"}


def not_testable(capabilities: Iterable[str], erasure: str | None = None, isolation: str | None = "sut",
                 revision: int = JUDGE_REVISION) -> dict[str, str]:
    """The checks a SUT with these lifecycle capabilities (and at-rest ``erasure`` kind, for the
    reason) cannot express, with the reason; from revision 3, scope leakage unless the SUT itself
    keeps contexts apart (``isolation``)."""
    caps, out = set(capabilities), {}
    if revision >= 3 and isolation != "sut":
        out["scope_leakage"] = NOT_THE_SUTS.get(isolation, NOT_THE_SUTS[None])
    if "ttl" not in caps:
        out["expiry_leak"] = "the SUT declares no TTL (capability ttl)"
    if "erase" not in caps:
        out["deletion_residue"] = NO_ERASE.get(erasure or "none", NO_ERASE["none"])
    return out


def unapplied(obs: Mapping[str, Any]) -> set[int]:
    """The step indices an observation says were never sent to the SUT."""
    return {s["index"] for s in obs.get("skipped", []) if s.get("applied") is False}


def judge_observation(scenario: Scenario, obs: Mapping[str, Any], ttl: bool,
                      revision: int = JUDGE_REVISION) -> tuple[list[dict], list[str]]:
    """Every query of one observation judged against the replayed ledger (by the judge's
    ``revision``): (judged queries, problems)."""
    ledger, skip = Ledger(ttl=ttl), unapplied(obs)
    whole = Ledger()  # the truth had every step been sent: what a SUT that cannot express one leaves untested
    saved = {q["index"]: q for q in obs.get("queries", [])}
    judged, problems = [], []
    for step in scenario.steps:
        if step.op != "query":
            if step.index not in skip:
                ledger.apply(step)
            whole.apply(step)
            continue
        query = saved.get(step.index)
        if query is None:
            problems.append(f"query step {step.index} was not observed")
            continue
        known = ledger.known(step.scope)
        current = {key: ledger.current(step.scope, key) for key in step.must_use}
        served = query.get("served") or {}
        text, retrieved = str(served.get("text", "")), served.get("retrieved")
        retrieved = [str(r) for r in retrieved] if isinstance(retrieved, list) else None
        try:
            judgement = judge_query(known, text, step.must_use, current, prompt=step.prompt or "",
                                    retrieved=retrieved, revision=revision)
        except JudgeLimit as exc:
            problems.append(f"query step {step.index}: {exc}")
            continue
        truth = {k.label for k in whole.known(step.scope)}
        judgement = replace(judgement, untestable=tuple(n for n, labels in LABELS.items() if labels & truth)
                            ).only(checks_of(revision))  # the revision's checks: a row is derived as written
        judged.append({"index": step.index, "prompt": step.prompt, "scope": query.get("scope"),
                       "served_text": text, "judgement": judgement})
    if obs.get("error"):
        problems.insert(0, f"{obs['error'].get('stage')}: {obs['error'].get('message')}")
    return judged, problems


def derive_row(meta: Mapping[str, Any], scenarios: Mapping[str, Scenario],
               observations: list[Mapping[str, Any]], fail_on: str, revision: int = JUDGE_REVISION) -> dict[str, Any]:
    """One lifecycle row: per seed a Summary, the gate over the seeds, findings and errors (by the
    judge's ``revision``)."""
    ttl = "ttl" in meta.get("capabilities", [])
    untestable = not_testable(meta.get("capabilities", []), meta.get("erasure"), meta.get("isolation"), revision)
    position = meta.get("position", "live")
    by_seed: dict[int, list[QueryJudgement]] = {}
    found, errors = Found(untestable), []
    for obs in sorted(observations, key=lambda o: (o["seed"], o["scenario"])):
        scenario = scenarios.get(obs["scenario"])
        if scenario is None:
            errors.append({"scenario": obs["scenario"], "seed": obs["seed"], "message": "scenario not saved"})
            continue
        judged, problems = judge_observation(scenario, obs, ttl, revision)
        if obs.get("position", position) != position:
            problems.append(f"observed at position {obs.get('position')!r}, the row is {position!r}")
        errors += [{"scenario": scenario.id, "seed": obs["seed"], "message": p} for p in problems]
        by_seed.setdefault(obs["seed"], []).extend(q["judgement"] for q in judged)
        found.add(scenario.id, obs["seed"], judged)
    seeds = sorted(by_seed)
    names = checks_of(revision)
    summaries = [summarise(by_seed[s], untestable, names) for s in seeds]
    verdict = gate(summaries, fail_on, names)
    return {"row": meta["row"], "kind": "lifecycle", "position": position,
            "sut": dict(meta.get("sut", {})), "adapter": meta.get("adapter"),
            "capabilities": sorted(meta.get("capabilities", [])), "scope": meta.get("scope"),
            **({"isolation": meta.get("isolation")} if revision >= 3 else {}),
            "scenarios": len({o["scenario"] for o in observations}), "seeds": seeds,
            "status": "error" if errors else verdict.status,
            "per_seed": [{"seed": s, **summary.to_json()} for s, summary in zip(seeds, summaries)],
            "checks": combine([{n: c.to_json() for n, c in s.checks.items()} for s in summaries], names),
            "current_fact_accuracy": _accuracy(summaries, "current_fact_accuracy"),
            "baseline": _accuracy(summaries, "baseline"),
            "memory_utility_delta": _delta(summaries),
            "retrieval": combine_retrieval([s.retrieval for s in summaries], names),
            "gate": verdict.to_json(), "findings": found.failed, "not_tested": found.not_tested,
            "retrieval_findings": found.retrieved, "errors": errors, "judge_limits": JUDGE_LIMITS_BY_REVISION[revision],
            "restarts": restarts(observations), "erasure_at_rest": erasure_summary(observations)}


def restarts(observations: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The restarts the observations record: count, median and total seconds (stop + start)."""
    seconds = [r["stop"] + r["start"] for obs in observations for e in obs.get("steps", [])
               if (r := e.get("restart"))]
    return {"count": len(seconds), "median_seconds": round(statistics.median(seconds), 6) if seconds else None,
            "seconds": round(sum(seconds), 6)}


def combine(sources: list[Mapping[str, Mapping[str, Any]]], names: Checks = CHECKS) -> dict[str, dict[str, Any]]:
    """Each check over several sources (the seeds of a row, or the rows of a run), each a mapping of
    check name -> its JSON: counts summed; FAIL if any source fails it, NOT TESTED if none tested it."""
    out = {}
    for name, severity in names.items():
        per = [source[name] for source in sources]
        statuses = {c["status"] for c in per}
        status = FAIL if FAIL in statuses else (PASS if PASS in statuses else NOT_TESTED)
        violations, chances = sum(c["violations"] for c in per), sum(c["opportunities"] for c in per)
        reasons = sorted({c["reason"] for c in per if c.get("reason")})
        out[name] = {"status": status, "severity": severity, "violations": violations,
                     "opportunities": chances, "rate": violations / chances if chances else None,
                     "not_tested": sum(c.get("not_tested", 0) for c in per),
                     "unjudged": sum(c.get("unjudged", 0) for c in per), "reason": "; ".join(reasons)}
    return out


def combine_retrieval(sources: list[Mapping[str, Any] | None], names: Checks = CHECKS) -> dict[str, Any] | None:
    """The retrieval figures of several seeds (or rows) summed; None when none of them had any."""
    present = [s for s in sources if s]
    if not present:
        return None
    checks = {}
    for name, severity in names.items():
        violations = sum(s["checks"][name]["violations"] for s in present)
        chances = sum(s["checks"][name]["opportunities"] for s in present)
        checks[name] = {"severity": severity, "violations": violations, "opportunities": chances,
                        "rate": violations / chances if chances else None}
    return {"queries": sum(s["queries"] for s in present), "checks": checks}


def sum_accuracy(parts: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Hits and opportunities summed over several {hits, opportunities}, with the rate."""
    hits, chances = sum(p["hits"] for p in parts), sum(p["opportunities"] for p in parts)
    return {"hits": hits, "opportunities": chances, "rate": hits / chances if chances else None}


def _accuracy(summaries: list[Summary], which: str) -> dict[str, Any]:
    return sum_accuracy([getattr(s, which).to_json() for s in summaries])


def _delta(summaries: list[Summary]) -> float | None:
    acc, base = _accuracy(summaries, "current_fact_accuracy"), _accuracy(summaries, "baseline")
    return None if acc["rate"] is None else round(acc["rate"] - base["rate"], 6)


class Found:
    """A row's findings, one per (query, check) — per (query, key) for missing_current_fact — with
    the values that are its evidence: ``failed`` (FAIL), ``not_tested`` (the judge could not decide,
    with why) and ``retrieved`` (forbidden values that reached the agent, answered or not)."""

    def __init__(self, not_testable: Mapping[str, str] | None = None) -> None:
        self.not_testable = dict(not_testable or {})  # check -> why the SUT cannot express it
        self.failed: list[dict[str, Any]] = []
        self.not_tested: list[dict[str, Any]] = []
        self.retrieved: list[dict[str, Any]] = []

    def add(self, scenario: str, seed: int, judged: list[dict]) -> None:
        """Every finding of one observation's judged queries."""
        for query in judged:
            judgement = query["judgement"]
            where = {"scenario": scenario, "seed": seed, "step": query["index"], "prompt": query["prompt"],
                     "scope": query["scope"], "served": query["served_text"]}
            for check, result in judgement.checks.items():
                if check == "missing_current_fact":
                    self.failed += [_finding(check, where, (k,)) for k in result.violations]
                    self.not_tested += [{**_finding(check, where, (k,)), "reason": _reason(result, k, UNJUDGED_FACT)}
                                        for k in result.unjudged]
                    continue
                if result.violations:
                    self.failed.append(_finding(check, where, result.violations))
                elif result.unjudged:
                    reasons = dict.fromkeys(_reason(result, k, UNJUDGED_VALUE) for k in result.unjudged)
                    self.not_tested.append({**_finding(check, where, result.unjudged), "reason": "; ".join(reasons)})
                if result.retrieved:
                    self.retrieved.append(_finding(check, where, result.retrieved))
            self.not_tested += [{**_finding("missing_current_fact", where, ()), "key": key, "reason": NO_CURRENT}
                                for key in judgement.no_current]
            self.not_tested += [{**_finding(check, where, ()), "reason": self.not_testable[check]}
                                for check in judgement.untestable if check in self.not_testable]


UNJUDGED_VALUE = "the value reached the agent (retrieved) but not its answer: the judge cannot tell whether it drove it"
UNJUDGED_FACT = "the current value reached the agent (retrieved) but not its answer: it may be there in other words"
NO_CURRENT = "the scenario names this key in must_use where it has no current value (an authoring slip?)"


def _reason(result: Any, value: Any, retrieved: str) -> str:
    """Why an unjudged value is unjudged, in a finding's words (``retrieved``: the retrieval case's)."""
    why = result.reason(value)
    return retrieved if why == WHY_RETRIEVED else f"{value.value!r}: {why}"


def _finding(check: str, where: Mapping[str, Any], values: tuple[Any, ...]) -> dict[str, Any]:
    """One (query, check) and the values that are its evidence."""
    return {"check": check, "severity": CHECKS[check], **where,
            "values": [{"value": k.value, "key": k.key, "label": k.label.value, "written_in": k.to_json()["scope"]}
                       for k in values]}
