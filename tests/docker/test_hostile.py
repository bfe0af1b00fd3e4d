"""A hostile SUT image is contained: it cannot write outside its volumes, reach the network or
exhaust the host's processes, and its row is an error row while a reference row in the same
run still gets its verdicts -- in a container of its own per start (``--no-fork-server``), forked in
its row's fork-server container (the default), which is hardened the same way, and as a row that
brings its own image (``image: {dockerfile: own.Dockerfile}``: its own entrypoint, and ``USER root``;
never fork-served)."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml

from docker_helpers import ROOT, containers
from processes import run_processes
from lab.cases import CASE_IDS
from lab.runtime.docker import Limits

pytestmark = pytest.mark.docker
HOSTILE = ROOT / "tests" / "docker" / "hostile"


@pytest.fixture(scope="module", params=["fork-server", "no-fork-server", "own image"])
def run(request, tmp_path_factory, cache, listener):
    """One run: the hostile row and reference-naive side by side (fork-served or not, or its own image)."""
    canary = Path(tempfile.mkdtemp(prefix="memlab-hostile-", dir="/var/tmp"))
    canary.chmod(0o777)  # were the SUT to reach it, nothing on the host would stop the write
    profiles = tmp_path_factory.mktemp("profiles")
    data = yaml.safe_load((HOSTILE / "hostile.yaml").read_text())
    data["driver"] = str(HOSTILE)
    data["configuration"].update(host_canary=str(canary / "canary"), port=listener.getsockname()[1])
    if request.param == "own image":
        data["image"] = {"dockerfile": "own.Dockerfile"}
    (profiles / "hostile.yaml").write_text(yaml.safe_dump(data))
    shutil.copy(ROOT / "sut_profiles" / "reference-naive.yaml", profiles)
    out = tmp_path_factory.mktemp("out")
    done = subprocess.run([sys.executable, "-m", "lab.cli", "run", "--runtime", "docker", "--profiles", str(profiles),
                           "--sut", "*", "--nonce", "hostile", "--out", str(out)]
                          + (["--no-fork-server"] if request.param == "no-fork-server" else []),
                          cwd=ROOT, capture_output=True, text=True, env={**os.environ, "MEMLAB_CACHE": str(cache)},
                          timeout=600)
    assert done.returncode == 2, done.stderr[-3000:]  # the hostile row is not evaluable: exit 2 (memlab run --help)
    rows = {json.loads(p.read_text())["row"]: json.loads(p.read_text()) for p in (out / "rows").glob("*.json")}
    log = "\n".join(p.read_text() for p in sorted((out / "logs" / "hostile").glob("*.log")))
    line = next(ln for ln in log.splitlines() if ln.startswith("HOSTILE "))
    served = json.loads((out / "observations" / "hostile" / "environment.json").read_text())["detail"]["fork_server"]
    assert served["used"] is (request.param == "fork-server"), served
    yield {"out": out, "rows": rows, "evidence": json.loads(line[len("HOSTILE "):]), "canary": canary,
           "run_id": json.loads((out / "run.json").read_text())["run_id"], "image": request.param,
           "environment": json.loads((out / "observations" / "hostile" / "environment.json").read_text())}
    shutil.rmtree(canary, ignore_errors=True)


def test_the_hostile_row_is_an_error_row_and_the_reference_row_is_measured(run):
    hostile, reference = run["rows"]["hostile"], run["rows"]["reference-naive"]
    assert not hostile["evaluable"] and hostile["metric"] is None
    assert "hostile SUT" in hostile["not_evaluable_reason"]
    assert {c["verdict"] for c in hostile["cells"].values()} <= {"error", "n/a"}
    assert [reference["cells"][c]["verdict"] for c in CASE_IDS] == ["ACCEPTED"] * 10
    assert reference["evaluable"] and reference["controls"]["C3"]["ok"]


def test_writes_outside_its_volumes_fail_and_the_host_is_untouched(run):
    escape = run["evidence"]["escape"]
    outside = {k: v for k, v in escape.items() if k.startswith("write ")}
    assert len(outside) == 4 and all(v != "DONE" for v in outside.values()), outside
    assert "Read-only file system" in escape["write /etc/memlab-hostile"]
    assert escape["setuid 0"].startswith("PermissionError") and escape["chown volume to root"].startswith("Permission")
    assert escape["docker socket"] == []
    assert escape["control: write own volume"] == "DONE" and escape["control: write /tmp"] == "DONE"
    if os.geteuid() == 0:
        assert escape["uid"] != 0
    assert list(run["canary"].iterdir()) == []


def test_the_network_is_out_of_reach(run, listener):
    net = run["evidence"]["network"]
    assert net["interfaces"] == ["lo"]
    assert net["connect 127.0.0.1"].startswith("ConnectionRefusedError")
    with pytest.raises(BlockingIOError):
        listener.accept()  # nothing reached the host's loopback


def test_the_fork_bomb_is_bounded_and_gone_with_its_container(run):
    fork = run["evidence"]["fork"]
    assert fork["refused"].startswith("BlockingIOError")
    assert fork["processes seen"] <= Limits().pids
    assert containers(run["run_id"]) == []
    assert run_processes(run["run_id"]) == []


def test_the_image_ran_is_the_one_the_row_names(run):
    detail = run["environment"]["detail"]
    if run["image"] == "own image":
        assert detail["own_image"] == {"dockerfile": "own.Dockerfile"}
        assert detail["interpreter"] == "the image's entrypoint"
    else:
        assert "own_image" not in detail and detail["interpreter"] == "/opt/memlab/venv/bin/python"
    assert detail["network"] == "none" and detail["limits"] == {"memory": "1g", "pids": 256, "tmpfs": "256m"}
