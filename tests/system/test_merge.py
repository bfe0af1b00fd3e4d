"""memlab run --shard K/N and memlab merge: three shards of the reference rows merge into the set
one run gives (rows and verdicts), which verifies; shards that are not one run's whole work are
refused, naming the file and the fix, and nothing is written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import lab.method.engine as engine
from lab.method.engine import run_matrix
from lab.profile import load_profiles, select
from lab.resultset.shards import partition, shard_record
from lab.resultset.verify import verify
from lab.runtime.local import LocalRuntime
from resultsets import memlab, shared_cache
from sharding import REFERENCE_ROWS, NONCE, baseline, outcomes, run_set

SMALL = ["reference-naive", "reference-naive-md"]  # shard 1/2 measures the first, 2/2 the second


def merge(tmp_path_factory, *sources: Path, name: str = "merged"):
    out = tmp_path_factory.mktemp(name) / "rs"
    return out, memlab("merge", *sources, "--out", out, "--no-reports", cache=shared_cache(tmp_path_factory))


def suts(names):
    return [a for n in names for a in ("--sut", n)]


@pytest.fixture(scope="module")
def thirds(tmp_path_factory):
    return [run_set(tmp_path_factory, f"third{k}", "--shard", f"{k}/3", "--run-id", "ref-3") for k in (1, 2, 3)]


def test_three_shards_merge_into_the_set_one_run_gives(tmp_path_factory, thirds):
    names = sorted(json.loads((baseline(tmp_path_factory) / "run.json").read_text())["rows"])
    for k, shard in enumerate(thirds, 1):  # each shard measured the rows the rule deals it, and only those
        assert sorted(p.name for p in (shard / "observations").iterdir()) == partition(names, k, 3)
    out, proc = merge(tmp_path_factory, *reversed(thirds))  # in any order
    assert proc.returncode == 0, proc.stderr
    assert verify(out).ok
    assert memlab("verify", out, cache=shared_cache(tmp_path_factory)).returncode == 0
    one, merged = outcomes(baseline(tmp_path_factory)), outcomes(out)
    assert sorted(merged) == sorted(one) and sorted(one) == sorted(REFERENCE_ROWS)
    for name in one:
        assert merged[name] == one[name], name
    run = json.loads((out / "run.json").read_text())
    assert run["run_id"] == "ref-3" and run["status"] == "completed" and "shard" not in run
    assert [s["index"] for s in run["merged"]["from"]] == [1, 2, 3]


@pytest.fixture(scope="module")
def halves(tmp_path_factory):
    return [run_set(tmp_path_factory, f"half{k}", *suts(SMALL), "--shard", f"{k}/2", "--run-id", "small")
            for k in (1, 2)]


def refused(tmp_path_factory, *sources, expect: str) -> str:
    out, proc = merge(tmp_path_factory, *sources, name="refused")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert expect in " ".join(proc.stderr.split()), proc.stderr
    assert not out.exists()  # nothing written
    return proc.stderr


def test_two_halves_merge(tmp_path_factory, halves):
    out, proc = merge(tmp_path_factory, *halves)
    assert proc.returncode == 0, proc.stderr
    assert verify(out).ok and sorted(p.name for p in (out / "observations").iterdir()) == SMALL


def test_a_missing_shard_is_refused(tmp_path_factory, halves):
    refused(tmp_path_factory, halves[0], expect="shard(s) 2/2 missing")


def test_a_shard_given_twice_is_refused(tmp_path_factory, halves, tmp_path):
    again = shutil.copytree(halves[0], tmp_path / "again")
    refused(tmp_path_factory, halves[0], again, halves[1], expect="are both shard 1/2: overlapping work")


def test_shards_of_another_run_are_refused(tmp_path_factory, halves):
    other = run_set(tmp_path_factory, "other", *suts(SMALL), "--shard", "2/2", "--run-id", "another")
    refused(tmp_path_factory, halves[0], other, expect="run_id 'another', but")


def test_shards_with_other_options_are_refused(tmp_path_factory, halves):
    other = run_set(tmp_path_factory, "records", *suts(SMALL), "--shard", "2/2", "--run-id", "small",
                    "--records", "6")
    refused(tmp_path_factory, halves[0], other, expect="records_per_context 6, but")


def test_shards_of_another_selection_are_refused(tmp_path_factory, halves):
    other = run_set(tmp_path_factory, "selection", *suts(SMALL + ["reference-sealed"]), "--shard", "2/2",
                    "--run-id", "small")
    refused(tmp_path_factory, halves[0], other, expect="shard selection")


def test_shards_of_another_commit_are_refused(tmp_path_factory, halves, tmp_path, cache, monkeypatch):
    monkeypatch.setattr(engine, "lab_revision", lambda: {"version": "0.1.0", "commit": "0" * 40, "dirty": False})
    shard = shard_record(2, 2, SMALL, {"nonce": NONCE, "records": 5, "fork_server": True})
    run_matrix(select(load_profiles(), ["reference-naive-md"]), LocalRuntime(), tmp_path / "old", jobs=2,
               nonce=NONCE, run_id="small", shard=shard)
    assert verify(tmp_path / "old").ok
    refused(tmp_path_factory, halves[0], tmp_path / "old", expect=f"lab {{'commit': '{'0' * 40}', 'dirty': False")


def test_shards_of_other_code_are_refused_without_git(tmp_path_factory, tmp_path, monkeypatch):
    """A lab installed from an archive (no git: commit and dirty unknown) still names its code: two shards
    measured by labs whose code differs are refused, by its digest."""
    shard_sets = []
    for k, row in enumerate(SMALL, start=1):
        code = f"sha256:{str(k) * 64}"
        monkeypatch.setattr(engine, "lab_revision", lambda code=code: {"version": "0.1.0", "code": code,
                                                                          "commit": None, "dirty": None})
        shard = shard_record(k, 2, SMALL, {"nonce": NONCE, "records": 5, "fork_server": True})
        run_matrix(select(load_profiles(), [row]), LocalRuntime(), tmp_path / f"s{k}", jobs=2, nonce=NONCE,
                   run_id="nogit", shard=shard)
        assert verify(tmp_path / f"s{k}").ok
        shard_sets.append(tmp_path / f"s{k}")
    refused(tmp_path_factory, *shard_sets, expect=f"'code': 'sha256:{'1' * 64}'")


def test_a_shard_that_does_not_verify_is_refused(tmp_path_factory, halves, tmp_path):
    bad = shutil.copytree(halves[1], tmp_path / "bad")
    t1 = bad / "observations" / "reference-naive-md" / "T1.json"
    t1.write_text(t1.read_text().replace('"ACCEPTED"', '"REJECTED"') + " ")
    refused(tmp_path_factory, halves[0], bad, expect="does not verify")


def test_a_set_that_is_not_a_shard_is_refused(tmp_path_factory, halves):
    plain = run_set(tmp_path_factory, "plain", "--sut", "reference-naive-md")
    refused(tmp_path_factory, halves[0], plain, expect="not a shard of a sharded run")


def test_a_row_a_shard_skipped_is_missing_work(tmp_path_factory):
    names = SMALL + ["reference-naive-postgres"]  # shard 1/2: reference-naive and reference-naive-postgres
    first = run_set(tmp_path_factory, "nopg", *suts(names), "--shard", "1/2", "--run-id", "pg",
                    env={"MEMLAB_PG_BIN": "/nonexistent"})
    second = run_set(tmp_path_factory, "pg2", *suts(names), "--shard", "2/2", "--run-id", "pg")
    assert json.loads((first / "run.json").read_text())["shard"]["skipped"]
    refused(tmp_path_factory, first, second, expect="did not measure reference-naive-postgres: not runnable")


def test_shard_and_run_id_are_checked_before_anything_runs(tmp_path_factory, tmp_path):
    cache = shared_cache(tmp_path_factory)
    for args, expect in ((["--shard", "3/2", "--run-id", "x"], "does not exist"),
                         (["--shard", "1-2", "--run-id", "x"], "write K/N"),
                         (["--shard", "1/2"], "needs --run-id"),
                         (["--shard", "3/3", "--run-id", "x", *suts(SMALL)], "shard 3 has no rows"),
                         (["--run-id", "../x"], "use 1-100 letters")):
        proc = memlab("run", "--runtime", "local", "--out", tmp_path / "never", *args, cache=cache)
        assert proc.returncode == 2 and expect in " ".join(proc.stderr.split()), (args, proc.stderr)
        assert not (tmp_path / "never").exists()
