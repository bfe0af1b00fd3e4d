"""The peer agmi (PyPI ``agent-memory-integrity``), fetched and run in a SUT's own venv.

One place for bench/matrix.py, bench/frontdoor.py and tests/frontdoor/test_frontdoor_agmi.py. agmi is
pure Python: its wheel is downloaded once without dependencies, unpacked under the lab's cache and put
on ``PYTHONPATH`` of the row's cached venv, so the venv is never changed. Only the standard library is
imported at the top: ``frontdoor_dump`` runs inside the SUT's venv, where memlab is not installed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

AGMI = "agent-memory-integrity==0.6.3"
BENCH = Path(__file__).resolve().parent
#: agmi's front-door target -> the memlab row measuring the same SUT configuration.
FRONTDOOR_TARGETS = {
    "mem0": "mem0-qdrant-local",
    "langgraph-store": "langgraph-store-sqlite",
    "inspeximus": "inspeximus-default",
    "inspeximus-defended": "inspeximus-trusted-read",
    "inspeximus-defended-key": "inspeximus-trusted-key",
}
#: agmi's composition (at-rest) target -> the memlab row measuring the same SUT configuration.
COMPOSE_TARGETS = {
    "langgraph-sqlite": "langgraph-sqlite",
    "llamaindex": "llamaindex-memory-sqlite",
    "openai-agents": "openai-agents-sqlite-session",
    "crewai": "crewai-ltm-lancedb",
}
#: The only embedder that runs offline (minilm downloads a sentence model).
EMBEDDER = "hash"


def agmi_path() -> Path:
    """agmi's wheel, downloaded once (no dependencies) and unpacked under the lab's cache."""
    from lab.runtime.housekeeping import cache_dir

    home = cache_dir() / "bench" / AGMI.replace("==", "-")
    if not (home / "agmi" / "check.py").is_file():
        wheels = home.with_name(home.name + ".wheel")
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(wheels), AGMI],
                       check=True)
        with zipfile.ZipFile(next(wheels.glob("*.whl"))) as wheel:
            wheel.extractall(home)
    return home


def interpreter(row: str) -> str:
    """The Python of ``row``'s SUT venv, built by the local runtime when missing."""
    from lab.profile import load_profiles, select
    from lab.runtime.local import LocalRuntime

    (profile,) = select(load_profiles(), [row])
    return LocalRuntime(fork_server=False).prepare(profile).detail["interpreter"]


def run_in_sut(python: str, agmi: Path, args: list[str], tmp: str, timeout: float = 1800,
               path: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """``python ARGS`` with agmi (and ``path``) on PYTHONPATH, HOME and TMPDIR in ``tmp``, run from it."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(agmi), *path]), "HOME": tmp, "TMPDIR": tmp}
    return subprocess.run([python, *args], env=env, cwd=tmp, capture_output=True, text=True, timeout=timeout)


def frontdoor(target: str, python: str, agmi: Path) -> tuple[float, dict]:
    """Seconds of agmi's memory-specific family on ``target`` in one process, and what it measured
    (``frontdoor_dump``'s JSON; ``{"error": ...}`` when it printed none)."""
    with tempfile.TemporaryDirectory(prefix="bench-agmi-") as tmp:
        code = f"from peer_agmi import frontdoor_dump; frontdoor_dump({target!r}, {EMBEDDER!r})"
        began = time.monotonic()
        done = run_in_sut(python, agmi, ["-c", code], tmp, path=(str(BENCH),))
        seconds = time.monotonic() - began
        lines = done.stdout.strip().splitlines()
        if done.returncode != 0 or not lines:
            return seconds, {"error": f"exit {done.returncode}: {(done.stderr or done.stdout)[-600:]}"}
        data = json.loads(lines[-1])
        return seconds, json.loads(json.dumps(data).replace(tmp, "<tmp>"))


def compose(target: str, python: str, agmi: Path, length: int = 2) -> tuple[float, dict]:
    """Seconds of agmi's composition engine on ``target`` (``python -m agmi.agent --compose``) and its JSON
    (``{"error": ...}`` when it printed none)."""
    with tempfile.TemporaryDirectory(prefix="bench-agmi-") as tmp:
        began = time.monotonic()
        done = run_in_sut(python, agmi, ["-m", "agmi.agent", "--target", target, "--compose", "--max-len",
                                         str(length), "--json"], tmp)
        seconds = time.monotonic() - began
        if done.returncode != 0 or not done.stdout.strip():
            return seconds, {"error": f"exit {done.returncode}: {(done.stderr or done.stdout)[-600:]}"}
        return seconds, json.loads(done.stdout.replace(tmp, "<tmp>"))


def frontdoor_dump(target: str, embedder: str) -> None:
    """In the SUT's venv: ``agmi.measure.measure`` on ``target``, printed as one JSON line: per attack
    its status, detail or error, and its per-channel, per-fixture outcomes (True surfaced, False kept
    out, None no verdict)."""
    from importlib.metadata import PackageNotFoundError, version

    import agmi.measure

    results, measured_on = agmi.measure.measure(target, embedder)
    try:
        agmi_version = version("agent-memory-integrity")
    except PackageNotFoundError:
        agmi_version = AGMI.split("==")[1]
    print(json.dumps({"agmi": agmi_version, "target": target, "embedder": embedder, "measured_on": measured_on,
                      "attacks": {r.attack: {"version": r.version, "status": r.status, "detail": r.detail,
                                             "error": r.error, "channels": r.channels} for r in results}}))
