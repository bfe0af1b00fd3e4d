"""The boundary (issue 39): names that become paths stay inside the result set, key files are read
only when they are small regular files, timeouts are finite and bounded, levels compare as levels, and
two runs started in the same second pick different default folders."""

import os
import resource
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from lab.cases import CASE_IDS
from lab.cli import main
from lab.judge.row import read_row
from lab.lifecycle.adapters.http_config import HttpConfigError
from lab.lifecycle.adapters.http_config_checks import load_http_config
from lab.lifecycle.results import LifecycleSet
from lab import testing
from lab.testing import Matrix

ROOT = Path(__file__).resolve().parents[2]


def _config(tmp_path, text, name="shim.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def _memlab(*args, cwd=None, timeout=60):
    """``memlab ARGS`` in a new process, with at most 1 GiB of memory and ``timeout`` seconds."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    return subprocess.run([sys.executable, "-m", "lab.cli", *map(str, args)], cwd=cwd or ROOT, capture_output=True,
                          text=True, timeout=timeout, preexec_fn=limit, env={**os.environ, "COLUMNS": "200"})


# 1. names that escape -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["../../../escaped/PWNED", "payments/memory", "..", "-x", "a\\b"])
def test_a_shim_name_that_is_no_safe_file_name_is_a_config_error(tmp_path, name):
    path = _config(tmp_path, f'base_url: http://127.0.0.1:9\nheaders: {{}}\nname: "{name}"\n')
    with pytest.raises(HttpConfigError) as caught:
        load_http_config(path)
    text = str(caught.value)
    assert str(path) in text and ":3" in text and "name" in text and "not a safe name" in text, text


def test_a_safe_shim_name_loads(tmp_path):
    assert load_http_config(_config(tmp_path, "base_url: http://127.0.0.1:9\nname: our-memory.v2\n")).name == \
        "our-memory.v2"


def test_lifecycle_run_with_an_escaping_shim_name_exits_2_and_writes_nothing_outside(tmp_path):
    config = _config(tmp_path, 'base_url: http://127.0.0.1:9\nname: "../../../escaped/PWNED"\n')
    out = tmp_path / "a" / "b" / "c" / "out"
    proc = _memlab("lifecycle", "run", "--http", config, "--out", out)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "not a safe name" in " ".join(proc.stderr.split())
    assert not (tmp_path / "escaped").exists() and not (tmp_path / "a" / "escaped").exists()


@pytest.mark.parametrize("key", ["../x@live", "../../escaped/PWNED@live", "a/b@live", "/abs@live"])
def test_the_lifecycle_set_refuses_a_row_key_that_leaves_its_root(tmp_path, key):
    lcs = LifecycleSet(tmp_path / "set")
    try:
        with pytest.raises(ValueError, match="outside the result set"):
            lcs.logs_dir(key)
        with pytest.raises(ValueError, match="outside the result set"):
            lcs.saver(key)({"scenario": "s", "seed": 1})
        with pytest.raises(ValueError, match="outside the result set"):
            lcs.write_row({"row": key.split("@")[0], "position": "live"}, "p2")
    finally:
        lcs._lock.close()
    assert not (tmp_path / "x").exists() and not (tmp_path / "escaped").exists()


# 2. key files read bounded --------------------------------------------------------------------------

def _load_in_child(path, loader="load_public_key"):
    code = f"from lab.resultset.signing import {loader}, SigningKeyError\n" \
           f"try:\n    {loader}({str(path)!r})\nexcept SigningKeyError as exc:\n    print(exc)\n"
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=30,
                          preexec_fn=limit)


@pytest.mark.parametrize("loader", ["load_public_key", "load_private_key"])
def test_dev_zero_as_a_key_is_refused_not_read(loader):
    proc = _load_in_child("/dev/zero", loader)
    assert proc.returncode == 0 and "/dev/zero" in proc.stdout and "not a regular file" in proc.stdout, \
        proc.stdout + proc.stderr


def test_a_fifo_as_a_key_is_refused_not_waited_on(tmp_path):
    fifo = tmp_path / "key.fifo"
    os.mkfifo(fifo)
    proc = _load_in_child(fifo)  # today's code waits for a writer: TimeoutExpired
    assert str(fifo) in proc.stdout and "not a regular file" in proc.stdout, proc.stdout + proc.stderr


def test_a_key_file_over_64_kib_is_refused(tmp_path):
    big = tmp_path / "big.pem"
    big.write_bytes(b"-----BEGIN PUBLIC KEY-----\n" + b"A" * (64 * 1024) + b"\n-----END PUBLIC KEY-----\n")
    proc = _load_in_child(big)
    assert str(big) in proc.stdout and "64 KiB" in proc.stdout, proc.stdout + proc.stderr


def test_verify_with_dev_zero_as_pubkey_exits_2_naming_the_file(tmp_path):
    (tmp_path / "set").mkdir()
    proc = _memlab("verify", tmp_path / "set", "--pubkey", "/dev/zero", timeout=60)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    said = " ".join((proc.stdout + proc.stderr).split())
    assert "/dev/zero" in said and "not a regular file" in said, said


# 3. timeouts finite and bounded ---------------------------------------------------------------------

@pytest.mark.parametrize("text, field", [
    ("base_url: http://127.0.0.1:9\ntimeouts: {query: 1.0e+300}\n", "timeouts.query"),
    ("base_url: http://127.0.0.1:9\ntimeouts: {mutation: 3601}\n", "timeouts.mutation"),
    ("base_url: http://127.0.0.1:9\ntimeout_seconds: 1.0e+300\n", "timeout_seconds"),
    ("base_url: http://127.0.0.1:9\nconvergence_timeout_seconds: 7200\n", "convergence_timeout_seconds"),
])
def test_a_config_timeout_over_the_bound_is_a_config_error(tmp_path, text, field):
    with pytest.raises(HttpConfigError) as caught:
        load_http_config(_config(tmp_path, text))
    assert field in str(caught.value) and "3600" in str(caught.value), str(caught.value)


def test_a_config_timeout_at_the_bound_loads(tmp_path):
    cfg = load_http_config(_config(tmp_path, "base_url: http://127.0.0.1:9\ntimeouts: {query: 3600}\n"))
    assert cfg.timeouts["query"] == 3600.0


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0", "3601", "1e300"])
def test_doctor_timeout_must_be_finite_positive_and_bounded(tmp_path, value):
    config = _config(tmp_path, "base_url: http://127.0.0.1:9\n")
    result = CliRunner().invoke(main, ["lifecycle", "doctor", str(config), "--timeout", value])
    assert result.exit_code == 2, result.output
    assert "--timeout" in result.output and "3600" in result.output, result.output


def test_the_timeout_bound_is_one_bound():
    from lab.cli.options import MAX_SECONDS as option
    from lab.lifecycle.adapters.http_config import MAX_SECONDS as config
    from lab.profile.schema import MAX_SECONDS as profile
    assert option == config == profile == 3600


# 4. levels compare as levels ------------------------------------------------------------------------

def _matrix(level):
    row = {"row": "r", "detection_point": "read", "level": level, "controls": {"C1": {"ok": True}, "C2": {"ok": True}},
           "cells": {cid: {"verdict": "REJECTED"} for cid in CASE_IDS}}
    return Matrix(0, "", Path("."), [read_row(row)])


def test_a_row_never_evaluated_does_not_reach_any_level():
    level = _matrix(None).level("r")
    assert not level >= "L3" and not level >= "L0" and not level > "L0"
    assert level < "L0" and str(level) == "none" and level == "none" and not level.evaluable


@pytest.mark.parametrize("got, other, ge", [("L3", "L3", True), ("L4", "L3", True), ("L2", "L3", False),
                                            ("L1", "L0", True), ("L0", "L1", False)])
def test_levels_compare_by_their_rank(got, other, ge):
    level = _matrix(got).level("r")
    assert (level >= other) is ge and (level < other) is (not ge)
    assert level == got and str(level) == got and f"{level}" == got and level.evaluable
    assert level >= testing.Level(other) if ge else level < testing.Level(other)


def test_the_matrix_reads_its_rows_by_the_row_record_and_gives_a_row_as_its_json():
    matrix = _matrix("L4")
    assert matrix.verdicts("r") == dict.fromkeys(CASE_IDS, "REJECTED") and matrix.accepted() == []
    assert matrix.row("r") == matrix.record("r").to_json() and matrix.row("r")["cells"]["T1"]["verdict"] == "REJECTED"
    with pytest.raises(KeyError, match=r"no row r@audit .*\['r'\]"):
        matrix.row("r", "audit")


def test_comparing_with_no_level_is_a_clear_error():
    with pytest.raises(ValueError, match="not a level"):
        _matrix("L3").level("r") >= "l3"


# 5. default output folders unique -------------------------------------------------------------------

def _taken(cwd, prefix):
    """Every default folder of the next minute already holds a run's remains (as a run started in the same
    second would)."""
    now = datetime.now(timezone.utc)
    for s in range(-2, 60):
        folder = cwd / "results" / (prefix + (now + timedelta(seconds=s)).strftime("%Y%m%dT%H%M%SZ"))
        folder.mkdir(parents=True)
        (folder / "run.json").write_text('{"status": "running"}\n')


def test_two_lifecycle_runs_in_one_second_pick_different_default_folders(tmp_path):
    _taken(tmp_path, "lifecycle-")
    proc = _memlab("lifecycle", "run", "--sut", "lifecycle-strict", "--runtime", "local", "--profiles",
                   ROOT / "sut_profiles", cwd=tmp_path, timeout=120)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    made = [p for p in (tmp_path / "results").iterdir() if (p / "manifest.json").exists()]
    assert len(made) == 1 and made[0].name.startswith("lifecycle-") and made[0].name.endswith("-2"), made


def test_two_memlab_runs_in_one_second_pick_different_default_folders(tmp_path, tmp_path_factory):
    _taken(tmp_path, "")
    cache = tmp_path_factory.getbasetemp() / "memlab-cache"
    cache.mkdir(exist_ok=True)
    env = {**os.environ, "MEMLAB_CACHE": str(cache)}
    proc = subprocess.run([sys.executable, "-m", "lab.cli", "run", "--runtime", "local", "--sut", "reference-naive",
                           "--no-reports", "--profiles", str(ROOT / "sut_profiles")], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    made = [p for p in (tmp_path / "results").iterdir() if (p / "manifest.json").exists()]
    assert len(made) == 1 and made[0].name.endswith("-2"), made
