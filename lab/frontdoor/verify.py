"""Verify a front-door result set: every pinned byte, every figure and every verdict recomputed.

Checks, each failure a named ground (``lab.frontdoor.grounds``): the signature; no symlink or odd
file in the set; run.json against its pinned digest; each row against its canonical digest; nothing
missing or extra in rows/; run.json and the manifest naming the same run, lab, fixtures and rows; each
row read by the reader of the schema it names (``lab.frontdoor.rows``), its stated cells, level and
probe tallies recomputed from its verdicts (``figure-differs``), and every verdict recomputed from its
saved writes and reads (``FrontdoorResult.recheck``: ``verdict-differs``). A folder whose manifest
cannot be read raises ``Unreadable`` (the CLI exits 2).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from lab.frontdoor.grounds import FRONTDOOR_GROUNDS
from lab.frontdoor.rows import UnknownSchema, read_row
from lab.frontdoor.saved import EVIDENCE, MANIFEST_SCHEMA, Manifest, PinnedRow, RunRecord
from lab.resultset import signing
from lab.resultset.files import digest, read_json
from lab.resultset.loading import JSONProblem, Unreadable
from lab.resultset.manifest import Pins
from lab.resultset.verify import Finding, Verification, check_evidence, check_files

#: What run.json and the manifest must both say of the run.
SHARED = ("run_id", "memlab", "lab", "fixtures_version", "row_schema")


class FrontdoorVerification(Verification):
    """The outcome of verifying a front-door set (the result sets' shape, the front door's grounds)."""

    def add(self, ground: str, file: str, detail: str) -> None:
        """Record one finding (``ground`` must be one of FRONTDOOR_GROUNDS)."""
        assert ground in FRONTDOOR_GROUNDS, ground
        self.findings.append(Finding(ground, file, detail))


def _problem(exc: ValidationError) -> str:
    first = exc.errors()[0]
    return f"{'.'.join(map(str, first['loc'])) or 'the file'}: {first['msg']}"


def _manifest(root: Path) -> tuple[dict[str, Any], Manifest]:
    if not (root / "manifest.json").exists():
        raise Unreadable(f"{root}: no manifest.json: the front-door run that wrote this folder did not finish, "
                         "so nothing is pinned; run it again")
    try:
        data = read_json(root / "manifest.json")
        return data, Manifest.model_validate(data)
    except ValidationError as exc:
        raise Unreadable(f"{root}/manifest.json is no {MANIFEST_SCHEMA} manifest ({_problem(exc)}); it was edited "
                         "or written by another tool, so the set cannot be verified") from None
    except (OSError, ValueError) as exc:
        raise Unreadable(f"{root}/manifest.json cannot be read: {exc}") from None


def verify_frontdoor(root: Path, pubkey: Any = None) -> FrontdoorVerification:
    """Verify the front-door set at ``root``; ``pubkey`` pins the signer."""
    root = Path(root)
    data, manifest = _manifest(root)
    result = FrontdoorVerification(root, Pins.model_validate(data))  # its own Manifest read it first
    problems, result.signed_by = signing.check_file(root, data, pubkey)
    for ground, detail in problems:
        result.add(ground, signing.SIGNATURE_FILE, detail)
    check_files(result)
    check_evidence(result, EVIDENCE)  # run.json and the SUTs' logs, byte for byte
    run = _run(result, manifest)
    for entry in manifest.rows:
        _row(result, entry, manifest)
    listed = {e.file for e in manifest.rows}
    for path in sorted((root / "rows").iterdir()) if (root / "rows").is_dir() else []:
        if f"rows/{path.name}" not in listed:  # a stray *.tmp too
            result.add("row-extra", f"rows/{path.name}", "a row file the manifest does not list")
    if run is not None:
        _same_rows(result, run, manifest)
    return result


def _run(result: FrontdoorVerification, manifest: Manifest) -> RunRecord | None:
    """run.json read and checked against the manifest (None when it cannot be read)."""
    try:
        run = RunRecord.model_validate(read_json(result.root / "run.json"))
    except ValidationError as exc:
        result.add("run-malformed", "run.json", f"not a front-door run record: {_problem(exc)}")
        return None
    except (OSError, ValueError) as exc:
        result.add("run-malformed", "run.json", f"cannot be read: {exc}")
        return None
    for key in SHARED:
        if getattr(run, key) != getattr(manifest, key):
            result.add("run-malformed", "manifest.json", f"{key} {getattr(manifest, key)!r} differs from run.json's "
                                                         f"{getattr(run, key)!r}")
    if run.status != "completed":
        result.add("run-malformed", "run.json", f"status {run.status!r}: the run did not complete")
    return run


def _same_rows(result: FrontdoorVerification, run: RunRecord, manifest: Manifest) -> None:
    pinned = {(e.store, e.file) for e in manifest.rows}
    for entry in run.rows:
        if (entry.store, entry.file) not in pinned:
            result.add("row-missing", "run.json", f"lists store {entry.store!r} ({entry.file}), which the "
                                                  "manifest does not pin")
    for store, file in sorted(pinned - {(e.store, e.file) for e in run.rows}):
        result.add("run-malformed", "manifest.json", f"pins {file} of store {store!r}, which run.json does not list")


def _row(result: FrontdoorVerification, entry: PinnedRow, manifest: Manifest) -> None:
    file, path = entry.file, result.root / entry.file
    if file != f"rows/{entry.store}.json" or "/" in entry.store or entry.store in (".", ".."):
        result.add("row-malformed", "manifest.json", f"store {entry.store!r} is pinned at {file!r}, not at "
                                                     f"rows/{entry.store}.json")
        return
    if not path.is_file():
        result.add("row-missing", file, "listed in the manifest, absent from the set")
        return
    try:
        data = read_json(path)
    except JSONProblem as exc:
        ground = "digest-mismatch" if exc.kind == "syntax" else "row-malformed"
        result.add(ground, file, f"refused by the strict reader ({exc}), so it cannot match its digest")
        return
    result.rows += 1
    if digest(data) != entry.digest:
        result.add("digest-mismatch", file, f"canonical digest {digest(data)}, the manifest pins {entry.digest}")
    if not isinstance(data, dict) or data.get("store") != entry.store:
        result.add("row-malformed", file, f"holds store {data.get('store') if isinstance(data, dict) else None!r}, "
                                          f"the manifest pins it as {entry.store!r}")
        return
    if data.get("schema") != manifest.row_schema:
        result.add("row-malformed", file, f"schema {data.get('schema')!r}, the run's rows are {manifest.row_schema!r}")
    try:
        row, figures = read_row(data)
    except UnknownSchema as exc:
        result.add("row-malformed", file, str(exc))
        return
    except ValueError as exc:  # pydantic's ValidationError included
        detail = _problem(exc) if isinstance(exc, ValidationError) else str(exc)
        result.add("row-malformed", file, f"not a front-door row: {detail}")
        return
    for line in figures:
        result.add("figure-differs", file, line)
    for case in row.recheck():  # each case named, or the fixtures version no verdict can be rechecked by
        result.add("verdict-differs", file, case if case.startswith("fixtures version") else
                   f"{case}: its saved verdict does not follow from its saved writes and reads")
