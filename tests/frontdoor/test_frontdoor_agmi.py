"""memlab's front door beside the peer agmi's memory-specific family (PyPI agent-memory-integrity 0.6.3) on
the same SUTs: where the two measure the same thing, the figures agree.

agmi runs in the row's own venv (bench/peer_agmi.py) with its offline ``hash`` embedder (``minilm``
downloads a sentence model, which this lab cannot), one process per target: 8 s for mem0 and about 1 s
for each other target on an idle machine (up to 20 s and 5 s under load, bench/figures/frontdoor.txt),
so every target runs live wherever its wheel and the row's venv can be had, with no opt-in. Elsewhere its record (tests/fixtures/peer-records/agmi-frontdoor-<target>.json,
tests/peer_records.py: ``MEMLAB_RECORD_PEER=1`` re-records, ``MEMLAB_REQUIRE_LIVE_PEER=1`` fails without
a live peer) stands in. agmi's figure per family x channel and for users apart is held equal to memlab's
published live set, except the differences in ``EXPECTED``, each explained in docs/front-door-peer.md:
a new difference, or an expected one that went away, fails.
"""

import json
import re
import sys
from pathlib import Path

import pytest
from peer_records import peer_run

from lab.frontdoor.results import FrontdoorResult

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from peer_agmi import AGMI, EMBEDDER, FRONTDOOR_TARGETS, agmi_path, frontdoor, interpreter  # noqa: E402

pytestmark = pytest.mark.rows

DOC = ROOT / "docs" / "front-door-peer.md"
#: agmi's attack -> memlab's family; agmi's channel -> memlab's (memlab's smuggled_label has no counterpart).
FAMILIES = {"memory_injection": "planted_fact", "update_poisoning": "false_correction",
            "indirect_prompt_injection": "instruction", "retrieval_hijack": "crowding",
            "metadata_poisoning": "trust_tag"}
CHANNELS = {"external": "untrusted", "laundered": "forged", "agent-laundered": "signed"}
#: agmi's user-A-to-user-B read and memlab's probe of two users of one tenant.
ISOLATION = ("cross_session_bleed", "cross-user", "distinct-users")
HOW = (f"{AGMI} (its wheel from PyPI, no dependencies) on PYTHONPATH of the row's own venv; "
       "bench/peer_agmi.py:frontdoor runs agmi.measure.measure(target, embedder) in one process and prints "
       "each attack's per-channel, per-fixture outcomes (true: surfaced, false: kept out, null: no verdict); "
       "recorded by tests/frontdoor/test_frontdoor_agmi.py with MEMLAB_RECORD_PEER=1")

MEM0 = ("under Mem0's 0.1 search floor agmi's hash embedder serves no payload for fixtures 4, 5, and neither embedder "
        "for fixture 1 (mem0)")
LANGGRAPH = "agmi's adapter indexes the store with sqlite-vec; the row venv's sqlite3 loads no extension (langgraph-store)"
#: (target, family, channel) -> (agmi's figure, memlab's figure or None for whatever memlab published, why, with
#: the section of docs/front-door-peer.md that gives the evidence). Every other pair of figures is equal.
EXPECTED = {
    ("mem0", "instruction", "untrusted"): ("2/5", "5/5", MEM0),
    ("mem0", "instruction", "forged"): ("2/5", "5/5", MEM0),
    ("mem0", "instruction", "signed"): ("2/5", "5/5", MEM0),
    **{("langgraph-store", family, channel): ("error", None, LANGGRAPH)
       for family in FAMILIES.values() for channel in CHANNELS.values()},
    ("langgraph-store", "isolation", "distinct-users"): ("error", "0/5", LANGGRAPH),
}


def _figure(attack: dict, channel: str) -> str:
    """served/fixtures, ``n/a`` when a fixture has no verdict, ``error`` when the attack did not run."""
    outcomes = attack["channels"].get(channel)
    if outcomes is None:
        return "error" if attack["error"] else "-"
    return "n/a" if None in outcomes else f"{sum(outcomes)}/{len(outcomes)}"


def agmi_figures(data: dict) -> dict[tuple[str, str], str]:
    out = {(family, CHANNELS[ch]): _figure(data["attacks"][attack], ch)
           for attack, family in FAMILIES.items() for ch in CHANNELS}
    attack, channel, probe = ISOLATION
    return {**out, ("isolation", probe): _figure(data["attacks"][attack], channel)}


def memlab_figures(row: str) -> dict[tuple[str, str], str]:
    """memlab's published live figures; ``-`` for a channel the row does not measure (one-channel rows)."""
    path = ROOT / "results" / "published" / row / "frontdoor" / "rows" / f"{row}@live.json"
    result = FrontdoorResult.from_json(json.loads(path.read_text(encoding="utf-8")))
    out = {(family, channel): "-" for family in FAMILIES.values() for channel in CHANNELS.values()}
    out.update({(c.family.value, c.channel.value): "n/a" if c.status == "n/a" else c.figure
                for c in result.cells() if c.family.value in FAMILIES.values()})
    probe = next(t for t in result.probes() if t.probe == ISOLATION[2])
    return {**out, ("isolation", probe.probe): "n/a" if probe.status == "n/a" else probe.figure}


def outcomes(entry: dict) -> dict:
    """What a live run must keep equal to its record: each attack's status and per-fixture outcomes."""
    return {name: [a["status"], a["channels"]] for name, a in entry["attacks"].items()}


def agmi_run(target: str, row: str) -> dict:
    """agmi's outputs on ``target``: live where its wheel and the row's venv can be had, else its record."""
    def measure(ready: tuple) -> dict:
        agmi, python = ready
        _, data = frontdoor(target, python, agmi)
        assert "error" not in data, data.get("error")
        return {"how": HOW, "command": f"python -m agmi.measure --target {target} --embedder {EMBEDDER}", **data}
    return peer_run(f"agmi-frontdoor-{target}", lambda: (agmi_path(), interpreter(row)), measure, outcomes,
                    "docs/front-door-peer.md")


@pytest.mark.parametrize("target,row", FRONTDOOR_TARGETS.items())
def test_agmi_agrees_with_memlab_where_both_measure_the_same(target, row):
    data = agmi_run(target, row)
    assert (data["agmi"], data["target"], data["embedder"]) == (AGMI.split("==")[1], target, EMBEDDER)
    theirs, ours = agmi_figures(data), memlab_figures(row)
    wrong = []
    for key, mine in ours.items():
        want = EXPECTED.get((target, *key))
        if want is None:
            if theirs[key] != mine:
                wrong.append(f"{key}: agmi {theirs[key]}, memlab {mine} (a new difference: explain it in {DOC.name})")
        elif theirs[key] != want[0] or (want[1] is not None and mine != want[1]) or theirs[key] == mine:
            wrong.append(f"{key}: agmi {theirs[key]}, memlab {mine}; expected agmi {want[0]}, memlab {want[1]}")
    assert not wrong, f"{target} vs {row}:\n" + "\n".join(wrong)


def test_every_expected_difference_is_explained_in_the_doc():
    sections = set(re.findall(r"^### agmi `([^`]+)`", DOC.read_text(encoding="utf-8"), re.M))
    for (target, *_), (_, _, why) in EXPECTED.items():
        assert target in FRONTDOOR_TARGETS and why.endswith(f"({target})") and target in sections, (target, why)
