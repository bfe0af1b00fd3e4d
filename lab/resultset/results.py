"""The result set on disk: raw observations as they happen, rows derived from them,
each row pinned by a SHA-256 digest over its RFC 8785 canonical encoding, and a
manifest of those digests.

Layout of a result set::

    run.json                          run id, dates, status, lab version and commit, runtime
    manifest.json                     every row's digest, every evidence file's digest, decision rules,
                                      method revision, lab release and commit
    manifest.sig                      optional Ed25519 signature of the manifest (lab.resultset.signing)
    run.lock                          held by the run writing the set (lab.resultset.lock); not evidence
    seeded/<row>/<volume>/            a running row's seeded volumes, kept until it ends (lab.method.resume)
    rows/<row>@<point>.json           one row per SUT configuration and detection point
    observations/<row>/<trial>.json   raw observations: seed, C1, C2, T1..T10, profile, environment
    observations/<row>/dumps/         the store dumps they refer to, each once (lab.resultset.stored_dumps)
    logs/<row>/<trial>-<n>.log        the SUT's log (stderr) of every start
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lab import METHOD_REVISION, moments
from lab.judge.derive import derive_rows
from lab.judge.scoring import DECISION_RULES
from lab.resultset.files import canonical, digest, lab_revision, read_json, write_json  # noqa: F401 (this module's API too)
from lab.resultset.manifest import MANIFEST_SCHEMA, Manifest
from lab.resultset.lock import claim
from lab.resultset.pins import evidence
from lab.resultset.saved import load_saved  # noqa: F401 (this module's API too)
from lab.resultset.evidence_budget import EvidenceBudget
from lab.resultset.stored_dumps import dump_files, stored


class ResultSet:
    """A result-set folder being written, by this run alone (``lab.resultset.lock``: a second run on
    the same folder, or a folder that already holds a set, is refused with ``OutRefused``)."""

    def __init__(self, root: Path, resume: bool = False):
        self.root = Path(root)
        self._lock = claim(self.root, resume)  # held while this object lives: the whole run
        #: What the run may write (lab.resultset.evidence_budget); None: no bound (a merge, an analysis).
        self.budget: EvidenceBudget | None = None

    def close(self) -> None:
        """Release the folder (the lock also ends with the process)."""
        self._lock.close()

    def observation_dir(self, row: str) -> Path:
        """Where a row's raw observations go."""
        return self.root / "observations" / row

    def saver(self, row: str):
        """A callable ``save(trial, data)`` writing one observation file of ``row``."""
        def save(trial: str, data: dict[str, Any]) -> Path:
            folder = self.observation_dir(row)
            saved = stored(folder, data)  # each store dump once
            path = write_json(folder / f"{trial}.json", saved)
            moments.reach("saved", row, trial)
            if self.budget is not None:  # after the write: a trial measured is kept, then the run stops
                self.budget.charge(path, *dump_files(folder, saved))
            return path
        return save

    def write_rows(self, row: str, run: dict[str, Any]) -> list[dict[str, Any]]:
        """Derive the rows of one SUT configuration from its saved observations and write them."""
        rows = assemble_rows(self.observation_dir(row), run)
        for r in rows:
            write_json(self.root / "rows" / f"{r['row']}@{r['detection_point']}.json", r)
            moments.reach("rows", r["row"], r["detection_point"])
        if run.get("compose"):  # memlab compose: the row's compose rows beside
            from lab.resultset.composition import write_rows as write_compose_rows
            write_compose_rows(self.root, self.observation_dir(row), run)
        return rows

    def write_manifest(self, run: dict[str, Any]) -> dict[str, Any]:
        """Digest every row file and write ``manifest.json``."""
        entries = []
        for path in sorted((self.root / "rows").glob("*.json")):
            row = read_json(path)
            entries.append({"file": f"rows/{path.name}", "row": row["row"],
                            "detection_point": row["detection_point"], "digest": digest(row)})
        manifest = Manifest.model_validate({
            "schema": MANIFEST_SCHEMA, "method_revision": METHOD_REVISION,
            "lab": run.get("lab"), "run_id": run.get("run_id"), "canonicalization": "RFC 8785 (JCS)",
            "digest": "SHA-256 over the canonical encoding of each row file",
            "decision_rules": DECISION_RULES, "rows": entries,
            "evidence_digest": "SHA-256 over the bytes of each evidence file (run.json, observations, logs)",
            "evidence": evidence(self.root)}).to_json()
        moments.reach("manifest")
        (self.root / "manifest.sig").unlink(missing_ok=True)  # a signature over the old manifest is void
        write_json(self.root / "manifest.json", manifest)
        return manifest


def assemble_rows(obs_dir: Path, run: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows (one per detection point) from a row's observation folder: load it, derive them
    (:func:`lab.judge.derive.derive_rows`, a pure re-derivation)."""
    return derive_rows(load_saved(obs_dir), run)
