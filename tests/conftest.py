"""Fixtures shared by the lab's tests."""

import os
import shutil
import tempfile
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items):
    """Every test under tests/system is marked ``system``: with the slow tests marked so elsewhere, what the
    contributor's loop (``scripts/test --fast``) leaves out."""
    system = TESTS / "system"
    for item in items:
        if system in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.system)


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """A cache and a scratch folder of the module's own, so gc never sees another run's."""
    old = {k: os.environ.get(k) for k in ("MEMLAB_CACHE", "MEMLAB_SCRATCH")}
    os.environ["MEMLAB_CACHE"] = str(tmp_path_factory.mktemp("cache"))
    os.environ["MEMLAB_SCRATCH"] = tempfile.mkdtemp(prefix="memlab-test-scratch-")
    yield Path(os.environ["MEMLAB_CACHE"])
    shutil.rmtree(os.environ["MEMLAB_SCRATCH"], ignore_errors=True)
    for key, value in old.items():
        if value is None:
            os.environ.pop(key)
        else:
            os.environ[key] = value


@pytest.fixture
def volumes(tmp_path):
    """Fresh folders for every volume a reference row may declare."""
    out = {name: tmp_path / "volumes" / name for name in ("store", "keys", "anchor")}
    for path in out.values():
        path.mkdir(parents=True)
    return out


def pytest_terminal_summary(terminalreporter):
    """How the session compared memlab with its peers (the gate memorycheck, agmi's front door): live, or
    against their recorded outputs; and each test not run for want of memorycheck's source (README, "The
    peers")."""
    import sys

    gate = sys.modules.get("peer_gate")
    made = list(getattr(sys.modules.get("peer_records"), "COMPARISONS", {}).values())
    live, recorded = made.count("live"), made.count("recorded")
    if made:
        line = f"peer comparisons: {live} against a live peer, {recorded} against its recorded outputs"
        terminalreporter.write_line(line, yellow=bool(recorded))
    for name in getattr(gate, "WITHOUT_SOURCE", []):
        terminalreporter.write_line(f"  not run without memorycheck's source: {name}", yellow=True)
    if recorded or getattr(gate, "WITHOUT_SOURCE", []):
        terminalreporter.write_line("  to run them live: MEMLAB_MEMORYCHECK_SOURCE=<its source> bash scripts/test; "
                                    "agmi: PyPI and the rows' venvs (tests/frontdoor/test_frontdoor_agmi.py)",
                                    yellow=True)
