"""``memlab verify``: recompute a result set from its pinned bytes and name every rejection ground.

Checks, in order: the manifest's method revision and decision rules; the signature (``manifest.sig``,
and the key ``--pubkey`` pins); every row file against its digest; rows missing or extra; every evidence
file (run.json, observations, logs) against its digest; an independent recount of each row's score
(lab.resultset.recount, not lab.judge.scoring); the re-derivation of each row (cells, controls, profile
facts) from its saved observations with the lab's classifier (lab.judge.derive over
lab.resultset.results.load_saved), with the run's id, lab and date taken from run.json's record
(evidence), never from the row; the manifest and run.json agreeing on the run and its rows; C3 re-run
on each observation's saved evidence (lab.judge.derive.c3_disagreements), every case's store dump taken
from one seeded store (lab.resultset.dumps); no symlink in the set. Every JSON file is read strictly
(lab.resultset.loading.read_strict). A set that cannot be read at all raises
``lab.resultset.loading.Unreadable``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from lab.cases.revisions import REVISIONS, Revision, revision_of, revision_stated
from lab.judge.derive import c3_disagreements, derive_rows
from lab.judge.observation import ShapeError
from lab.resultset import recount as recounting
from lab.resultset import signing
from lab.resultset.coherence import missing_trials, run_findings, unsafe_files
from lab.resultset.differences import row_differences
from lab.resultset.dumps import dump_disagreements
from lab.resultset.grounds import GROUNDS
from lab.resultset.loading import JSONProblem, load_manifest, read_strict
from lab.resultset.manifest import Pins
from lab.resultset.pins import EVIDENCE_DIRS, EVIDENCE_TOP, evidence_files, file_digest, unpinned
from lab.resultset.results import digest, load_saved
from lab.resultset.run_record import RunRecord, RunShapeError, read_run
from lab.judge.row import problem_of

#: Method revisions this verifier knows the rules of: every revision a set may have been written under.
KNOWN_METHOD_REVISIONS = tuple(REVISIONS)


@dataclass(frozen=True)
class Finding:
    """One rejection ground found: its stable name, the file concerned, and what was found."""

    ground: str
    file: str
    detail: str


@dataclass
class Verification:
    """The outcome of verifying one result set."""

    root: Path
    manifest: Pins  # an at-rest set's Manifest; a lifecycle or front-door set's manifest read by its pins
    findings: list[Finding] = field(default_factory=list)
    rows: int = 0
    evidence: int = 0
    signed_by: str | None = None

    @property
    def ok(self) -> bool:
        """True when no rejection ground was found."""
        return not self.findings

    def add(self, ground: str, file: str, detail: str) -> None:
        """Record one finding (``ground`` must be one of GROUNDS)."""
        assert ground in GROUNDS, ground
        self.findings.append(Finding(ground, file, detail))

    @property
    def revision(self) -> Revision:
        """The set's method revision (its cases); this lab's where it names none known (a finding of its own)."""
        return revision_stated(getattr(self.manifest, "method_revision", None))  # only an at-rest set names one

    @property
    def unpinned(self) -> list[str]:
        """The set's files the manifest does not pin (renderings, anything added): verified by nothing."""
        return unpinned(self.root, self.manifest)

    def to_json(self) -> dict[str, Any]:
        """A machine-readable summary."""
        return {"result_set": str(self.root), "verified": self.ok, "rows": self.rows, "evidence": self.evidence,
                "signed_by": self.signed_by, "findings": [f.__dict__ for f in self.findings],
                "unpinned": self.unpinned}


def verify(root: Path, pubkey: Any = None) -> Verification:
    """Verify the result set at ``root``; ``pubkey`` (an Ed25519 public key) pins the signer."""
    root = Path(root)
    result = Verification(root, load_manifest(root))
    _check_header(result)
    _check_signature(result, pubkey)
    check_files(result)
    rows = _check_row_files(result)
    check_evidence(result)
    run = _check_run(result, rows)
    for file, row in rows:
        _check_row(result, file, row, run)
    names = {row["row"] for _, row in rows}
    for name in sorted(names):
        _check_c3(result, name)
    from lab.resultset.composition import problems as compose_problems
    for ground, file, detail in compose_problems(root, run.to_json(), names):
        result.add(ground, file, detail)
    return result


def _check_header(result: Verification) -> None:
    revision = result.manifest.method_revision
    if revision not in KNOWN_METHOD_REVISIONS:
        result.add("unknown-method-revision", "manifest.json",
                   f"method revision {revision!r}; this verifier knows {', '.join(KNOWN_METHOD_REVISIONS)}")
    differ = recounting.rules_differ(result.manifest.decision_rules)
    if differ:
        result.add("unknown-decision-rules", "manifest.json",
                   f"rule(s) {', '.join(differ)} differ from the rules the recount implements "
                   "(lab.resultset.recount.RULES)")


def _check_signature(result: Verification, pubkey: Any) -> None:
    problems, result.signed_by = signing.check_file(result.root, result.manifest.to_json(), pubkey)
    for ground, detail in problems:
        result.add(ground, signing.SIGNATURE_FILE, detail)


def _safe(root: Path, name: Any, folder: str | None = None) -> Path | None:
    """``root/name`` when ``name`` is a plain relative POSIX path inside the set (and inside ``folder``),
    written one way only (``a//b`` or ``a/b/`` would name a listed file a second time)."""
    if not isinstance(name, str) or not name or "\\" in name or PurePosixPath(name).as_posix() != name:
        return None
    parts = PurePosixPath(name).parts
    if PurePosixPath(name).is_absolute() or ".." in parts or "." in parts:
        return None
    if folder is not None and (len(parts) != 2 or parts[0] != folder):
        return None
    return root.joinpath(*parts)


def _check_row_files(result: Verification) -> list[tuple[str, dict[str, Any]]]:
    """Digest every listed row file; returns the parsed rows that match their digest's file."""
    root, seen, rows = result.root, set(), []
    for entry in result.manifest.rows:
        file = entry.get("file") if isinstance(entry, dict) else None
        path = _safe(root, file, "rows")
        if path is None or not isinstance(entry.get("digest"), str) or file in seen:
            why = "listed twice" if file in seen else "needs a file rows/<name>.json and a digest"
            result.add("row-malformed", "manifest.json", f"row entry {entry!r}: {why}")
            continue
        seen.add(file)
        if not path.is_file():
            result.add("row-missing", file, "listed in the manifest, absent from the result set")
            continue
        try:
            row = read_strict(path)
        except JSONProblem as exc:
            if exc.kind == "syntax":
                result.add("digest-mismatch", file, f"not valid JSON any more ({exc}), so it cannot match its digest")
            else:
                result.add("row-malformed", file, f"refused by the strict reader: {exc}")
            continue
        actual = digest(row)
        if actual != entry["digest"]:
            result.add("digest-mismatch", file, f"canonical digest {actual}, manifest pins {entry['digest']}")
        if _row_shape(result, file, entry, row):
            rows.append((file, row))
    result.rows = len(rows)
    listed = {e.get("file") for e in result.manifest.rows if isinstance(e, dict)}
    folder = root / "rows"
    for path in sorted(folder.iterdir()) if folder.is_dir() else []:
        name = f"rows/{path.name}"
        if name not in listed:
            result.add("row-extra", name, "in rows/ but not listed in the manifest"
                       + (" (a temporary file: a write was interrupted, or it was added)"
                          if path.name.endswith(".tmp") else ""))
    return rows


def _row_shape(result: Verification, file: str, entry: dict[str, Any], row: Any) -> bool:
    stated = row.get("method_revision") if isinstance(row, dict) else None
    if stated is not None and stated != result.manifest.method_revision:
        result.add("unknown-method-revision", file, f"row states method revision {stated!r}, "
                                                    f"the manifest {result.manifest.method_revision!r}")
        if revision_of(stated) is None:  # its cases are unknown: the row cannot be read further
            return False
    problem = problem_of(row)
    if problem:
        result.add("row-malformed", file, f"not a memlab row: {problem}")
        return False
    name, point = row["row"], row.get("detection_point")
    if file != f"rows/{name}@{point}.json" or "/" in name or name in ("", ".", ".."):
        result.add("row-malformed", file, f"holds row {name!r} at point {point!r}; its file name says otherwise")
        return False
    if (entry.get("row"), entry.get("detection_point")) != (name, point):
        result.add("row-malformed", "manifest.json",
                   f"entry for {file} names {entry.get('row')}@{entry.get('detection_point')}, the file {name}@{point}")
    if stated is None:
        result.add("unknown-method-revision", file, f"row states no method revision, "
                                                    f"the manifest {result.manifest.method_revision!r}")
    return True


def check_evidence(result: Verification, folders: tuple[str, ...] = EVIDENCE_DIRS) -> None:
    """Digest every evidence file the manifest lists; note missing and unlisted ones (evidence is
    run.json and every file under ``folders``)."""
    root, listed = result.root, set()
    for entry in result.manifest.evidence:
        file = entry.get("file") if isinstance(entry, dict) else None
        path = _safe(root, file)
        evidence_place = path is not None and (file in EVIDENCE_TOP or file.split("/", 1)[0] in folders)
        if not evidence_place or not isinstance(entry.get("digest"), str) or file in listed:
            why = ("listed twice (one file, one entry)" if file in listed else "needs a relative file and a digest"
                   if path is None or evidence_place else "is no evidence file (run.json, or a file under "
                   + ", ".join(f"{f}/" for f in folders) + ")")
            result.add("row-malformed", "manifest.json", f"evidence entry {entry!r}: {why}")
            continue
        listed.add(file)
        if not path.is_file():
            result.add("evidence-missing", file, "listed in the manifest, absent from the result set")
        elif (actual := file_digest(path)) != entry["digest"]:
            result.add("digest-mismatch", file, f"file digest {actual}, manifest pins {entry['digest']}")
    for file in evidence_files(root, folders):
        if file not in listed:
            result.add("evidence-extra", file, "an evidence file the manifest does not list")
    result.evidence = len(listed)


def check_files(result: Verification) -> None:
    """Every symlink or non-regular file inside the set is a finding (``unsafe-file``)."""
    for file, detail in unsafe_files(result.root):
        result.add("unsafe-file", file, detail)


def _check_run(result: Verification, rows: list[tuple[str, dict[str, Any]]]) -> RunRecord:
    """The manifest, run.json and the rows agree on the run; returns run.json's record (empty: none read)."""
    path = result.root / "run.json"
    try:
        run = read_run(read_strict(path)) if path.is_file() and not path.is_symlink() else None
    except (JSONProblem, RunShapeError) as exc:
        said = "cannot be read" if isinstance(exc, JSONProblem) else "not an at-rest run record"
        result.add("run-disagrees", "run.json", f"{said}: {exc}")
        return RunRecord()
    names = {row["row"] for _, row in rows} | {e.get("row") for e in result.manifest.rows
                                               if isinstance(e, dict) and isinstance(e.get("row"), str)}
    for ground, file, detail in run_findings(result.manifest, run, names):
        if ground == "run-incomplete":
            missing = missing_trials(result.root, names, result.revision)
            detail += f"; trials without an observation: {', '.join(missing[:20]) or 'none'}"
            detail += f" (+{len(missing) - 20} more)" if len(missing) > 20 else ""
        result.add(ground, file, detail)
    return run or RunRecord()


def _check_row(result: Verification, file: str, row: dict[str, Any], run: RunRecord) -> None:
    try:
        for line in recounting.differences(row):
            result.add("recount-differs", file, line)
    except ValueError as exc:
        result.add("row-malformed", file, f"cannot be recounted: {exc}")
    _check_derivation(result, file, row, run)


def _check_derivation(result: Verification, file: str, row: dict[str, Any], run: RunRecord) -> None:
    obs_dir = result.root / "observations" / row["row"]
    if not obs_dir.is_dir():
        result.add("verdict-not-derivable", file, f"observations/{row['row']} is missing: no cell can be re-derived")
        return
    facts = {"lab": run.lab, "run_id": run.run_id, "started": run.started}  # run.json's, not the row's
    try:
        derived = derive_rows(load_saved(obs_dir, result.revision), facts)
    except JSONProblem as exc:
        result.add("verdict-not-derivable", file, f"an observation is refused by the strict reader: {exc}")
        return
    except ShapeError as exc:
        result.add("verdict-not-derivable", file, f"an observation has the wrong shape: {exc}")
        return
    except Exception as exc:  # untrusted files fed to the classifier: any failure is a finding, not a crash
        result.add("verdict-not-derivable", file,
                   f"the classifier cannot read observations/{row['row']}: {type(exc).__name__}: {exc}")
        return
    again = next((r for r in derived if r.get("detection_point") == row["detection_point"]), None)
    if again is None:
        result.add("row-not-derivable", file,
                   f"observations/{row['row']}/profile.json has no detection point {row['detection_point']!r}")
        return
    for ground, detail in row_differences(row, json.loads(json.dumps(again, default=str))):  # as stored
        result.add(ground, file, detail)


def _check_c3(result: Verification, name: str) -> None:
    """C3 re-run on each observation's saved evidence must give the C3 result the observation states."""
    try:  # each trial is read as it is checked
        saved = load_saved(result.root / "observations" / name, result.revision)
        differ = c3_disagreements(saved) + dump_disagreements(saved)
    except Exception:  # unreadable observations are already a verdict-not-derivable finding
        return
    for cid, detail in differ:
        result.add("c3-not-derivable", f"observations/{name}/{cid}.json", detail)
