"""A row whose adversary holds a sidecar volume measures each record case with that volume emptied
and removed too (each a variant trial that lands), and a row that does not hold it measures none.

The row is reference-sealed with its head volume (``anchor``) held by the adversary: the records
keep their keyed MACs, so every variant is still refused on read, and the cell is decided as before;
what the test shows is that the variant trials run, land (C3) and verify."""

from __future__ import annotations

import shutil

import pytest
from resultsets import ROOT, cache, load, make_result_set, memlab  # noqa: F401

HELD = "reference-sealed-anchor-held"
RECORD_CASES = ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8")


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    profiles = tmp_path_factory.mktemp("profiles") / "p"
    shutil.copytree(ROOT / "sut_profiles", profiles)
    text = (profiles / "reference-sealed.yaml").read_text()
    for old, new in (("row: reference-sealed\n", f"row: {HELD}\n"),
                     ("  anchor: {adversary: false}\n", "  anchor: {adversary: true}\n"),
                     ("  adversary_holds: [store]\n", "  adversary_holds: [store, anchor]\n")):
        assert old in text
        text = text.replace(old, new)
    (profiles / f"{HELD}.yaml").write_text(text)
    return make_result_set(tmp_path_factory, HELD, "reference-sealed", name="sidecar",
                           extra=("--profiles", profiles))


@pytest.mark.parametrize("case", RECORD_CASES)
def test_each_record_case_is_measured_with_the_held_anchor_emptied_and_removed(measured, case):
    obs_dir = measured / "observations" / HELD
    listed = {v["name"]: v for v in load(obs_dir / f"{case}.json")["variants"]}
    assert {"sidecar=anchor:emptied", "sidecar=anchor:removed"} <= set(listed)
    for op, statement in (("emptied", "anchor/: truncate -s 0 head.json"), ("removed", "anchor/: rm head.json")):
        obs = load(obs_dir / f"{listed[f'sidecar=anchor:{op}']['trial']}.json")
        assert obs["intended"]["sidecar"] == f"anchor:{op}" and obs["c3"]["ok"], obs["c3"]["reasons"]
        assert obs["applied"]["statements"][-1] == statement
        assert "anchor/head.json" in obs["c3"]["files"]["removed" if op == "removed" else "changed"]
    cell = load(next((measured / "rows").glob(f"{HELD}*.json")))["cells"][case]
    judged = {v["variant"]: v["verdict"] for v in cell["variants"]}
    assert judged["sidecar=anchor:emptied"] == judged["sidecar=anchor:removed"] == "REJECTED"


def test_a_row_that_does_not_hold_the_anchor_lists_no_sidecar_variant(measured):
    obs_dir = measured / "observations" / "reference-sealed"
    names = [v["name"] for case in RECORD_CASES for v in load(obs_dir / f"{case}.json").get("variants") or []]
    assert not any(n.startswith("sidecar=") for n in names)


def test_the_set_with_sidecar_variants_verifies(measured, cache):
    proc = memlab("verify", measured, cache=cache)
    assert proc.returncode == 0, proc.stdout + proc.stderr
