"""The docker runtime's fork server: each start a new process forked in its row's hardened container.

A probe driver (tests/docker/forkprobe/, the real kit, an image of its own) is started through
``DockerRuntime.launch``: what its code sees (environment, working folder, pid, container), what
a kill and a stop leave inside the container, each start's own log, the refusals (the profile's
opt-out, a preload that starts a thread, ``fork_server=False``), the server ending when idle,
the run's end and ``gc``; then the reference rows give the same cells with the server on and off.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest

import lab.runtime.docker_forkserver as docker_forkserver
from docker_helpers import ROOT, containers
from lab.cases import CASE_IDS
from lab.runtime.docker import DockerRuntime
from lab.runtime.docker_forkserver import CONTAINER_DRIVER, CONTAINER_PYTHON
from lab.runtime.dockercli import docker
from lab.runtime.housekeeping import RunRegistry, gc, new_run_id
from sharding import on_docker, session_set

pytestmark = pytest.mark.docker
PROBE = ROOT / "tests" / "docker" / "forkprobe"


def probe(enabled: bool = True, preload: tuple[str, ...] = ()) -> SimpleNamespace:
    """What the docker runtime reads of a profile (lab.profile's Profile has these fields)."""
    return SimpleNamespace(row="forkprobe", driver="forkprobe", driver_dir=PROBE, image=None, services=[],
                           timeouts={"start": 60.0, "op": 30.0}, limits={"line_bytes": 1 << 24, "answer_bytes": 1 << 24},
                           fork_server=SimpleNamespace(enabled=enabled, preload=preload, per_start=(), unused_paths=()))


@pytest.fixture
def rig(cache):
    """A docker runtime and a run of its own, both ended after the test."""
    rt, reg = DockerRuntime(), RunRegistry(new_run_id())
    yield rt, reg
    reg.close()
    rt.close()


def start(rt: DockerRuntime, prep, registry: RunRegistry, name: str):
    """A started, opened probe on a fresh volume under the row's folder; the client and its scratch."""
    row = registry.scratch_root / "forkprobe"
    store = row / "trials" / name / "store"
    store.mkdir(parents=True)
    scratch = row / "scratch" / name
    client = rt.launch(prep, {"store": store}, scratch, row / "logs" / f"{name}.log", registry.run_id)
    client.on_start, client.on_stop = registry.track, registry.untrack
    client.start()
    assert client.call("open", 60, volumes=client.volume_paths, config={})["ok"]
    return client, scratch


def seen(client) -> dict:
    return client.call("describe", 30)["result"]


def server_of(registry: RunRegistry) -> str:
    [name] = [n for n in containers(registry.run_id) if "-forkserver-" in n]
    return name


def processes(container: str) -> list[str]:
    """The command lines running in ``container`` (as the engine lists them)."""
    out = docker("top", container, "-o", "pid,args", check=False).stdout
    return [line.split(None, 1)[1].strip() for line in out.splitlines()[1:] if len(line.split(None, 1)) == 2]


def test_each_start_is_a_new_process_forked_in_the_rows_container_with_the_trials_environment(rig, monkeypatch):
    runtime, registry = rig
    monkeypatch.setenv("FORKPROBE_HOST_ONLY", "1")  # the host's environment never reaches a start
    prep = runtime.prepare(probe())
    assert prep.detail["fork_server"]["pending"] is True and prep.detail["fork_server"]["used"] is False
    first, scratch = start(runtime, prep, registry, "one")
    one = seen(first)
    first.stop()
    second, _ = start(runtime, prep, registry, "two")
    two = seen(second)
    second.stop()
    assert prep.detail["fork_server"]["used"] is True and prep.detail["fork_server"]["preloaded_modules"] > 10
    assert "pending" not in prep.detail["fork_server"]
    assert first.argv[0] == sys.executable and "fork_launch.py" in first.argv[3]  # a launcher, no docker client
    assert one["pid"] != two["pid"] and one["loaded_in"] == two["loaded_in"] != one["pid"]  # imported in the server
    server = server_of(registry)
    hostname = docker("inspect", "--format", "{{.Config.Hostname}}", server).stdout.strip()
    assert one["hostname"] == two["hostname"] == hostname
    assert one["pid1"].endswith("docker-init") and one["argv"] == [CONTAINER_DRIVER]
    env = one["env"]
    assert (env["HOME"], env["TMPDIR"], env["XDG_CONFIG_HOME"]) == (
        str(scratch / "home"), str(scratch / "tmp"), str(scratch / "config"))
    assert one["tmp"] == str(scratch / "tmp") and one["cwd"] == str(scratch)
    assert one["fixed"] == two["fixed"] == f"/tmp/memlab-mounts/{registry.run_id}/probe/store"  # stable across starts
    assert env["MEMLAB_RUN_ID"] == registry.run_id and env["MEMLAB_RUNTIME"] == "docker"
    assert env["MEMLAB_FORK_SERVED"] == "1" and env["PYTHONPATH"] == "/opt/memlab/images/driverkit"
    assert "FORKPROBE_HOST_ONLY" not in env and "MEMLAB_FORK_REMOTE" not in env
    if os.geteuid() == 0:
        assert one["uid"] == 10001
    logs = registry.scratch_root / "forkprobe" / "logs"
    assert (logs / "one.log").read_text().splitlines() == [f"forkprobe start {one['pid']}"]
    assert (logs / "two.log").read_text().splitlines() == [f"forkprobe start {two['pid']}"]


def test_a_kill_ends_the_driver_and_its_children_inside_the_container_at_once(rig):
    runtime, registry = rig
    prep = runtime.prepare(probe())
    client, _ = start(runtime, prep, registry, "kill")
    client.call("write", 30, context="a", text="spawn", meta={})
    server = server_of(registry)
    assert "sleep 300" in processes(server)
    client.kill()  # the launcher dies; its closed connection is the server's word to kill the group
    deadline = time.monotonic() + 10  # the sleep would otherwise live its 300 s
    while any(p == "sleep 300" for p in processes(server)) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = processes(server)
    assert "sleep 300" not in left and sum(p.startswith(CONTAINER_PYTHON) for p in left) == 1, left  # the server


def test_a_stop_passes_sigterm_to_a_driver_that_outlives_its_input(rig):
    runtime, registry = rig
    prep = runtime.prepare(probe())
    client, _ = start(runtime, prep, registry, "deaf")
    client.call("write", 30, context="a", text="deaf", meta={})
    client.stop(grace=1.0)
    store = registry.scratch_root / "forkprobe" / "trials" / "deaf" / "store"
    assert (store / "sigterm").is_file(), "the driver inside never got the stop's SIGTERM"


def test_refusals_take_the_plain_path_and_say_why(rig):
    _, registry = rig
    plain_runtimes = {"opt-out": (DockerRuntime(), probe(enabled=False), "the profile opts out"),
                      "thread": (DockerRuntime(), probe(preload=("forkprobe_threads",)), "threads run"),
                      "off": (DockerRuntime(fork_server=False), probe(), "--no-fork-server")}
    try:
        for name, (rt, prof, why) in plain_runtimes.items():
            prep = rt.prepare(prof)
            client, _ = start(rt, prep, registry, name)
            state = seen(client)
            client.stop()
            assert client.argv[1] == "run", name  # a container of its own
            assert state["fixed"] == "/vol/store", name  # its mount point, stable across starts
            assert state["loaded_in"] == state["pid"], name  # its imports paid by this start
            assert prep.detail["fork_server"]["used"] is False and why in prep.detail["fork_server"]["reason"], \
                (name, prep.detail["fork_server"])
    finally:
        for rt, _, _ in plain_runtimes.values():
            rt.close()
    assert not [n for n in containers(registry.run_id) if "-forkserver-" in n]


def test_an_idle_server_ends_and_the_next_start_gets_a_new_one(rig, monkeypatch):
    runtime, registry = rig
    monkeypatch.setattr(docker_forkserver, "IDLE_SECONDS", 1.0)
    prep = runtime.prepare(probe())
    client, _ = start(runtime, prep, registry, "before")
    client.stop()
    first = server_of(registry)
    deadline = time.monotonic() + 30
    while first in containers(registry.run_id) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert first not in containers(registry.run_id), "the idle server did not end"
    client, _ = start(runtime, prep, registry, "after")
    assert seen(client)["pid"]
    client.stop()
    assert server_of(registry) != first


def test_the_runs_end_and_gc_remove_the_server_container(rig):
    runtime, _ = rig
    prep = runtime.prepare(probe())
    ended = RunRegistry(new_run_id())
    client, _ = start(runtime, prep, ended, "ended")
    client.stop()
    assert server_of(ended)
    ended.close()
    assert containers(ended.run_id) == []

    crashed = RunRegistry(new_run_id())
    client, _ = start(runtime, prep, crashed, "crashed")
    name = server_of(crashed)
    gone = subprocess.Popen(["true"])
    gone.wait()
    (crashed.dir / "owner").write_text(f"{gone.pid} 1")  # its memlab process is gone
    removed = gc()
    assert f"container {name}" in removed and containers(crashed.run_id) == []
    client.kill()


def _cells(row: dict) -> dict:
    return {"cells": {c: (row["cells"][c]["verdict"], row["cells"][c].get("detection_point"),
                          row["cells"][c].get("observation_class")) for c in CASE_IDS},
            "controls": {c: row["controls"][c]["ok"] for c in ("C1", "C2", "C3")},
            "score": (row["metric"], row["level"], row["evaluable"])}


def test_the_reference_rows_give_the_same_cells_with_the_fork_server_on_and_off(tmp_path_factory):
    """Plain starts on docker cost about 400 s for every reference row, so three rows stand for the
    rest: the plain file row, the one with an audit, and the one whose store is a service."""
    plain = ("reference-naive", "reference-audit", "reference-naive-redis")
    sets = {"on": on_docker(tmp_path_factory),  # the session's docker set, which the parity test reads too
            "off": session_set(tmp_path_factory, "reference-docker-plain", "--runtime", "docker", "--no-fork-server",
                               *(arg for row in plain for arg in ("--sut", row)))}
    seconds = {k: (path.parent / "seconds").read_text() for k, path in sets.items()}
    print(f"\nreference rows on docker: fork server off {seconds['off']} s ({len(plain)} rows), on {seconds['on']} s (all)")
    rows = {k: {p.stem: json.loads(p.read_text()) for p in (path / "rows").glob("*.json")} for k, path in sets.items()}
    assert {name.split("@")[0] for name in rows["off"]} == set(plain)
    assert {name.split("@")[0] for name in rows["on"]} >= set(plain) and len(rows["on"]) >= 9
    for name, off in rows["off"].items():
        assert _cells(rows["on"][name]) == _cells(off), name
    for key, used in (("on", True), ("off", False)):
        for env in (sets[key] / "observations").glob("*/environment.json"):
            note = json.loads(env.read_text())["detail"]["fork_server"]
            assert note["used"] is used, (key, env.parent.name, note)


def test_a_remote_launcher_without_its_server_fails_and_never_starts_the_plain_command(tmp_path):
    marker = tmp_path / "plain-ran"
    plain = [sys.executable, "-c", f"open({str(marker)!r}, 'w').close()"]
    done = subprocess.run([sys.executable, "-I", "-S", str(docker_forkserver.KIT / "fork_launch.py"),
                           str(tmp_path / "no.sock"), "-", "-", "--", *plain], capture_output=True, text=True,
                          env={"MEMLAB_FORK_REMOTE": "1", "PATH": os.environ["PATH"]}, timeout=30)
    assert done.returncode == 127 and "no plain start here" in done.stderr, done.stderr
    assert not marker.exists()


def test_a_module_record_is_read_only_from_a_plain_file_of_module_names(tmp_path):
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps(["os", "json"]))
    (tmp_path / "link.json").symlink_to(outside)
    (tmp_path / "junk.json").write_text(json.dumps(["os", "../../etc/passwd"]))
    assert docker_forkserver.read_record(outside) == ["os", "json"]
    assert docker_forkserver.read_record(tmp_path / "link.json") is None  # a link the SUT put there
    assert docker_forkserver.read_record(tmp_path / "junk.json") is None
    assert docker_forkserver.read_record(tmp_path / "missing.json") is None
