"""Writing a front-door result set (layout: ``lab.frontdoor.saved``): run.json first, each row as it is
measured, run.json completed, then the manifest pinning every row and run.json.

The manifest, its digests and the signature are the result sets' own (``lab.resultset.files``,
``lab.resultset.pins``, ``lab.resultset.signing``): one canonical encoding and one way to sign for
every kind of set.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from pathlib import Path

from lab import __version__
from lab.frontdoor.fixtures import FIXTURES_VERSION
from lab.frontdoor.folder import claim_out
from lab.frontdoor.results import SCHEMA, FrontdoorResult
from lab.frontdoor.runner import StoreFactory, run_row
from lab.frontdoor.targets import Target, as_target
from lab.frontdoor.saved import (EVIDENCE, RUNTIME, LabRevision, Manifest, Pinned, PinnedRow, RowEntry, RunRecord,
                                 dumped)
from lab.resultset.evidence_budget import DEFAULT_LIMIT, EvidenceBudget
from lab.resultset.files import digest, lab_revision, read_json, write_json
from lab.resultset.pins import evidence
from lab.resultset.signing import SIGNATURE_FILE

#: A store's name is its row file's name: letters, digits, dot, dash, underscore; a row of the lab
#: ends in its position (``<row>@live``, ``<row>@restarted``).
STORE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}(?:@live|@restarted)?")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class FrontdoorSet:
    """A front-door set being written at ``root`` (locked until ``close``; ``OutRefused`` when the
    folder cannot be written); ``evidence_budget``: the bytes its rows and the SUTs' logs may take
    (lab.resultset.evidence_budget: EvidenceOverBudget past it, the rows written kept)."""

    def __init__(self, root: Path, evidence_budget: int = DEFAULT_LIMIT):
        self.root = Path(root)
        self._lock = claim_out(self.root)
        self.budget = EvidenceBudget(self.root, evidence_budget)

    def __enter__(self) -> FrontdoorSet:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._lock.close()

    def run(self, stores: Mapping[str, StoreFactory | Target], expected: Mapping[str, str] | None = None,
            progress: Callable[[FrontdoorResult], None] | None = None,
            runtime: str = RUNTIME, filler: int = 0, reword: bool = False,
            cases: Callable[[str, int, int], None] | None = None,
            settle: Callable[[], None] = lambda: None) -> tuple[RunRecord, list[FrontdoorResult]]:
        """Measure every store (name -> a fresh store from the genuine writer's public key, or a
        ``Target`` saying how a row of the lab runs), write each
        row as it is measured, and pin the set; ``expected``: the level a calibration store is built at;
        ``runtime``: where the stores ran (in-process, http, or both); ``filler``: unrelated genuine
        memories before every fixture; ``reword``: each attack also in its rewordings; ``cases(store, done,
        total)``: after each case of a row; ``settle``: stops what still writes into the set (the rows'
        SUTs, whose logs are pinned) before the manifest is written."""
        bad = [name for name in stores if not STORE_NAME.fullmatch(name)]
        if bad:
            raise ValueError(f"store name(s) {bad} cannot name a row file (letters, digits, '.', '-', '_')")
        started = datetime.now(timezone.utc)
        run = RunRecord(run_id=f"frontdoor-{started:%Y%m%dT%H%M%SZ}-{os.getpid()}", memlab=__version__,
                        lab=LabRevision(**lab_revision()), fixtures_version=FIXTURES_VERSION, row_schema=SCHEMA,
                        runtime=runtime,
                        started=started.isoformat(timespec="seconds"),
                        rows=tuple(RowEntry(store=name, file=f"rows/{name}.json",
                                            expected_level=(expected or {}).get(name)) for name in stores))
        write_json(self.root / "run.json", dumped(run))
        results = []
        for name, value in stores.items():
            target = as_target(value)
            ticks = (lambda done, total, name=name: cases(name, done, total)) if cases else None
            result = run_row(name, target.make, enforcer=target.enforcer, restart=target.restart, sut=target.sut,
                             message=target.message, prove=target.prove, filler=filler, reword=reword, on_case=ticks)
            self.budget.charge(write_json(self.root / "rows" / f"{name}.json", result.to_json()))
            results.append(result)
            if progress:
                progress(result)
        settle()
        run = run.model_copy(update={"finished": _now(), "status": "completed"})
        write_json(self.root / "run.json", dumped(run))
        write_manifest(self.root, run)
        return run, results


def write_manifest(root: Path, run: RunRecord) -> Manifest:
    """Pin every row of ``run`` (over its canonical encoding, as saved), run.json and every SUT log under
    ``logs/`` (their bytes) in ``manifest.json``; an old signature is removed (it no longer signs this
    manifest)."""
    rows = [PinnedRow(file=e.file, store=e.store, digest=digest(read_json(Path(root) / e.file))) for e in run.rows]
    manifest = Manifest(run_id=run.run_id, memlab=run.memlab, lab=run.lab, fixtures_version=run.fixtures_version,
                        row_schema=run.row_schema, rows=tuple(rows),
                        evidence=tuple(Pinned(**pin) for pin in evidence(root, EVIDENCE)))
    (Path(root) / SIGNATURE_FILE).unlink(missing_ok=True)
    write_json(Path(root) / "manifest.json", dumped(manifest))
    return manifest
