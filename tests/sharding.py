"""Helpers for the tests of trials side by side and of sharded runs: one reference run with
``--jobs 1`` per test session, and the part of a row that must not depend on how it was run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lab.profile import load_profiles, select
from resultsets import memlab, shared_cache

NONCE = "sidebyside"
#: The row files a run of the default rows (``reference-*``) writes: one per row and detection point.
REFERENCE_ROWS = [f"{p.row}@{point}.json" for p in select(load_profiles(), ["reference-*"]) for point in p.detection_points]
#: What differs between any two runs of the same rows, however they ran: when (run id, date),
#: how long (every timing), and the statements an edit ran, which carry the record ids and
#: timestamps the SUT chose at seeding (as does the ``record`` an intended erasure names, and
#: the detail of an effect check, which quotes a served timestamp before and after T8 moved it).
VARYING = frozenset({"run_id", "date", "timings", "interval_s", "prepare_seconds", "preload_seconds", "statements"})


def comparable(data: Any, parent: str = "") -> Any:
    """``data`` without the fields in VARYING (and ``intended.record``, ``effect.detail``), at any depth."""
    if isinstance(data, dict):
        return {k: comparable(v, k) for k, v in data.items()
                if k not in VARYING and not (parent == "intended" and k == "record")
                and not (parent == "effect" and k == "detail")}
    if isinstance(data, list):
        return [comparable(v, parent) for v in data]
    return data


def outcomes(root: Path) -> dict[str, Any]:
    """A set's rows by file name, comparable."""
    return {p.name: comparable(json.loads(p.read_text())) for p in sorted((Path(root) / "rows").glob("*.json"))}


def run_set(tmp_path_factory, name: str, *args: str, env: dict[str, str] | None = None) -> Path:
    """A set written by ``memlab run --runtime local --nonce NONCE ARGS`` (exit 0 expected)."""
    out = tmp_path_factory.mktemp(name) / "rs"
    proc = memlab("run", "--runtime", "local", "--nonce", NONCE, "--no-reports", "--out", out, *args,
                  cache=shared_cache(tmp_path_factory), env=env)
    assert proc.returncode == 0, proc.stderr
    return out


def baseline(tmp_path_factory) -> Path:
    """The reference rows measured with ``--jobs 1``, once per test session."""
    out = tmp_path_factory.getbasetemp() / "baseline-jobs1" / "rs"
    if not (out / "manifest.json").is_file():
        proc = memlab("run", "--runtime", "local", "--nonce", NONCE, "--no-reports", "--jobs", "1", "--out", out,
                      cache=shared_cache(tmp_path_factory))
        assert proc.returncode == 0, proc.stderr
    return out
