"""``memlab analyze``: re-derive every row from a result set's saved observations into a new set.

For a changed classifier: the observations and logs are copied byte for byte, the
rows (a composition's compose rows too) are derived again by this lab (lab.judge.derive,
lab.compose.judge), and the new run.json
says where they came from. The source's evidence must still match its manifest (and the source
hold no symlink): a new set is derived only from observations that are what the source pinned.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from lab import METHOD_REVISION, safewrite
from lab.judge.derive import c3_disagreements, derive_rows
from lab.judge.observation import ShapeError
from lab.resultset.dumps import dump_disagreements
from lab.resultset.loading import Unreadable, load_manifest, load_run
from lab.resultset.pins import DERIVED_DIRS, EVIDENCE_DIRS
from lab.resultset.results import ResultSet, lab_revision, load_saved, write_json
from lab.resultset.run_record import run_json
from lab.resultset.verify import Verification, check_evidence, check_files


def default_out(source: Path) -> Path:
    """``<source>-analyzed-<UTC timestamp>`` beside the source."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return Path(source).parent / f"{Path(source).name}-analyzed-{stamp}"


def analyze(source: Path, out: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Write a new result set at ``out`` from ``source``'s observations; returns its run record and rows."""
    source, out = Path(source), Path(out)
    manifest = load_manifest(source)
    if manifest.method_revision != METHOD_REVISION:  # derived again, its rows would lack this lab's new cases
        raise Unreadable(f"{source} was measured under method revision {manifest.method_revision!r}, "
                         f"this lab's is {METHOD_REVISION!r}: analyze derives a set of this lab's cases only; "
                         "`memlab run` measures it again")
    pinned = Verification(source, manifest)
    check_files(pinned)
    check_evidence(pinned)
    if pinned.findings:
        lines = "; ".join(f"{f.ground} {f.file}" for f in pinned.findings[:5])
        raise Unreadable(f"{source}: the saved evidence no longer matches its manifest ({lines}); "
                         "`memlab verify` lists every difference")
    if out.exists() and any(out.iterdir()):
        raise Unreadable(f"{out} exists and is not empty; choose a new --out")
    rows_obs = sorted(p for p in (source / "observations").iterdir() if (p / "profile.json").is_file()) \
        if (source / "observations").is_dir() else []
    if not rows_obs:
        raise Unreadable(f"{source}/observations holds no row with a profile.json; nothing to analyze")
    for p in rows_obs:  # every observation of the right shape and its C3 re-derivable, before anything is written
        try:  # each trial is read as it is checked
            saved = load_saved(p)
            differ = c3_disagreements(saved) + dump_disagreements(saved)
            derive_rows(saved, {})  # a row of another shape is refused here, before anything is written
        except ShapeError as exc:
            raise Unreadable(f"{source}: {exc}; this lab cannot derive rows from it") from None
        if differ:
            raise Unreadable(f"{source}: observations/{p.name}/{differ[0][0]}.json: {differ[0][1]}; a row derived "
                             "from it would not verify (`memlab verify` lists every difference)")
    old = load_run(source)
    results = ResultSet(out)  # this analyze alone writes ``out`` (lab.resultset.lock)
    for folder in (f for f in EVIDENCE_DIRS if f not in DERIVED_DIRS):  # a composition's rows are derived again
        if (source / folder).is_dir():
            safewrite.copy_tree(source / folder, out / folder)
    run = {"run_id": old.run_id or manifest.run_id, "started": old.started, "finished": old.finished,
           "status": old.status, "runtime": old.runtime,
           "method_revision": METHOD_REVISION, "lab": lab_revision(), "rows": [p.name for p in rows_obs],
           **({"compose": old.compose} if old.compose else {}),
           "analyzed": datetime.now(timezone.utc).isoformat(timespec="seconds"),
           "analyzed_from": {"path": str(source), "run_id": old.run_id, "lab": manifest.lab,
                             "manifest_digest": manifest.sha256()}}
    write_json(out / "run.json", run_json(run))
    rows = [r for p in rows_obs for r in results.write_rows(p.name, run)]
    results.write_manifest(run)
    return run, rows
