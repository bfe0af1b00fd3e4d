"""Helpers for the tests of trials side by side, of sharded runs and of the runtimes: the reference
rows measured once per test session (locally with ``--jobs 1``, on docker with the fork server on),
and the part of a row that must not depend on how it was run."""

from __future__ import annotations

import json
import time
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
    return session_set(tmp_path_factory, "baseline-jobs1", "--runtime", "local", "--jobs", "1")


def on_docker(tmp_path_factory) -> Path:
    """The reference rows measured on the docker runtime (fork server on), once per test session."""
    return session_set(tmp_path_factory, "reference-docker", "--runtime", "docker")


def session_set(tmp_path_factory, name: str, *args: str) -> Path:
    """``memlab run --nonce NONCE --no-reports ARGS`` (the default rows, ``reference-*``) into the session's folder
    ``name``, once per test session (a later call reuses the set); the run's seconds in ``seconds``."""
    out = tmp_path_factory.getbasetemp() / name / "rs"
    if not (out / "manifest.json").is_file():
        began = time.monotonic()
        proc = memlab("run", "--nonce", NONCE, "--no-reports", "--out", out, *args,
                      cache=shared_cache(tmp_path_factory), timeout=1800)
        assert proc.returncode == 0, proc.stderr[-3000:]
        (out.parent / "seconds").write_text(f"{time.monotonic() - began:.1f}")
    return out
