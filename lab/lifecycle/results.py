"""A lifecycle result set on disk: the same shape and guarantees as an at-rest one.

::

    run.json                              kind lifecycle, run id, dates, status, lab revision, seeds, fail_on;
                                          rows: what each (row, position) states about its SUT
    scenarios/<id>.json                   every scenario as loaded (the truth is replayed from these)
    observations/<key>/<id>@s<seed>.json  raw answers: every acknowledgement and served answer, the
                                          restarts and the erasure-at-rest scans
    logs/<key>/...                        the SUT's log of every start
    rows/<key>.json                       derived: checks per seed and combined, gate, findings,
                                          restarts, erasure at rest
    manifest.json                         RFC 8785 digest of every row, SHA-256 of every evidence file,
                                          the decision rules; manifest.sig when signed
    summary.json                          the --json summary (a rendering, not evidence)
    run.lock                              held by the one run writing the set (lab.resultset.lock)

``<key>`` is ``<row>@<position>`` (``row_key``): each position of a row is its own row of the
set, never merged. Observations are written as each scenario ends, so a crashed or interrupted run keeps what it
measured; rows and the manifest are derived from the saved files only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lab.lifecycle.derive import DECISION_RULES_3 as DECISION_RULES
from lab.lifecycle.derive import combine, combine_retrieval, derive_row, sum_accuracy
from lab.lifecycle.judgement import CHECKS
from lab.lifecycle.manifest_record import MANIFEST_SCHEMA, read_lifecycle_manifest
from lab.lifecycle.matching import JUDGE_REVISION
from lab.lifecycle.row_record import READERS as ROW_READERS
from lab.lifecycle.row_record import read_lifecycle_row
from lab.lifecycle.scenario import Scenario
from lab.resultset.evidence_budget import EvidenceBudget
from lab.resultset.lock import claim
from lab.resultset.pins import evidence
from lab.resultset.files import digest, read_json, write_json
from lab.resultset.loading import Unreadable

#: A lifecycle row's schema names the judge's revision it was derived by: ``memlab verify``
#: re-derives a set by the revision its rows say, so a set made before a change of the judge
#: still verifies (``scripts/rederive_lifecycle.py`` moves published sets to the current one).
ROW_SCHEMAS = {schema: record.revision for schema, record in ROW_READERS.items()}
ROW_SCHEMA = next(name for name, revision in ROW_SCHEMAS.items() if revision == JUDGE_REVISION)
EVIDENCE_DIRS = ("scenarios", "observations", "logs")
SUMMARY_FIELDS = ("status", "severity", "violations", "opportunities", "rate", "not_tested", "unjudged")


def row_key(meta: dict[str, Any]) -> str:
    """``<row>@<position>``: the name of one (row, position) in the set (files, summary, reports)."""
    return f"{meta['row']}@{meta.get('position', 'live')}"


def observation_name(obs: dict[str, Any]) -> str:
    """The file name of one scenario run's observation."""
    return f"{obs['scenario']}@s{obs['seed']}.json"


class LifecycleSet:
    """A lifecycle result-set folder being written."""

    def __init__(self, root: Path, resume: bool = False):
        self.root = Path(root)
        # one writer per folder, never into an existing set but the run it resumes (lab.resultset.lock)
        self._lock = claim(self.root, resume=resume)
        self._scenarios: dict[str, Scenario] | None = None
        #: What the run may write (lab.resultset.evidence_budget); None: no bound.
        self.budget: EvidenceBudget | None = None

    def save_scenarios(self, scenarios: list[Scenario]) -> None:
        """Keep every scenario as loaded: the ledger is replayed from these."""
        for scenario in scenarios:
            write_json(self.inside("scenarios", f"{scenario.id}.json"), scenario.to_json())

    def inside(self, *names: str) -> Path:
        """``root/names...`` when each name is one file name and the path stays inside the set's root
        (a row key, scenario id or observation name joined under it); ValueError otherwise, before
        anything is written: a name like ``../../x`` or ``a/b`` would write outside the set or into a
        folder its verify does not know."""
        root = self.root.resolve()
        path = self.root.joinpath(*names)
        for name in names:
            if not name or name in (".", "..") or "/" in name or "\\" in name or "\0" in name:
                raise ValueError(f"{name!r} is not one file name: it would write outside the result set's "
                                 f"folders in {self.root} (a row or scenario name is a safe file name)")
        if root not in path.resolve().parents:
            raise ValueError(f"{path} is outside the result set {self.root}: refused")
        return path

    def saver(self, key: str):
        """A callable saving one observation of ``key`` (``row_key``) as it ends."""
        self.inside("observations", key)

        def save(obs: dict[str, Any]) -> Path:
            path = write_json(self.inside("observations", key, observation_name(obs)), obs)
            if self.budget is not None:  # after the write: the scenario measured is kept, then the run stops
                self.budget.charge(path)
            return path
        return save

    def logs_dir(self, key: str) -> Path:
        """Where the SUT's logs of ``key`` (``row_key``) go."""
        return self.inside("logs", key)

    def write_row(self, meta: dict[str, Any], fail_on: str) -> dict[str, Any]:
        """Derive one (row, position) from its saved observations and write it."""
        path = self.inside("rows", f"{row_key(meta)}.json")
        if self._scenarios is None:  # the saved scenarios, read once for every row of the set
            self._scenarios = load_scenarios(self.root)
        row = rederive(self.root, meta, fail_on, self._scenarios)
        write_json(path, row)
        return row

    def write_manifest(self, run: dict[str, Any]) -> dict[str, Any]:
        """Digest every row and evidence file and write ``manifest.json`` (voids an old signature)."""
        return write_manifest(self.root, run)


def write_manifest(root: Path, run: dict[str, Any]) -> dict[str, Any]:
    """Digest every row and evidence file of the set at ``root`` into ``manifest.json`` (an old
    signature is removed: it no longer signs this manifest)."""
    saved = {p.name: read_json(p) for p in sorted((root / "rows").glob("*.json"))}
    rows = [{"file": f"rows/{name}", "row": row["row"], "digest": digest(row)} for name, row in saved.items()]
    manifest = read_lifecycle_manifest({
        "schema": MANIFEST_SCHEMA, "kind": "lifecycle", "lab": run.get("lab"), "run_id": run.get("run_id"),
        "canonicalization": "RFC 8785 (JCS)", "digest": "SHA-256 over the canonical encoding of each row file",
        "decision_rules": DECISION_RULES, "fail_on": run.get("fail_on"), "rows": rows,
        "evidence_digest": "SHA-256 over the bytes of each evidence file (run.json, scenarios, observations, logs)",
        "evidence": evidence(root, EVIDENCE_DIRS)}).to_json()
    (root / "manifest.sig").unlink(missing_ok=True)
    write_json(root / "manifest.json", manifest)
    return manifest


def read_scenario(path: Path) -> Scenario:
    """One saved scenario; :class:`Unreadable` naming the file when it is none (not strict JSON, or
    lacking a scenario's fields: edited, or written by another tool), never a traceback."""
    try:
        data = read_json(path)  # JSONProblem (an Unreadable) names the file
    except FileNotFoundError:  # a link to nothing (verify names it unsafe-file too)
        raise Unreadable(f"{path} cannot be read: a link to nothing, or removed while read") from None
    try:
        return Scenario.from_json(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        what = f"no {exc.args[0]!r}" if isinstance(exc, KeyError) else str(exc)
        raise Unreadable(f"{path} is not a saved scenario ({what[:200]}); it was edited or written by another "
                         "tool") from None


def load_scenarios(root: Path, problems: list[tuple[str, str]] | None = None) -> dict[str, Scenario]:
    """The scenarios saved in a set, by id. A file that is no scenario raises :class:`Unreadable`, or,
    given ``problems``, is left out and noted there as (its file relative to ``root``, what is wrong)."""
    out: dict[str, Scenario] = {}
    for path in sorted((Path(root) / "scenarios").glob("*.json")):
        try:
            scenario = read_scenario(path)
        except Unreadable as exc:
            if problems is None:
                raise
            problems.append((f"scenarios/{path.name}", str(exc).removeprefix(str(path)).lstrip(": ")))
            continue
        out[scenario.id] = scenario
    return out


def load_observations(root: Path, key: str) -> list[dict[str, Any]]:
    """The saved observations of one (row, position) (``key``: ``row_key``)."""
    return [read_json(p) for p in sorted((Path(root) / "observations" / key).glob("*.json"))]


def rederive(root: Path, meta: dict[str, Any], fail_on: str,
             scenarios: dict[str, Scenario] | None = None, schema: str = ROW_SCHEMA) -> dict[str, Any]:
    """A row derived again from the set's saved scenarios (``scenarios``: already loaded from it) and
    observations (pure), by the judge's revision its ``schema`` names (``ROW_SCHEMAS``)."""
    scenarios = load_scenarios(root) if scenarios is None else scenarios
    row = derive_row(meta, scenarios, load_observations(root, row_key(meta)), fail_on, ROW_SCHEMAS[schema])
    row = {"schema": schema, **row, "describe": meta.get("describe", {})}
    read_lifecycle_row(row)  # the shape of its schema (lab.lifecycle.row_record), else LifecycleRowShapeError
    return row


def row_meta(row: dict[str, Any]) -> dict[str, Any]:
    """What a row states about its SUT (the derivation's input besides the evidence)."""
    return {k: row.get(k) for k in ("row", "position", "sut", "adapter", "capabilities", "scope", "describe")}


def summary_json(rows: list[dict[str, Any]], run: dict[str, Any]) -> dict[str, Any]:
    """The --json summary: per (row, position) checks, accuracy, delta, gate, restarts, erasure at
    rest (``rows`` keyed ``<row>@<position>``); and the run's verdict."""
    per_row = {row_key(r): {"row": r["row"], "position": r.get("position", "live"), "status": r["status"],
                            "checks": {n: {k: c.get(k, 0) for k in SUMMARY_FIELDS} for n, c in r["checks"].items()},
                            "current_fact_accuracy": r["current_fact_accuracy"],
                            "memory_utility_delta": r["memory_utility_delta"], "gate": r["gate"],
                            "errors": r["errors"], "restarts": r.get("restarts"), "retrieval": r.get("retrieval"),
                            "erasure_at_rest": r.get("erasure_at_rest")} for r in rows}
    first = rows[0] if len(rows) == 1 else None
    status = run_status(rows)
    blocking = sorted({f"{row_key(r)}:{b}" for r in rows for b in r["gate"]["blocking"]})
    found = sum(r["gate"].get("blocking_findings", 0) for r in rows)
    out = {"schema": "memlab.lifecycle-summary/1", "status": status, "fail_on": run.get("fail_on"),
           "scenarios": run.get("scenarios"), "seeds": run.get("seeds"),
           "gate": {"status": status, "blocking": blocking, "blocking_findings": found}, "rows": per_row,
           "judge_limits": rows[0]["judge_limits"] if rows else None}
    if first:  # one row: its figures at the top, as a CI job reads them
        out.update({k: per_row[row_key(first)][k] for k in ("checks", "current_fact_accuracy", "memory_utility_delta",
                                                              "retrieval", "erasure_at_rest")})
    elif rows:  # several: every row together at the top (counts summed, the weakest status and delta)
        out.update(across_rows(list(per_row.values())))
    return out


def across_rows(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The checks, accuracy and utility delta of several rows taken together: counts summed, a check
    FAIL if it fails in any row, NOT TESTED only if tested in none, the smallest utility delta."""
    names = {n: c["severity"] for n, c in rows[0]["checks"].items()} if rows else CHECKS  # the rows' own checks
    checks = {n: {k: c[k] for k in SUMMARY_FIELDS} for n, c in combine([r["checks"] for r in rows], names).items()}
    deltas = [r["memory_utility_delta"] for r in rows]
    return {"checks": checks, "current_fact_accuracy": sum_accuracy([r["current_fact_accuracy"] for r in rows]),
            "memory_utility_delta": None if None in deltas else min(deltas),
            "retrieval": combine_retrieval([r.get("retrieval") for r in rows], names)}


def run_status(rows: list[dict[str, Any]]) -> str:
    """The run's verdict: error if any row has a harness error, else FAIL, INCONCLUSIVE, PASS."""
    statuses = {r["status"] for r in rows}
    for status in ("error", "FAIL", "INCONCLUSIVE"):
        if status in statuses:
            return status
    return "PASS" if rows else "error"
