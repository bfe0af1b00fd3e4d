"""Helpers for tests on result sets: run the real CLI, copy a set, tamper with it and fix digests up."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

from lab.compose.results import OUTCOMES
from lab.judge.scoring import score

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT / "bench"))
from tamper_ops import repin_file, repin_row  # noqa: E402  (the tamper table's re-pinning of a manifest)


def memlab(*args: str, cache: Path, timeout: float = 300, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run ``memlab ARGS`` as a user would (a new process, with ``env`` added to the environment); a
    traceback anywhere fails the test."""
    env = {**os.environ, **(env or {}), "MEMLAB_CACHE": str(cache)}
    proc = subprocess.run([sys.executable, "-m", "lab.cli", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr
    return proc


def shared_cache(tmp_path_factory) -> Path:
    """One MEMLAB_CACHE for the whole test session (the reference venv is built once)."""
    path = tmp_path_factory.getbasetemp() / "memlab-cache"
    path.mkdir(exist_ok=True)
    return path


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    """The ``cache`` fixture of a result-set test module: the session's shared cache (see
    ``shared_cache``), in place of conftest's cache of the module's own. Import it into the module."""
    return shared_cache(tmp_path_factory)


def make_result_set(tmp_path_factory, *suts: str, extra: tuple[str, ...] = (), name: str = "set",
                    expect: int = 0) -> Path:
    """A result set written by ``memlab run`` on the local runtime with a fixed nonce."""
    out = tmp_path_factory.mktemp(name) / "rs"
    args = ["run", "--runtime", "local", "--nonce", "tests", "--out", out]
    for sut in suts or ("reference-sealed", "reference-naive"):
        args += ["--sut", sut]
    proc = memlab(*args, *extra, cache=shared_cache(tmp_path_factory))
    assert proc.returncode == expect, proc.stderr
    return out


def copy_set(src: Path, dst: Path) -> Path:
    """A copy of a result set to tamper with."""
    shutil.copytree(src, dst)
    return dst


def load(path: Path) -> Any:
    """Read a JSON file."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def sequences_by_name(row: dict) -> dict[str, dict]:
    """A compose row's sequences by their name (``T3+write``)."""
    return {"+".join(s["sequence"]): s for s in row["sequences"]}


def save(path: Path, data: Any) -> None:
    """Write a JSON file the way the lab does."""
    Path(path).write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def edit_row(root: Path, file: str, change: Callable[[dict], None], rescore: bool = False) -> None:
    """Change a row file, optionally re-score it with lab.judge.scoring, and fix its manifest digest up."""
    row = load(root / file)
    change(row)
    if rescore:
        row.update(score(row["cells"], row["evaluable"]))
    save(root / file, row)
    repin_row(root, file)


def fix_evidence_digest(root: Path, file: str) -> None:
    """Re-pin one evidence file's digest in the manifest after it was changed."""
    repin_file(root, file)


def findings_turned_held(root: Path, file: str) -> None:
    """A compose row's findings turned held, its counts recounted and its digest re-pinned: a row only
    re-derivation can tell from the one composed."""
    row = load(root / file)
    for seq in row["sequences"]:
        if seq["verdict"] == "finding":
            seq["verdict"] = "held"
    row["findings"] = []
    row["counts"] = {o: sum(s["verdict"] == o for s in row["sequences"]) for o in OUTCOMES}
    save(root / file, row)
    fix_evidence_digest(root, file)
