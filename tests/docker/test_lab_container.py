"""The lab in its own container: the testcontainers fixture a team's CI uses, and compose/."""

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.docker
COMPOSE = Path(__file__).resolve().parents[2] / "compose" / "docker-compose.yml"


def test_a_ci_suite_runs_rows_in_the_lab_container_and_asserts_on_levels(memlab):
    result = memlab.run("reference-sealed", "reference-naive")
    assert result.exit_code == 0, result.output
    assert result.level("reference-sealed") == "L4"
    assert result.verdicts("reference-naive")["T1"] == "ACCEPTED"
    assert result.accepted() and all(a.startswith("reference-naive@read:") for a in result.accepted())
    assert result.row("reference-sealed")["runtime"]["runtime"] == "docker"


def test_the_gate_fails_the_build_through_the_fixture(memlab):
    result = memlab.run("reference-naive", args=("--fail-on", "accepted"))
    assert result.exit_code == 1, result.output
    assert "gate failed" in result.output


def test_compose_gives_the_socket_to_the_lab_only_and_aligns_the_scratch_path():
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    assert list(services) == ["lab"]
    lab = services["lab"]
    mounts = [m.split(":") for m in lab["volumes"]]
    assert ["/var/run/docker.sock", "/var/run/docker.sock"] in [m[:2] for m in mounts]
    scratch = lab["environment"]["MEMLAB_SCRATCH"]
    assert [scratch, scratch] in [m[:2] for m in mounts]  # the engine bind-mounts trial volumes from it
    assert lab["network_mode"] == "host" and lab["image"] == "memlab/lab:latest"


def test_compose_runs_the_lab_for_real(tmp_path):
    tool = shutil.which("docker-compose")
    assert tool, "docker-compose is missing: scripts/test.d installs it"
    from lab.runtime.images import ensure_lab

    ensure_lab()
    scratch = Path("/tmp/memlab-scratch")
    scratch.mkdir(mode=0o711, exist_ok=True)
    scratch.chmod(0o711)  # the lab's alone (compose/docker-compose.yml): one others may write in is refused
    config = subprocess.run([tool, "-f", str(COMPOSE), "config"], capture_output=True, text=True)
    assert config.returncode == 0, config.stderr
    out = COMPOSE.parent.parent / "results" / f"compose-{tmp_path.name}"
    try:
        run = subprocess.run([tool, "-f", str(COMPOSE), "run", "--rm", "lab", "run", "--runtime", "docker",
                              "--sut", "reference-naive", "--out", f"/work/results/{out.name}"],
                             capture_output=True, text=True, timeout=900)
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
        assert (out / "rows" / "reference-naive@read.json").is_file()
    finally:
        shutil.rmtree(out, ignore_errors=True)
