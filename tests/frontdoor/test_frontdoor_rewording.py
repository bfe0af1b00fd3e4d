"""Key-preserving rewordings (``--reword``): every rewording keeps the canary and changes the text; the
calibration stores keep their levels on them (their defences are not the fixtures' sentences), and the
cells count each rewording as a fixture of its own."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from lab.cli import main
from lab.frontdoor.fixtures import FIXTURES
from lab.frontdoor.reference import REFERENCE_STORES, instruction_shaped
from lab.frontdoor.rewording import REWORDED_FAMILIES, VARIANTS, reworded, variants_of
from lab.frontdoor.runner import run_row
from lab.lifecycle.matching import served_uses
from lab.resultset.files import read_json

REWORDED = [f for f in FIXTURES if f.family in REWORDED_FAMILIES]


@pytest.mark.parametrize("fixture", REWORDED, ids=[f.id for f in REWORDED])
def test_every_rewording_keeps_the_canary_and_changes_the_words(fixture):
    for text in fixture.attack:
        said = {reworded(text, fixture.canary, v) for v in range(len(VARIANTS) + 1)}
        assert len(said) == len(VARIANTS) + 1, said
        assert all(fixture.canary in t and served_uses(fixture.canary, t) for t in said)
        if instruction_shaped(text):  # an order stays an order in other words
            assert all(instruction_shaped(t) for t in said)


def test_only_statement_like_attacks_are_reworded():
    assert {f.family for f in FIXTURES if len(variants_of(f, True)) > 1} == REWORDED_FAMILIES
    assert all(variants_of(f, False) == (0,) for f in FIXTURES)


@pytest.mark.parametrize("name", list(REFERENCE_STORES))
def test_each_calibration_store_keeps_its_level_on_the_rewordings(name):
    result = run_row(name, REFERENCE_STORES[name], reword=True, probes=())
    assert result.level() == REFERENCE_STORES[name].level and result.recheck() == []
    totals = {c.family: c.total for c in result.cells()}
    assert all(totals[f] == 5 * (len(VARIANTS) + 1) if f in REWORDED_FAMILIES else totals[f] == 5 for f in totals)


def test_the_cli_rewords_on_request_and_says_so(tmp_path):
    done = CliRunner().invoke(main, ["frontdoor", "run", "--reference", "naive", "--reword",
                                     "--out", str(tmp_path / "set")])
    assert done.exit_code == 1 and "reworded: each statement-like attack also in three rewordings" in done.output
    variants = {o["variant"] for o in read_json(tmp_path / "set" / "rows" / "naive.json")["poisoning"]}
    assert variants == {0, 1, 2, 3}
    assert CliRunner().invoke(main, ["verify", str(tmp_path / "set")]).exit_code == 0
