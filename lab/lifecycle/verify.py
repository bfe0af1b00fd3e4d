"""Verify a lifecycle result set: recompute every row from its pinned evidence.

Checks, each failure a named ground: the manifest's digests (rows over RFC 8785, evidence byte
for byte), nothing extra or missing, the signature, and every row re-derived from the saved
scenarios and answers (the ledger replayed, every query judged again, the counts and the gate
recomputed, the restarts and the erasure-at-rest summary summed again from the saved scans)
equal to the row as stated. What the row says about its SUT comes from run.json (evidence),
never from the row itself; each (row, position) is matched to its own meta by ``row_key``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lab.lifecycle.checks import FAIL_ON
from lab.lifecycle.grounds import LIFECYCLE_GROUNDS
from lab.lifecycle.manifest_record import LifecycleManifestShapeError, read_lifecycle_manifest
from lab.lifecycle.row_record import LifecycleRowShapeError, read_lifecycle_row
from lab.lifecycle.run_record import LifecycleRun, LifecycleRunShapeError, read_lifecycle_run
from lab.lifecycle.results import EVIDENCE_DIRS, MANIFEST_SCHEMA, ROW_SCHEMAS, load_scenarios, rederive, row_key
from lab.resultset import signing
from lab.resultset.loading import JSONProblem, Unreadable
from lab.resultset.files import digest, read_json
from lab.resultset.verify import Finding, Verification, check_evidence, check_files


class LifecycleVerification(Verification):
    """The outcome of verifying a lifecycle set (the at-rest shape, lifecycle grounds)."""

    def add(self, ground: str, file: str, detail: str) -> None:
        """Record one finding (``ground`` must be one of LIFECYCLE_GROUNDS)."""
        assert ground in LIFECYCLE_GROUNDS, ground
        self.findings.append(Finding(ground, file, detail))


def is_lifecycle(root: Path) -> bool:
    """Whether ``root`` holds a lifecycle result set (by its manifest's schema)."""
    try:
        return read_json(Path(root) / "manifest.json").get("schema") == MANIFEST_SCHEMA  # strict: never a traceback
    except (OSError, ValueError, AttributeError):
        return False


def verify_lifecycle(root: Path, pubkey: Any = None) -> LifecycleVerification:
    """Verify the lifecycle set at ``root``; ``pubkey`` pins the signer."""
    root = Path(root)
    try:
        data = read_json(root / "manifest.json")
        run = read_json(root / "run.json")
    except (OSError, ValueError) as exc:
        raise Unreadable(f"{root}: manifest.json or run.json cannot be read: {exc}") from None
    try:
        manifest = read_lifecycle_manifest(data)
    except LifecycleManifestShapeError as exc:
        raise Unreadable(f"{root}/manifest.json: {exc}; it was edited or written by another tool, so the set "
                         "cannot be verified") from None
    result = LifecycleVerification(root, manifest)
    _signature(result, pubkey)
    check_files(result)
    check_evidence(result, EVIDENCE_DIRS)
    record = _run(result, run)
    metas = {row_key(m.to_json()): m.to_json() for m in record.rows or []} if record and record.kind == "lifecycle" \
        else {}
    if record and not metas:
        result.add("run-malformed", "run.json", "no kind: lifecycle with a list of rows and their SUT facts")
    for key in ("run_id", "lab", "fail_on") if record else ():  # run.json is pinned evidence; the manifest
        if getattr(manifest, key) != getattr(record, key):  # must name its run
            result.add("run-malformed", "manifest.json", f"{key} {getattr(manifest, key)!r} differs from run.json's "
                                                         f"{getattr(record, key)!r}")
    unread: list[tuple[str, str]] = []
    listed, scenarios = set(), load_scenarios(root, unread)
    for file, detail in unread:  # no traceback, and no row derived from it
        result.add("row-not-derivable", file, f"{detail}: no row is derived from it")
    fail_on = record.fail_on if record and "fail_on" in record.model_fields_set else "p1"
    if fail_on not in FAIL_ON:
        result.add("run-malformed", "run.json", f"fail_on {fail_on!r} is none of {', '.join(sorted(FAIL_ON))}: "
                                                "no row is re-derived")
        metas = {}  # each row then named row-malformed, never a traceback
    for entry in manifest.rows:
        listed.add(entry.get("file"))
        _row(result, entry, metas, fail_on, scenarios)
    for path in sorted((root / "rows").iterdir()) if (root / "rows").is_dir() else []:
        if f"rows/{path.name}" not in listed:  # a stray *.tmp too
            result.add("row-extra", f"rows/{path.name}", "a row file the manifest does not list")
    return result


def _run(result: LifecycleVerification, run: Any) -> LifecycleRun | None:
    """run.json (parsed) read by its record; None, named ``run-malformed``, when it is none."""
    try:
        return read_lifecycle_run(run)
    except LifecycleRunShapeError as exc:
        result.add("run-malformed", "run.json", f"not a lifecycle run record: {exc}")
        return None


def _row(result: LifecycleVerification, entry: dict[str, Any], metas: dict[str, Any], fail_on: str,
         scenarios: dict[str, Any]) -> None:
    file = str(entry.get("file"))
    path = result.root / file
    if not file.startswith("rows/") or ".." in file or not path.is_file():
        result.add("row-missing", file, "listed in the manifest, absent from the set")
        return
    try:
        row = read_json(path)
    except JSONProblem as exc:
        result.add("row-malformed", file, f"refused by the strict reader: {exc}")
        return
    result.rows += 1
    if digest(row) != entry.get("digest"):
        result.add("digest-mismatch", file, f"digest {digest(row)} differs from the manifest's {entry.get('digest')}")
    meta = metas.get(row_key(row)) if row.get("row") else None
    if meta is None:
        result.add("row-malformed", file, f"row {row.get('row')!r} at position {row.get('position')!r} "
                                          "is not among run.json's rows")
        return
    if file != f"rows/{row_key(row)}.json":
        result.add("row-malformed", file, f"holds {row_key(row)}, so its file is rows/{row_key(row)}.json")
    schema = row.get("schema")
    if schema not in ROW_SCHEMAS:
        result.add("row-malformed", file, f"schema {schema!r} is not one this memlab reads ({', '.join(ROW_SCHEMAS)}); "
                                          "a newer memlab wrote it: verify it with that one")
        return
    try:
        read_lifecycle_row(row)
    except LifecycleRowShapeError as exc:  # named, and still re-derived: what differs is named too
        result.add("row-malformed", file, f"not a row of its schema {schema}: {exc}")
    try:
        again = rederive(result.root, meta, fail_on, scenarios, schema)
    except LifecycleRowShapeError as exc:  # run.json's facts of the row (its ``describe``) were changed
        result.add("row-not-derivable", file, f"re-derived from the saved answers, it is no row: {exc}")
        return
    if digest(again) != digest(row):
        differ = sorted(k for k in set(again) | set(row) if again.get(k) != row.get(k))
        result.add("row-not-derivable", file, f"re-derived from the saved answers, it differs in {', '.join(differ)}")


def _signature(result: LifecycleVerification, pubkey: Any) -> None:
    problems, result.signed_by = signing.check_file(result.root, result.manifest.to_json(), pubkey)
    for ground, detail in problems:
        result.add(ground, signing.SIGNATURE_FILE, detail)
