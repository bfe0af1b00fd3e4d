"""What ties a result set's files together beyond their digests.

A digest pins a file; it does not say the files belong together. Here: the manifest names the
run (id, lab revision) run.json records, the run completed (a partial set is never verified as
complete: which rows and trials are missing is said), run.json lists exactly the rows the set
holds (a row removed with its manifest entry is still missing), and no file of the set is a symlink or
anything but a regular file (a set is self-contained: a symlink's target is not pinned by
the set, and a reader following it reads outside the set).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lab.cases.revisions import CURRENT, Revision
from lab.judge.derive import trials_for, trials_of
from lab.resultset.loading import JSONProblem, read_strict

if TYPE_CHECKING:
    from lab.resultset.manifest import Manifest
    from lab.resultset.run_record import RunRecord


def run_findings(manifest: Manifest, run: RunRecord | None, row_names: set[str]) -> list[tuple[str, str, str]]:
    """``(ground, file, detail)`` for each way the manifest, run.json (its record; None when absent) and the
    rows disagree on the run."""
    if run is None or not run.to_json():
        return [("run-disagrees", "run.json", "absent or an empty object: the run the rows came from is unknown")]
    out = []
    for key in ("run_id", "lab"):
        if getattr(manifest, key) != getattr(run, key):
            out.append(("run-disagrees", "manifest.json",
                        f"{key} {_short(getattr(manifest, key))} differs from run.json's {_short(getattr(run, key))}"))
    if run.status != "completed":
        out.append(("run-incomplete", "run.json", f"status {run.status!r}: the run did not complete, so "
                                                  "the set holds only what it measured (a partial set)"))
    listed = run.rows
    if listed is None:
        return out + [("run-disagrees", "run.json", "'rows' missing: the rows the run measured are unknown")]
    for name in sorted(set(listed) - row_names):
        out.append(("row-missing", "run.json", f"lists row {name!r}, but the set holds no row file of it "
                                               "(removed together with its manifest entry?)"))
    for name in sorted(row_names - set(listed)):
        out.append(("run-disagrees", "run.json", f"does not list row {name!r}, which the manifest pins"))
    return out


def expected_trials(root: Path, name: str, revision: Revision = CURRENT) -> list[str]:
    """Every trial row ``name`` holds once complete: seed, C1, C2, the revision's cases and the variant
    trials their saved base trials list (a base trial that cannot be read lists none: verify says why)."""
    folder, saved = Path(root) / "observations" / name, {}
    for trial in trials_for(revision):
        try:
            saved[trial] = read_strict(folder / f"{trial}.json")
        except (OSError, JSONProblem):
            continue
    return trials_of({t: d for t, d in saved.items() if isinstance(d, dict)}, revision)


def missing_trials(root: Path, names: set[str], revision: Revision = CURRENT) -> list[str]:
    """``<row>/<trial>`` for every trial of a row (:func:`expected_trials`) with no observation file."""
    return [f"{name}/{trial}" for name in sorted(names) for trial in expected_trials(root, name, revision)
            if not (Path(root) / "observations" / name / f"{trial}.json").is_file()]


def unsafe_files(root: Path) -> list[tuple[str, str]]:
    """``(file, detail)`` for every symlink, and every entry that is neither a folder nor a regular
    file, anywhere inside ``root`` (never followed)."""
    root, out = Path(root), []
    for folder, dirs, files in os.walk(root, followlinks=False):
        for name in sorted(dirs + files):
            path = Path(folder) / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                out.append((rel, f"a symlink (to {os.readlink(path)!r}); a result set holds only regular files"))
            elif not (path.is_dir() or path.is_file()):
                out.append((rel, "not a regular file (a fifo, socket or device)"))
    return sorted(out)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 160 else text[:157] + "..."
