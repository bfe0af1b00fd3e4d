"""``memlab gc`` removes the containers of a killed run, and only this cache's."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
import yaml

from docker_helpers import ROOT, containers
from processes import run_processes
from lab.runtime import images
from lab.runtime.housekeeping import cache_key
from lab.runtime.dockercli import docker

pytestmark = pytest.mark.docker
HOSTILE = ROOT / "tests" / "docker" / "hostile"


def _gc(cache) -> str:
    done = subprocess.run([sys.executable, "-m", "lab.cli", "gc"], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "MEMLAB_CACHE": str(cache)}, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


def _wait(predicate, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while not (value := predicate()):
        assert time.monotonic() < deadline, what
        time.sleep(0.2)
    return value


def test_gc_removes_the_containers_of_a_killed_run(tmp_path, cache):
    data = yaml.safe_load((HOSTILE / "hostile.yaml").read_text())
    data.update(row="hang", driver=str(HOSTILE), timeouts={"start": 60, "op": 300})
    data["configuration"] = {"mode": "hang"}
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "hang.yaml").write_text(yaml.safe_dump(data))
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "lab.cli", "run", "--runtime", "docker", "--profiles",
                             str(tmp_path / "profiles"), "--sut", "hang", "--out", str(out)], cwd=ROOT,
                            env={**os.environ, "MEMLAB_CACHE": str(cache)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        run_id = _wait(lambda: (out / "run.json").is_file() and json.loads((out / "run.json").read_text())["run_id"],
                       120, "the run did not start")
        _wait(lambda: containers(run_id), 120, "no container of the run appeared")
        time.sleep(1.0)  # the SUT now hangs in its first write
    finally:
        proc.send_signal(signal.SIGKILL)  # a killed run cleans up nothing
        proc.wait(timeout=30)
    time.sleep(1.0)
    left = containers(run_id)
    assert left, "the killed run's container should still be there for gc to remove"
    report = _gc(cache)
    assert f"container {left[0]}" in report, report
    assert containers(run_id) == []
    assert run_processes(run_id) == []


def test_gc_sweeps_labelled_containers_of_runs_gone_and_leaves_other_caches_alone(cache):
    def start(run_id: str, key: str) -> str:
        return docker("run", "-d", "--rm", "--network", "none", "--label", f"memlab.run={run_id}",
                      "--label", f"memlab.cache={key}", images.BASE_TAG, "sleep", "300").stdout.strip()

    ours, theirs = start("ghost-run-ours", cache_key()), start("ghost-run-theirs", "another-cache")
    try:
        report = _gc(cache)
        assert containers("ghost-run-ours") == [], report
        assert len(containers("ghost-run-theirs")) == 1, "gc touched another cache's container"
    finally:
        docker("rm", "-f", ours, theirs, check=False)
