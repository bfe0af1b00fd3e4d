"""Re-measure a published integrity row and compare it with the committed result set.

A row test fails when any cell verdict (per detection point), any variant's verdict within a cell,
C1/C2, the row's position, or the SUT's installed version differs from ``results/published/<row>/``. Nothing here knows what the
verdicts should be: the committed rows are the measurement they are compared with.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from lab.cases import CASE_IDS
from lab.method.engine import run_matrix
from lab.profile import load_profiles, select
from lab.resultset.results import read_json
from lab.runtime import get_runtime
from lab.runtime.local import LocalRuntime

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = ROOT / "results" / "published"
#: One line per re-measured row (environment build, whole run), printed at the end of the session.
TIMINGS: list[str] = []


def summary(row: dict) -> dict:
    """What must not change between two measurements of a row."""
    return {"cells": {c: row["cells"][c]["verdict"] for c in CASE_IDS},
            "variants": {c: [(v["variant"], v["verdict"]) for v in row["cells"][c].get("variants") or []]
                         for c in CASE_IDS},
            "C1": row["controls"]["C1"]["ok"], "C2": row["controls"]["C2"]["ok"],
            "position": row.get("position")}


def installed_version(row: dict) -> str | None:
    """The SUT package's version as installed in the environment the row ran in."""
    packages = (row.get("runtime") or {}).get("packages") or {}
    wanted = str((row.get("sut") or {}).get("package", "")).lower().replace("_", "-")
    return next((v for k, v in packages.items() if k.lower().replace("_", "-") == wanted), None)


def published(name: str) -> dict[str, dict]:
    """The committed rows of one SUT configuration, by detection point."""
    rows = [read_json(p) for p in sorted((PUBLISHED / name / "rows").glob("*.json"))]
    assert rows, f"no published rows for {name} under {PUBLISHED / name}"
    return {r["detection_point"]: r for r in rows}


def remeasure(name: str, out: Path, runtime: str = "local") -> dict[str, dict]:
    """Run the row again (on the local runtime unless ``runtime`` names another: a row whose server
    cannot run here measures on docker); print how long the environment and the run took."""
    profiles = select(load_profiles(), [name])
    assert [p.row for p in profiles] == [name]
    started = time.monotonic()
    rows = run_matrix(profiles, LocalRuntime() if runtime == "local" else get_runtime(runtime), out, jobs=1).rows
    env = read_json(out / "observations" / name / "environment.json")
    TIMINGS.append(f"{name} ({runtime}): environment {env.get('prepare_seconds')} s, "
                   f"whole run {time.monotonic() - started:.1f} s")
    print("\n" + TIMINGS[-1])
    return {r["detection_point"]: r for r in rows}


def check_row(name: str, out: Path, runtime: str = "local") -> None:
    """Re-measure ``name`` (on ``runtime``) and assert it equals the published row, cell for cell."""
    then, now = published(name), remeasure(name, out, runtime)
    assert set(now) == set(then), f"detection points {sorted(now)} != published {sorted(then)}"
    for point, old in then.items():
        new = now[point]
        assert installed_version(new) == installed_version(old) == str(old["sut"]["version"]), \
            f"{name}@{point}: installed {installed_version(new)}, published {installed_version(old)}"
        assert summary(new) == summary(old), f"{name}@{point} differs from results/published/{name}"


def at_rest_once(name: str, out: Path) -> tuple[AssertionError | None, dict[str, dict]]:
    """:func:`check_row` into ``out`` with its failure kept, not raised (the comparison test raises
    it; the tests that look at the new rows still can), and the new rows by detection point."""
    try:
        check_row(name, out)
        failure = None
    except AssertionError as exc:
        failure = exc
    return failure, {r["detection_point"]: r for r in map(read_json, sorted((out / "rows").glob("*.json")))}


def lifecycle_once(name: str, out: Path, position: str = "both", fail_on: str = "p1",
                   codes: tuple[int, ...] = (0, 1)) -> dict[str, dict]:
    """``memlab lifecycle run --sut NAME --position POSITION --fail-on FAIL_ON`` on the local runtime into
    ``out`` (an exit code outside ``codes`` fails with its stderr), timed; the row record of each position."""
    cmd = [sys.executable, "-m", "lab.cli", "lifecycle", "run", "--sut", name, "--runtime", "local",
           "--position", position, "--fail-on", fail_on, "--out", str(out)]
    started = time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=900)
    TIMINGS.append(f"{name} (lifecycle, {position}, local): whole run {time.monotonic() - started:.1f} s")
    assert proc.returncode in codes, f"exit {proc.returncode}:\n{proc.stderr[-3000:]}"
    positions = ("live", "restarted") if position == "both" else (position,)
    return {p: json.loads((out / "rows" / f"{name}@{p}.json").read_text()) for p in positions}


def raise_failure_and_check_points(at_rest: tuple[AssertionError | None, dict[str, dict]],
                                   points: set[str] = frozenset({"read"})) -> None:
    """Raise :func:`at_rest_once`'s comparison failure, if any, and check the row's detection points
    (the read point alone where the row has no audit command)."""
    failure, rows = at_rest
    if failure is not None:
        raise failure
    assert set(rows) == set(points), sorted(rows)


def assert_every_edit_served(read: dict, cases=CASE_IDS) -> None:
    """C1 and C2 held, every case of ``cases`` ACCEPTED (served as genuine), each edit's landing proven
    by its C3 (a restore case has no edit of its own to prove)."""
    assert read["controls"]["C1"]["ok"] and read["controls"]["C2"]["ok"], read["controls"]
    for case in cases:
        cell = read["cells"][case]
        assert cell["verdict"] == "ACCEPTED", (case, cell["reason"])
        if case not in ("T9", "T10"):
            assert cell["evidence"]["c3"]["ok"], (case, cell["evidence"]["c3"]["reasons"])

