"""--jobs spreads a row's trials, not only rows: once a row is seeded its trials are independent
(each on its own copy of the seeded volumes, scratch folder, logs and service ports), and the set
is the same as with --jobs 1, cell for cell; a crash keeps every trial measured before it."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from lab.method.engine import TRIALS_PER_ROW, run_matrix
from lab.profile import load_profiles, select
from lab.resultset.verify import verify
from lab.runtime.local import LocalRuntime
from sharding import REFERENCE_ROWS, baseline, outcomes, run_set

ROOT = Path(__file__).resolve().parents[2]


class CountingRuntime(LocalRuntime):
    """The local runtime, counting how many SUT processes of each row are up at once. A start after
    the row's first (its seeding) waits up to ``WAIT`` seconds for another to be up beside it, until
    one has been: trials that run side by side meet there at once, trials run one after the other
    never do (so the count does not hang on how fast a trial happens to be)."""

    WAIT = 10.0

    def __init__(self):
        super().__init__()
        self.lock, self.up, self.most, self.starts = threading.Condition(), {}, {}, {}

    def launch(self, prepared, volumes, scratch, log_path, run_id):
        client = super().launch(prepared, volumes, scratch, log_path, run_id)
        row, start, stop = prepared.profile.row, client.start, client.stop

        def started(*a, **k):
            with self.lock:
                self.up[row] = self.up.get(row, 0) + 1
                self.starts[row] = self.starts.get(row, 0) + 1
                self.most[row] = max(self.most.get(row, 0), self.up[row])
                self.lock.notify_all()
                if self.starts[row] > 1 and self.most[row] < 2:
                    self.lock.wait_for(lambda: self.up[row] >= 2, timeout=self.WAIT)
                    self.most[row] = max(self.most[row], self.up[row])
            return start(*a, **k)

        def stopped(*a, **k):
            try:
                return stop(*a, **k)
            finally:
                with self.lock:
                    self.up[row] -= 1
                    self.lock.notify_all()

        client.start, client.stop = started, stopped
        return client


def test_the_trials_of_one_row_run_side_by_side(tmp_path, cache):
    runtime = CountingRuntime()
    steps = []
    summary = run_matrix(select(load_profiles(), ["reference-naive"]), runtime, tmp_path / "rs", jobs=3,
                         nonce="side", progress=lambda row, step: steps.append((row, step)))
    assert runtime.most["reference-naive"] >= 2, runtime.most  # one row: only its trials can overlap
    assert [r["cells"][c]["verdict"] for r in summary.rows for c in r["cells"]] == ["ACCEPTED"] * 10
    variants = len(list((tmp_path / "rs" / "observations" / "reference-naive").glob("T*.v*.json")))
    assert len(steps) == TRIALS_PER_ROW + variants == len(set(steps))  # the bar: each trial (variants too) once
    assert verify(tmp_path / "rs").ok


class QuickCountingRuntime(CountingRuntime):
    """Counts as CountingRuntime does, waiting only briefly for a second start that never comes."""

    WAIT = 0.3


def test_a_row_whose_trials_cannot_overlap_runs_them_one_after_another(tmp_path, cache):
    text = (ROOT / "sut_profiles" / "reference-naive.yaml").read_text()
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "reference-naive.yaml").write_text(text + "side_by_side: false\n")
    profiles = select(load_profiles(tmp_path / "profiles"), ["reference-naive"])
    assert profiles[0].side_by_side is False and profiles[0].to_json()["side_by_side"] is False
    runtime = QuickCountingRuntime()
    summary = run_matrix(profiles, runtime, tmp_path / "rs", jobs=3, nonce="serial")
    assert runtime.most["reference-naive"] == 1, runtime.most  # never two SUTs of the row at once
    assert runtime.starts["reference-naive"] >= 13
    assert [r["cells"][c]["verdict"] for r in summary.rows for c in r["cells"]] == ["ACCEPTED"] * 10
    assert verify(tmp_path / "rs").ok


def test_jobs_3_gives_the_set_jobs_1_gives(tmp_path_factory):
    one = baseline(tmp_path_factory)
    three = run_set(tmp_path_factory, "jobs3", "--jobs", "3")
    assert verify(three).ok
    a, b = outcomes(one), outcomes(three)
    assert sorted(a) == sorted(b) and sorted(a) == sorted(REFERENCE_ROWS)
    for name in a:
        assert a[name] == b[name], name


def test_a_crash_keeps_every_trial_measured_before_it(tmp_path, cache):
    ended = []

    def progress(row, step):
        ended.append(step)
        if len(ended) == 6:
            raise RuntimeError("the lab crashed")

    out = tmp_path / "rs"
    with pytest.raises(RuntimeError, match="the lab crashed"):
        run_matrix(select(load_profiles(), ["reference-naive"]), LocalRuntime(), out, jobs=2, nonce="crash",
                   progress=progress)
    saved = {p.stem for p in (out / "observations" / "reference-naive").glob("*.json")} - {"profile", "environment"}
    assert set(ended) <= saved and len(saved) >= 6  # every trial that ended is on disk (the crashed one too)
    row = json.loads((out / "rows" / "reference-naive@read.json").read_text())  # derived from what was saved
    measured = [c for c, cell in row["cells"].items() if cell["verdict"] == "ACCEPTED"]
    assert set(measured) <= saved and measured
    assert (out / "manifest.json").is_file()
