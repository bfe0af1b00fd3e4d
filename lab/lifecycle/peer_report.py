"""``--report-json``: a lifecycle run in the peer gate's report fields, beside memlab's own summary.

A CI job that reads memorycheck's JSON keeps reading it: ``gate.{fail_on, verdict,
blocking_findings, inconclusive_reasons}``; ``metrics.<check>.{opportunities, violations,
not_tested, rate}`` for scope_leakage, deletion_residue, stale_reuse and expiry_leak;
``metrics.current_fact_accuracy.{satisfied, total, value}``;
``metrics.memory_utility_delta.{with_memory, no_memory_baseline, delta}``; ``seed_stability``;
``answering_layer`` and ``limitations``; ``findings`` (each FAIL and NOT TESTED as
``{scenario_id, step_index, check, severity, status, detail, seed}``). The counts are memlab's,
counted as the peer counts (``lab.lifecycle.checks``). ``memlab`` carries memlab's own summary
(``--json``) with what the peer cannot say: positions, erasure at rest, retrieval, the result set.
Several rows (``--sut`` more than once) are taken together, as the summary takes them.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from lab import __version__
from lab.lifecycle.results import row_key

RATE_CHECKS = ("scope_leakage", "deletion_residue", "stale_reuse", "expiry_leak")
VERDICT = {"PASS": "PASS", "FAIL": "FAIL", "INCONCLUSIVE": "INCONCLUSIVE", "error": "ERROR"}
PARAPHRASE = ["The answering layer says stored values in its own words: where a value reached the agent "
              "(retrieved) but not its answer, that query is NOT TESTED for the check, never PASS, and the gate "
              "is INCONCLUSIVE.",
              "memory_utility_delta counts only the facts the answer quoted, so a system passing by forgetting "
              "everything cannot be told apart where every fact was said in other words.",
              "For a full measurement point /query at the store or at a layer that quotes stored values."]


def report(rows: list[dict[str, Any]], run: dict[str, Any], summary: dict[str, Any], adapter: str) -> dict[str, Any]:
    """The peer's report fields for a run (its rows, run.json, memlab's summary), ``adapter`` as named."""
    checks, acc = summary["checks"], summary["current_fact_accuracy"]
    layer = answering_layer(rows)
    findings = [_finding(f, "FAIL", _detail(f)) for r in rows for f in r["findings"]]
    findings += [_finding(f, "NOT_TESTED", f["reason"]) for r in rows for f in r.get("not_tested", [])]
    blocking = sum(r["gate"].get("blocking_findings", 0) for r in rows)
    reasons = [f"{row_key(r)}: {reason}" if len(rows) > 1 else reason
               for r in rows if r["status"] != "FAIL" for reason in r["gate"]["reasons"]]
    reasons += [f"{row_key(r)}: harness error: {e['scenario']} seed {e['seed']}: {e['message']}"
                for r in rows for e in r["errors"]]
    delta = summary["memory_utility_delta"]
    return {"tool": {"name": "memlab", "version": __version__}, "generated_at": _now(), "run_id": run.get("run_id"),
            "adapter": adapter, "adapter_unverified": False, "adapter_unverified_note": "",
            "answering_layer": layer, "limitations": list(PARAPHRASE) if layer == "paraphrasing" else [],
            "judge": "memlab-deterministic", "seeds": run.get("seeds"), "scenarios": run.get("scenarios"),
            "gate": {"fail_on": str(run.get("fail_on", "p2")).upper(), "verdict": VERDICT[summary["status"]],
                     "blocking_findings": blocking, "inconclusive_reasons": reasons},
            "metrics": {"current_fact_accuracy": {"satisfied": acc["hits"], "total": acc["opportunities"],
                                                  "value": acc["rate"]},
                        **{name: {k: checks[name].get(k, 0) for k in ("opportunities", "violations", "not_tested",
                                                                       "rate")} for name in RATE_CHECKS},
                        "memory_utility_delta": {"with_memory": acc["rate"],
                                                 "no_memory_baseline": None if delta is None or acc["rate"] is None
                                                 else round(acc["rate"] - delta, 6), "delta": delta}},
            "seed_stability": _stability(rows), "findings": findings, "memlab": summary}


def answering_layer(rows: list[dict[str, Any]]) -> str:
    """paraphrasing (a current fact reached the agent and not its answer), quoting (the answer used one),
    else unknown — the peer's classification, from memlab's rows."""
    if any(r["checks"]["missing_current_fact"].get("unjudged") for r in rows):
        return "paraphrasing"
    return "quoting" if any(r["current_fact_accuracy"]["hits"] for r in rows) else "unknown"


def _finding(f: dict[str, Any], status: str, detail: str) -> dict[str, Any]:
    return {"scenario_id": f["scenario"], "step_index": f["step"], "check": f["check"], "severity": f["severity"],
            "status": status, "detail": detail, "seed": f["seed"]}


def _detail(f: dict[str, Any]) -> str:
    shown = ", ".join(f"{v['label']} value {v['value']!r}" for v in f["values"])
    if f["check"] == "missing_current_fact":
        return f"current value for {f['values'][0]['key']!r} ({f['values'][0]['value']!r}) did not appear in " \
               f"behaviour (prompt: {f['prompt']!r})"
    return f"answer relied on {shown} (prompt: {f['prompt']!r})"


def _stability(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """(scenario, step, check)s that FAIL in some seed and pass in another, as the peer lists them."""
    unstable = set()
    for row in rows:
        seeds = set(row["seeds"])
        failed: dict[tuple, set] = {}
        untested: dict[tuple, set] = {}
        for f in row["findings"]:
            failed.setdefault((f["scenario"], f["step"], f["check"]), set()).add(f["seed"])
        for f in row.get("not_tested", []):
            untested.setdefault((f["scenario"], f["step"], f["check"]), set()).add(f["seed"])
        errored = {(e["scenario"], e["seed"]) for e in row["errors"]}
        for where, bad in failed.items():
            passed = {s for s in seeds - bad - untested.get(where, set()) if (where[0], s) not in errored}
            if passed:
                unstable.add(where)
    return {"stable": not unstable, "unstable_checks": [list(k) for k in sorted(unstable, key=str)]}


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
