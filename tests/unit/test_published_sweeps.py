"""The published sweeps (results/sweeps/, issue 27) verify, and docs/regressions.md says what they hold.

Each sweep's record is checked against its sets (lab.sweep.summary.check_sweep: every set verifies,
and the cells, variants and changes of sweep.json are those the sets give), its summary.md is the one
the record renders, the release it pins at the row's own version lines up with the row's published set
cell for cell, and docs/regressions.md names every cell that changed in it with the release where it
changed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lab.sweep.lineup import ABSENT, changes, differing, set_cells
from lab.sweep.summary import check_sweep, load, markdown

ROOT = Path(__file__).resolve().parents[2]
SWEEPS = ROOT / "results" / "sweeps"
PUBLISHED = ROOT / "results" / "published"
REGRESSIONS = ROOT / "docs" / "regressions.md"
#: The sweeps issue 27 asks for: row -> (first release, last release).
ASKED = {"memory-blackbox-md+restart": ("0.1.0", "0.1.1"), "inspeximus-default": ("3.0.0", "3.23.1"),
         "mem0-qdrant-local": ("2.0.20", "2.2.1"), "langgraph-sqlite": ("3.1.1", "3.1.2"),
         "atmem-chain": ("2.3.8", "2.3.10"), "memory-blackbox-md+restart+anchor-off": ("0.1.0", "0.1.1")}
#: memory-blackbox's restart fix (0.1.1: a file's baseline is the ledger's last write, not the file as found).
RESTART_FIX = "memory-blackbox-md+restart+anchor-off"


def sweeps() -> list[Path]:
    return sorted(p for p in SWEEPS.iterdir() if (p / "sweep.json").is_file())


def test_the_sweeps_the_issue_asks_for_are_published():
    found = {p.name: load(p) for p in sweeps()}
    assert set(ASKED) <= set(found), f"missing sweeps: {sorted(set(ASKED) - set(found))}"
    for row, (first, last) in ASKED.items():
        versions = [r["version"] for r in found[row]["releases"]]
        assert (versions[0], versions[-1]) == (first, last), (row, versions)
        assert found[row]["status"] == "completed", row
    assert load(SWEEPS / "inspeximus-default")["selection"]["bisect"] is True


@pytest.mark.parametrize("folder", sweeps(), ids=lambda p: p.name)
def test_a_published_sweep_verifies(folder: Path):
    assert check_sweep(folder) == []
    doc = load(folder)
    assert (folder / "summary.md").read_text(encoding="utf-8") == markdown(doc)


@pytest.mark.parametrize("folder", sweeps(), ids=lambda p: p.name)
def test_the_pinned_release_measures_as_the_published_row(folder: Path):
    doc = load(folder)
    if doc["pinned"] not in doc["cells"] or not (PUBLISHED / doc["row"]).is_dir():
        pytest.fail(f"{folder.name}: the sweep measures no release the row pins, or the row has no published set")
    assert differing(set_cells(PUBLISHED / doc["row"]), doc["cells"][doc["pinned"]]) == []


def test_regressions_md_names_every_change_and_its_release():
    text = REGRESSIONS.read_text(encoding="utf-8")
    for folder in sweeps():
        doc = json.loads((folder / "sweep.json").read_text())
        section = text.split(f"\n## {doc['row']}\n", 1)
        assert len(section) == 2, f"docs/regressions.md has no section '## {doc['row']}'"
        body = section[1].split("\n## ", 1)[0]
        assert f"results/sweeps/{folder.name}" in body
        for change in doc["changes"]:
            assert change["cell"] in body and change["first_new"] in body, (doc["row"], change)


def test_the_restart_fix_is_a_change_of_each_edits_default_expression_not_of_its_cell():
    doc = load(SWEEPS / RESTART_FIX)
    moved = {c["cell"]: (c["old"], c["new"], c["last_old"], c["first_new"]) for c in doc["variant_changes"]}
    for case in ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8"):
        assert moved.get(f"read {case} default") == ("ACCEPTED", "REPORTED", "0.1.0", "0.1.1"), (case, moved)
        assert doc["cells"]["0.1.0"][f"read {case}"] == doc["cells"]["0.1.1"][f"read {case}"] == "ACCEPTED"
    assert doc["changes"] == []   # measured: no cell moved, only expressions


def test_an_edited_variant_change_is_refused(tmp_path):
    copy = tmp_path / RESTART_FIX
    shutil.copytree(SWEEPS / RESTART_FIX, copy)
    doc = json.loads((copy / "sweep.json").read_text())
    doc["variant_changes"] = doc["variant_changes"][1:]
    (copy / "sweep.json").write_text(json.dumps(doc))
    assert "the record's variant changes are not those its variants give (its summary was edited)" in check_sweep(copy)


def test_a_variant_one_release_lacks_is_no_variant_change():
    measured = [("1", {"read T1 default": "error"}), ("2", {"read T1 default": "REPORTED", "read T1 x": "ACCEPTED"})]
    assert [c["cell"] for c in changes(measured, ["1", "2"], present_in_both=True)] == ["read T1 default"]
    assert {c["cell"]: c["old"] for c in changes(measured, ["1", "2"])}["read T1 x"] == ABSENT
