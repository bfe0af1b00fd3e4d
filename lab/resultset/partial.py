"""A partial result set: a run that did not complete (killed, interrupted) holds only what it measured.

``verify`` never calls such a set complete: :func:`partial` says which rows have no row file and
which trials no observation, whether a manifest pins what is there, and how to complete it
(``memlab run --resume DIR``). The CLI exits 3 for a partial set whose pinned part holds (docs/results.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lab.cases.revisions import revision_stated
from lab.resultset.coherence import expected_trials, missing_trials
from lab.resultset.loading import JSONProblem, read_strict
from lab.resultset.run_record import RunShapeError, read_run


@dataclass
class Partial:
    """What a run that did not complete left: its status, what is missing, what is saved."""

    root: Path
    status: str
    rows: list[str]
    rows_without_file: list[str] = field(default_factory=list)
    trials_missing: list[str] = field(default_factory=list)
    trials_saved: int = 0
    pinned: bool = False
    trials_expected: int = 0
    resume: str = ""  # the command that completes it (default: memlab run --resume ROOT)

    def lines(self) -> list[str]:
        """What to print, one fact a line."""
        total = self.trials_expected
        out = [f"status {self.status!r}: the run did not complete; {self.trials_saved} of {total} trial(s) of "
               f"{len(self.rows)} row(s) saved",
               "rows without a row file: " + (", ".join(self.rows_without_file) or "none"),
               "trials without an observation: " + (", ".join(self.trials_missing) or "none")]
        out.append("a manifest pins what was measured, and it verifies" if self.pinned
                   else "no manifest.json: nothing is pinned yet" + (" (the run was killed while writing it, or "
                                                                     "it was removed)" if self.status == "completed"
                                                                     else ""))
        out.append(f"complete it with `{self.resume or f'memlab run --resume {self.root}'}` (after `memlab gc`)")
        return out

    def to_json(self) -> dict[str, Any]:
        """A machine-readable summary (``memlab verify --json``)."""
        return {"result_set": str(self.root), "verified": False, "partial": True, "status": self.status,
                "rows": self.rows, "rows_without_file": self.rows_without_file,
                "trials_missing": self.trials_missing, "trials_saved": self.trials_saved, "pinned": self.pinned}


def partial(root: Path) -> Partial | None:
    """The partial set at ``root``, or None when its run completed and its manifest was written (or it
    holds no at-rest run record: none, another kind's, or one of another shape, which verify names)."""
    root = Path(root)
    try:
        run = read_run(read_strict(root / "run.json"))
    except (OSError, JSONProblem, RunShapeError):
        return None
    if run.status == "completed" and (root / "manifest.json").is_file():
        return None  # killed after run.json said completed but before the manifest: still partial
    rows = run.rows
    if rows is None or any("/" in name for name in rows):
        return None
    revision = revision_stated(run.method_revision)
    missing = missing_trials(root, set(rows), revision)
    expected = sum(len(expected_trials(root, name, revision)) for name in set(rows))
    have = {f.name.split("@", 1)[0] for f in (root / "rows").glob("*.json")} if (root / "rows").is_dir() else set()
    return Partial(root, str(run.status), sorted(rows), sorted(set(rows) - have), missing,
                   expected - len(missing), (root / "manifest.json").is_file(), expected)
