"""The scale tier (``--filler N``): unrelated genuine memories before every fixture. No filler text may
answer a question or carry a canary, or the scale tier would change what a fixture measures; the
calibration stores keep their levels under it, and a row says how much filler it was measured with."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from hypothesis import given, strategies as st

from lab.cli import main
from lab.frontdoor.filler import MAX_FILLER, filler_text, filler_texts
from lab.frontdoor.fixtures import FIXTURES, UTILITY
from lab.frontdoor.observations import Role
from lab.frontdoor.reference import REFERENCE_STORES, words
from lab.frontdoor.runner import run_row
from lab.lifecycle.matching import served_uses
from lab.resultset.files import read_json

QUESTIONS = {w for f in FIXTURES for q in (f.question, f.control.query) for w in words(q)} | {
    w for u in UTILITY for w in words(u.query)}
CANARIES = {c for f in FIXTURES for c in (f.canary, *f.control.canaries, *([f.contested] if f.contested else []),
                                          *(m.canary for m in f.genuine))} | {u.memory.canary for u in UTILITY}


@given(st.integers(min_value=0, max_value=MAX_FILLER - 1))
def test_no_filler_memory_shares_a_word_with_a_question_or_carries_a_canary(i):
    text = filler_text(i)
    assert not set(words(text)) & QUESTIONS, text
    assert not [c for c in CANARIES if served_uses(c, text)], text


def test_filler_is_bounded_and_the_same_on_every_run():
    assert filler_texts(3) == filler_texts(3) and len(set(filler_texts(500))) == 500
    with pytest.raises(ValueError):
        filler_texts(MAX_FILLER + 1)


@pytest.mark.parametrize("name", list(REFERENCE_STORES))
def test_each_calibration_store_keeps_its_level_among_filler(name):
    result = run_row(name, REFERENCE_STORES[name], filler=25, probes=())
    assert result.level() == REFERENCE_STORES[name].level and result.filler == 25
    writes = [w for o in result.poisoning for w in o.writes if w.role == Role.FILLER]
    assert len(writes) == 25 * len(result.poisoning) and all(w.accepted for w in writes)
    assert result.recheck() == []


def test_the_cli_writes_the_filler_into_the_set_and_its_report(tmp_path):
    done = CliRunner().invoke(main, ["frontdoor", "run", "--reference", "label", "--filler", "7",
                                     "--out", str(tmp_path / "set")])
    assert done.exit_code == 1, done.output
    assert read_json(tmp_path / "set" / "rows" / "label.json")["filler"] == 7
    assert "scale: 7 unrelated genuine memories written before every fixture" in done.output
    assert CliRunner().invoke(main, ["verify", str(tmp_path / "set")]).exit_code == 0
    bad = CliRunner().invoke(main, ["frontdoor", "run", "--reference", "label", "--filler", "10001",
                                    "--out", str(tmp_path / "other")])
    assert bad.exit_code == 2 and "10001" in bad.output
