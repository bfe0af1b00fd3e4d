"""memlab's composition beside the peer agmi's composition engine (PyPI agent-memory-integrity 0.6.3,
``python -m agmi.agent --compose``) on the SUTs both measure at rest: the same findings, or a difference
explained in docs/composition.md.

agmi runs live in the row's own venv (bench/peer_agmi.py, a few seconds per target) wherever its wheel and
the venv can be had; elsewhere its record (tests/fixtures/peer-records/agmi-compose-<target>.json;
``MEMLAB_RECORD_PEER=1`` re-records, ``MEMLAB_REQUIRE_LIVE_PEER=1`` fails without a live peer) stands in.
memlab's side is the row's published composition (results/published/<row>/compose/), itself verified by
tests/unit/test_published.py.
"""

import sys
from pathlib import Path

import pytest
from peer_records import peer_run

from lab.resultset.composition import load_rows

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from peer_agmi import AGMI, COMPOSE_TARGETS, agmi_path, compose, interpreter  # noqa: E402

pytestmark = pytest.mark.rows

HOW = (f"{AGMI} (its wheel from PyPI, no dependencies) on PYTHONPATH of the row's own venv; bench/peer_agmi.py:compose "
       "runs `python -m agmi.agent --target T --compose --max-len 2 --json` in a temporary HOME; recorded by "
       "tests/compose/test_compose_agmi.py with MEMLAB_RECORD_PEER=1")
#: target -> (agmi's findings, memlab's findings, why they differ: docs/composition.md). Every other pair is equal.
EXPECTED: dict[str, tuple[list[str], list[str], str]] = {}


def agmi_run(target: str, row: str) -> dict:
    """agmi's composition of ``target``: live where its wheel and the row's venv can be had, else its record."""
    def measure(ready: tuple) -> dict:
        agmi, python = ready
        _, data = compose(target, python, agmi)
        assert "error" not in data, data.get("error")
        return {"how": HOW, **data}
    return peer_run(f"agmi-compose-{target}", lambda: (agmi_path(), interpreter(row)), measure,
                    lambda entry: entry["findings"], "docs/composition.md")


def memlab_findings(row: str) -> list[str]:
    """The sequences memlab's published composition of ``row`` found, at any detection point."""
    rows = load_rows(ROOT / "results" / "published" / row / "compose")
    assert rows, f"{row}: no published composition"
    return sorted({"+".join(s.sequence) for r in rows for s in r.findings})


@pytest.mark.parametrize("target,row", COMPOSE_TARGETS.items())
def test_agmi_and_memlab_find_the_same_sequences(target, row):
    data = agmi_run(target, row)
    assert data["target"] == target and data["family"] == "composite"
    theirs = sorted("+".join(f["sequence"]) for f in data["findings"])
    ours = memlab_findings(row)
    agmi_want, ours_want, why = EXPECTED.get(target, (ours, ours, ""))
    assert (theirs, ours) == (agmi_want, ours_want), (
        f"{target} ({row}): agmi finds {theirs}, memlab {ours}" + (f"; expected {why}" if why else
                                                                  ": a new difference, explain it in docs/composition.md"))
