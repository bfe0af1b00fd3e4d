"""A lab with one case and one lifecycle check more than this one, as a developer following
docs/architecture.md makes it: a case module added to the registry (T11, a second middle deletion in a
group of its own, on no level) and a new method revision named; a check added to the lifecycle judge
(a second residue check, P1, on deleted values) and a new judge revision. Run as a script, it reads
every published set it is given with that lab and prints one JSON line per set: for an at-rest set
whether it loads and verifies, the verdict its reports give the new case, its JUnit counts and its
gate outcome; for a lifecycle set whether it verifies, its rows' checks and statuses and its report
(tests/system/test_added_case.py compares them with this lab's).

    python tests/added_case.py results/published/langgraph-sqlite results/published/mem0-qdrant-local/lifecycle
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

ADDED = "T11"
REVISION = "bpm-agent-memory-integrity-00+variants-1+added-case"
CHECK = "residue_again"


def add_case() -> None:
    """The registry with T11 and the lab's revision renamed, before any reader of them is imported."""
    import lab
    import lab.cases
    from lab.cases import registry, t3

    lab.METHOD_REVISION = REVISION
    registry.MODULES = (*registry.MODULES, SimpleNamespace(CASE=replace(t3.CASE, id=ADDED, group=ADDED, level=None),
                                                           __doc__="T11 a second middle deletion."))
    registry.CASES = tuple(m.CASE for m in registry.MODULES)
    registry.CASE_IDS = tuple(c.id for c in registry.CASES)
    registry.BY_ID = {c.id: c for c in registry.CASES}
    registry.GROUPS = {g: tuple(c.id for c in registry.CASES if c.group == g)
                       for g in dict.fromkeys(c.group for c in registry.CASES)}
    for name in ("CASES", "CASE_IDS", "BY_ID", "GROUPS"):
        setattr(lab.cases, name, getattr(registry, name))


def add_check() -> None:
    """The lifecycle judge with one more check and its revision bumped, before its readers are imported."""
    from lab.lifecycle import checks, judgement, matching, results
    from lab.lifecycle.ledger import Label

    judgement.CHECKS[CHECK] = "P1"
    judgement.LABELS[CHECK] = frozenset({Label.DELETED})
    checks.NO_OPPORTUNITY[CHECK] = "no query came after a delete"
    checks.UNJUDGED_WHAT[CHECK] = "deleted"
    matching.JUDGE_REVISION = results.JUDGE_REVISION = 4
    matching.RULES[4] = matching.RULES[3]
    checks.JUDGE_LIMITS_BY_REVISION[4] = checks.JUDGE_LIMITS_BY_REVISION[3]
    results.ROW_SCHEMAS["memlab.lifecycle-row/4"] = 4
    results.ROW_SCHEMA = "memlab.lifecycle-row/4"


def read_lifecycle(root: Path) -> dict:
    """What this lab makes of the lifecycle set at ``root``."""
    from lab.lifecycle.judgement import CHECKS
    from lab.lifecycle.verify import verify_lifecycle
    from lab.report.lifecycle import markdown, print_report
    from lab.report.lifecycle_junit import render
    from rich.console import Console

    assert CHECK in CHECKS
    result = verify_lifecycle(root)
    rows = [json.loads(p.read_text()) for p in sorted((root / "rows").glob("*.json"))]
    run = json.loads((root / "run.json").read_text())
    markdown(rows, run), render(rows, run)
    print_report(rows, run, Console(width=200, file=open("/dev/null", "w")))
    return {"set": f"{root.parent.name}/{root.name}", "verified": result.ok,
            "findings": [f"{f.ground} {f.file}: {f.detail[:200]}" for f in result.findings][:3],
            "checks": sorted({n for r in rows for n in r["checks"]}), "statuses": [r["status"] for r in rows]}


def read(root: Path) -> dict:
    """What this lab makes of the at-rest set at ``root``."""
    from lab.cases.revisions import CURRENT
    from lab.report import html, junit, markdown
    from lab.report.terminal import compact_matrix, matrix
    from lab.resultset.gate import evaluate
    from lab.resultset.loading import load_row_records, load_run
    from lab.resultset.verify import verify
    from rich.console import Console

    assert CURRENT.cases[-1] == ADDED and CURRENT.name == REVISION, CURRENT
    rows, run = load_row_records(root), load_run(root)
    console = Console(width=200, record=True, file=open("/dev/null", "w"))
    console.print(matrix(rows), compact_matrix(rows))
    markdown.render(rows, run)
    html.render(rows, run)
    xml = junit.render(rows, run)
    result = verify(root)
    outcome = evaluate(rows, "accepted", "L1")
    return {"set": root.name, "verified": result.ok, "findings": [f"{f.ground} {f.file}" for f in result.findings][:3],
            "added": sorted({r.cell(ADDED).verdict for r in rows}),
            "columns": ADDED in console.export_text(), "junit": xml.count("<skipped"),
            "gate": [outcome.exit_code, outcome.failures, outcome.undecided]}


if __name__ == "__main__":
    add_case()
    add_check()
    for arg in sys.argv[1:]:
        print(json.dumps(read_lifecycle(Path(arg)) if Path(arg).name == "lifecycle" else read(Path(arg))), flush=True)
