"""The process-alive position: a row attribute under which the SUT process runs across the edit
and is read without a restart. Reported as its own row, never mixed into the stopped metric."""

import os
from pathlib import Path

import pytest

from lab.cases import CASE_IDS
from lab.method.engine import run_matrix
from lab.profile import load_profile, load_profiles, ProfileError
from lab.runtime.local import LocalRuntime
from lab.resultset.results import read_json

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "alive"


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    old = os.environ.get("MEMLAB_CACHE")
    os.environ["MEMLAB_CACHE"] = str(tmp_path_factory.mktemp("cache"))
    out = tmp_path_factory.mktemp("alive")
    try:
        summary = run_matrix(load_profiles(FIXTURES), LocalRuntime(), out, jobs=2, nonce="alive")
    finally:
        if old is None:
            os.environ.pop("MEMLAB_CACHE")
        else:
            os.environ["MEMLAB_CACHE"] = old
    return out, {r["row"]: r for r in summary.rows}


def test_position_is_a_validated_profile_attribute(tmp_path):
    assert load_profile(FIXTURES / "watcher-alive.yaml").position == "alive"
    assert load_profile(FIXTURES / "watcher-stopped.yaml").position == "stopped"
    bad = tmp_path / "bad.yaml"
    bad.write_text((FIXTURES / "watcher-alive.yaml").read_text().replace("position: alive", "position: awake")
                   .replace("driver: ./", f"driver: {FIXTURES}/"))
    with pytest.raises(ProfileError, match="position"):
        load_profile(bad)


def test_alive_row_keeps_one_process_across_edit_and_read(rows):
    out, by_row = rows
    alive, stopped = by_row["watcher-alive"], by_row["watcher-stopped"]
    assert alive["position"] == "alive" and alive["sut_stopped_during_edits"] is False
    assert stopped["position"] == "stopped" and stopped["sut_stopped_during_edits"] is True
    for case in CASE_IDS:
        obs = read_json(out / "observations" / "watcher-alive" / f"{case}.json")
        assert obs["sut_stopped_during_edit"] is False and len(obs["logs"]) == 1, case  # one start only
        assert obs["c3"]["ok"], case
        obs = read_json(out / "observations" / "watcher-stopped" / f"{case}.json")
        assert obs["sut_stopped_during_edit"] is True and len(obs["logs"]) == (2 if case in ("T9", "T10") else 1)


def test_a_watcher_sees_edits_alive_and_none_after_a_restart(rows):
    _, by_row = rows
    alive, stopped = by_row["watcher-alive"], by_row["watcher-stopped"]
    assert alive["controls"]["C1"]["ok"] and stopped["controls"]["C1"]["ok"]
    assert {alive["cells"][c]["verdict"] for c in CASE_IDS} == {"REPORTED"}
    assert {stopped["cells"][c]["verdict"] for c in CASE_IDS} == {"ACCEPTED"}
