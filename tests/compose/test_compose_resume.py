"""A composition killed (kill -9) after its at-rest trials, mid-way through its sequences, resumes: the
kept seeded volumes are still there, no trial is measured twice, none saved before the kill changes,
and the completed set verifies with the same findings a whole run gives. The counted store
(tests/fixtures/counted), cut between its two pair findings: the pairs run last, after every case's
unit, and a resume must run them too."""

import json
import os
import sys
from pathlib import Path

import pytest

from lab.resultset.composition import load_rows, pending
from lab.resultset.verify import verify

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from kills import kill9, memlab, observation_digests, start_paused  # noqa: E402

pytestmark = pytest.mark.system  # composes or runs rows end to end: out of the fast loop

ROW = "counted"
PROFILES = ROOT / "tests" / "fixtures" / "counted"


def test_a_composition_killed_mid_way_resumes_to_the_same_findings(tmp_path):
    out, events = tmp_path / "out", tmp_path / "moments"
    env = {**os.environ, "MEMLAB_MOMENTS": str(events), "MEMLAB_CACHE": str(tmp_path / "cache")}
    proc = start_paused(out, {**env, "MEMLAB_PAUSE_AT": "saved:compose/T3+T5"}, events, (ROW,), PROFILES,
                        command="compose")
    kill9(proc)
    before = observation_digests(out)
    left = pending(out / "observations" / ROW, 2, 2, True)
    assert "T5+T3" in left and "T3+T5" not in left  # cut mid-way through the pairs: one saved, one not
    assert (out / "seeded" / ROW).is_dir()  # the seeded volumes kept for the resume

    done = memlab("compose", "--resume", out, "--profiles", str(PROFILES), "--no-reports", env=env)
    assert done.returncode == 1, done.stdout + done.stderr  # the finding, as a whole run gives it
    assert verify(out).ok
    assert pending(out / "observations" / ROW, 2, 2, True) == []
    saves = [line.split()[2] for line in events.read_text().splitlines()
             if line.startswith("saved ") and line.split()[2] not in ("profile", "environment")]
    assert len(saves) == len(set(saves)), "a trial was measured twice"
    after = observation_digests(out)
    assert [f for f, d in before.items() if after.get(f) != d] == []
    read = next(row for row in load_rows(out) if row.detection_point == "read")
    assert {"+".join(s.sequence) for s in read.findings} == {"T3+T5", "T5+T3"}
    assert json.loads((out / "run.json").read_text())["compose"] == {"length": 2, "edits": 2, "restores": True}
