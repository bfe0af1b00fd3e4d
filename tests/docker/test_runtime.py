"""The docker runtime's choices: auto picks it, prepare reads the image, launch hardens the container."""

import os

import pytest

from lab.profile import load_profiles, select
from lab.runtime import get_runtime

pytestmark = pytest.mark.docker


def test_auto_picks_docker_where_an_engine_answers():
    assert get_runtime("auto").name == "docker"


def test_launch_argv_is_hardened(tmp_path, cache):
    runtime = get_runtime("docker")
    profile = select(load_profiles(), ["reference-sealed"])[0]
    prepared = runtime.prepare(profile)
    vols = {name: tmp_path / name for name in profile.volumes}
    for path in vols.values():
        path.mkdir()
    client = runtime.launch(prepared, vols, tmp_path / "scratch", tmp_path / "log", "run-x")
    argv = " ".join(client.argv)
    for flag in ("run -i --rm --init", "--label memlab.run=run-x", "--cap-drop ALL",
                 "--security-opt no-new-privileges", "--read-only", "--tmpfs /tmp:", "--memory ", "--pids-limit ",
                 "--network none", f"--user {prepared.detail['user']}"):
        assert flag in argv, flag
    assert "docker.sock" not in argv and "--privileged" not in argv
    assert client.volume_paths == {name: f"/vol/{name}" for name in profile.volumes}
    assert client.argv[-1] == prepared.detail["image_id"]
    if os.geteuid() == 0:  # a root lab hands the volumes to the image's non-root user
        assert prepared.detail["user"] == "10001:10001" and all(p.stat().st_uid == 10001 for p in vols.values())
