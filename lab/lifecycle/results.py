"""A lifecycle result set on disk: the same shape and guarantees as an at-rest one.

::

    run.json                              kind lifecycle, run id, dates, status, lab revision, seeds, fail_on
    scenarios/<id>.json                   every scenario as loaded (the truth is replayed from these)
    observations/<row>/<id>@s<seed>.json  raw answers: every acknowledgement and served answer
    logs/<row>/...                        the SUT's log of every start
    rows/<row>.json                       derived: checks per seed and combined, gate, findings
    manifest.json                         RFC 8785 digest of every row, SHA-256 of every evidence file,
                                          the decision rules; manifest.sig when signed
    summary.json                          the --json summary (a rendering, not evidence)

Observations are written as each scenario ends, so a crashed or interrupted run keeps what it
measured; rows and the manifest are derived from the saved files only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lab.lifecycle.derive import DECISION_RULES, derive_row
from lab.lifecycle.scenario import Scenario
from lab.resultset.pins import file_digest
from lab.resultset.results import digest, read_json, write_json

MANIFEST_SCHEMA = "memlab.lifecycle-manifest/1"
ROW_SCHEMA = "memlab.lifecycle-row/1"
EVIDENCE_DIRS = ("scenarios", "observations", "logs")


def observation_name(obs: dict[str, Any]) -> str:
    """The file name of one scenario run's observation."""
    return f"{obs['scenario']}@s{obs['seed']}.json"


class LifecycleSet:
    """A lifecycle result-set folder being written."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)

    def save_scenarios(self, scenarios: list[Scenario]) -> None:
        """Keep every scenario as loaded: the ledger is replayed from these."""
        for scenario in scenarios:
            write_json(self.root / "scenarios" / f"{scenario.id}.json", scenario.to_json())

    def saver(self, row: str):
        """A callable saving one observation of ``row`` as it ends."""
        return lambda obs: write_json(self.root / "observations" / row / observation_name(obs), obs)

    def logs_dir(self, row: str) -> Path:
        """Where the SUT's logs of ``row`` go."""
        return self.root / "logs" / row

    def write_row(self, meta: dict[str, Any], fail_on: str) -> dict[str, Any]:
        """Derive one row from its saved observations and write it."""
        row = rederive(self.root, meta, fail_on)
        write_json(self.root / "rows" / f"{meta['row']}.json", row)
        return row

    def write_manifest(self, run: dict[str, Any]) -> dict[str, Any]:
        """Digest every row and evidence file and write ``manifest.json`` (voids an old signature)."""
        rows = [{"file": f"rows/{p.name}", "row": read_json(p)["row"], "digest": digest(read_json(p))}
                for p in sorted((self.root / "rows").glob("*.json"))]
        manifest = {"schema": MANIFEST_SCHEMA, "kind": "lifecycle", "lab": run.get("lab"),
                    "run_id": run.get("run_id"), "canonicalization": "RFC 8785 (JCS)",
                    "digest": "SHA-256 over the canonical encoding of each row file",
                    "decision_rules": DECISION_RULES, "fail_on": run.get("fail_on"), "rows": rows,
                    "evidence_digest": "SHA-256 over the bytes of each evidence file "
                                       "(run.json, scenarios, observations, logs)",
                    "evidence": [{"file": f, "digest": file_digest(self.root / f)} for f in evidence_files(self.root)]}
        (self.root / "manifest.sig").unlink(missing_ok=True)
        write_json(self.root / "manifest.json", manifest)
        return manifest


def evidence_files(root: Path) -> list[str]:
    """Every evidence file of a lifecycle set, as sorted POSIX paths relative to ``root``."""
    root = Path(root)
    found = ["run.json"] if (root / "run.json").is_file() else []
    for folder in EVIDENCE_DIRS:
        if (root / folder).is_dir():
            found += [p.relative_to(root).as_posix() for p in (root / folder).rglob("*")
                      if p.is_file() and not p.name.endswith(".tmp")]
    return sorted(found)


def load_scenarios(root: Path) -> dict[str, Scenario]:
    """The scenarios saved in a set, by id."""
    return {s.id: s for s in (Scenario.from_json(read_json(p)) for p in sorted((Path(root) / "scenarios").glob("*.json")))}


def load_observations(root: Path, row: str) -> list[dict[str, Any]]:
    """The saved observations of one row."""
    return [read_json(p) for p in sorted((Path(root) / "observations" / row).glob("*.json"))]


def rederive(root: Path, meta: dict[str, Any], fail_on: str) -> dict[str, Any]:
    """A row derived again from the set's saved scenarios and observations (pure)."""
    row = derive_row(meta, load_scenarios(root), load_observations(root, meta["row"]), fail_on)
    return {"schema": ROW_SCHEMA, **row, "describe": meta.get("describe", {})}


def row_meta(row: dict[str, Any]) -> dict[str, Any]:
    """What a row states about its SUT (the derivation's input besides the evidence)."""
    return {k: row.get(k) for k in ("row", "mode", "sut", "adapter", "capabilities", "scope", "describe")}


def summary_json(rows: list[dict[str, Any]], run: dict[str, Any]) -> dict[str, Any]:
    """The --json summary: per row checks, accuracy, delta, gate; and the run's verdict."""
    per_row = {r["row"]: {"status": r["status"],
                          "checks": {n: {k: c[k] for k in ("status", "severity", "violations", "opportunities", "rate")}
                                     for n, c in r["checks"].items()},
                          "current_fact_accuracy": r["current_fact_accuracy"],
                          "memory_utility_delta": r["memory_utility_delta"], "gate": r["gate"],
                          "errors": r["errors"]} for r in rows}
    first = rows[0] if len(rows) == 1 else None
    status = run_status(rows)
    blocking = sorted({f"{r['row']}:{b}" for r in rows for b in r["gate"]["blocking"]})
    out = {"schema": "memlab.lifecycle-summary/1", "status": status, "fail_on": run.get("fail_on"),
           "scenarios": run.get("scenarios"), "seeds": run.get("seeds"),
           "gate": {"status": status, "blocking": blocking}, "rows": per_row,
           "judge_limits": rows[0]["judge_limits"] if rows else None}
    if first:  # one row: its figures at the top, as a CI job reads them
        out.update({k: per_row[first["row"]][k] for k in ("checks", "current_fact_accuracy", "memory_utility_delta")})
    return out


def run_status(rows: list[dict[str, Any]]) -> str:
    """The run's verdict: error if any row has a harness error, else FAIL, INCONCLUSIVE, PASS."""
    statuses = {r["status"] for r in rows}
    for status in ("error", "FAIL", "INCONCLUSIVE"):
        if status in statuses:
            return status
    return "PASS" if rows else "error"
