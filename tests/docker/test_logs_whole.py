"""A SUT container's log (its stderr) is kept whole on every path that ends it by force, under an
artificial CPU load (burners started and stopped by their PIDs), on the docker runtime.

The driver (written here, built into its own SUT image) writes numbered lines and an ``END`` line
to stderr. A kill right after an answer, a stop that escalates to a kill, and a timeout while
the ``docker run`` client is starved (held with SIGSTOP: under load it gets no CPU while the
engine holds the container's output) must all leave every line in the SUT's log. Before the fix
the client was killed first and whatever it had not copied yet was lost with it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import yaml

from lab.driver import DriverError
from lab.profile import load_profile
from lab.runtime.docker import DockerRuntime
from lab.runtime.dockercli import docker
from lab.runtime.housekeeping import RunRegistry, new_run_id

pytestmark = pytest.mark.docker

LINES = 4000  # ~0.5 MB: more than a pipe holds, so the engine still copies when the answer arrives

DRIVER = '''
import signal, sys, threading, time
from pathlib import Path
import memlab_driver as kit

STORE = Path("/vol/store")
if (STORE / "wait-for-go").exists():  # the starved-client test: write when told to, then serve
    while not (STORE / "go").exists():
        time.sleep(0.02)
    for i in range(int((STORE / "wait-for-go").read_text())):
        print(f"line {i:06d} " + "x" * 110, file=sys.stderr)
    print("END", file=sys.stderr, flush=True)
    (STORE / "done").touch()


class BurstDriver(kit.Driver):
    """Writes LINES numbered lines and END to stderr, then answers open."""

    def open(self, volumes, config):
        for i in range(config["lines"]):
            print(f"line {i:06d} " + "x" * 110, file=sys.stderr)
        print("END", file=sys.stderr, flush=True)
        if config.get("linger"):  # never ends by itself: stdin closed and SIGTERM are ignored
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            threading.Thread(target=time.sleep, args=(3600,)).start()

    def describe(self):
        return {"sut": "memlab-log-burst-test", "version": "0", "libraries": {}, "capabilities": {}}


if __name__ == "__main__":
    kit.serve(BurstDriver)
'''


@pytest.fixture(scope="module")
def prepared(tmp_path_factory, cache):
    """The burst driver's SUT image, prepared by the docker runtime."""
    root = tmp_path_factory.mktemp("logburst")
    (root / "logburst").mkdir()
    (root / "logburst" / "driver.py").write_text(textwrap.dedent(DRIVER))
    profile = {"row": "logburst", "title": "a driver that writes a burst to stderr (tests/docker/test_logs_whole.py)",
               "status": "runnable", "sut": {"package": "memlab-log-burst-test", "version": "0", "commit": None},
               "driver": str(root / "logburst"), "volumes": {"store": {"adversary": True}},
               "store": {"backend": "jsonl", "volume": "store", "file": "memory.jsonl", "context": "ctx",
                         "identity": ["id"], "order": "@position", "payload": "text"},
               "capabilities": {"erasure": "none", "order": True, "metadata": False, "snapshot": True},
               "configuration": {}, "detection_points": ["read"], "timeouts": {"start": 120, "op": 60}}
    (root / "logburst.yaml").write_text(yaml.safe_dump(profile))
    runtime = DockerRuntime()
    return runtime, runtime.prepare(load_profile(root / "logburst.yaml"))


@pytest.fixture
def load():
    """CPU burners, two per core, started here and stopped by their own PIDs."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2 * (os.cpu_count() or 1))]
    yield
    for proc in burners:
        proc.kill()
        proc.wait()


def containers_named(name: str) -> list[str]:
    """The containers (running or not) of that name."""
    return docker("ps", "-a", "--filter", f"name=^{name}$", "--format", "{{.Names}}").stdout.split()


def _launch(prepared, tmp_path: Path, name: str, lines_on_go: int = 0, registry: RunRegistry | None = None):
    runtime, prep = prepared
    store = tmp_path / name / "store"
    store.mkdir(parents=True)
    if lines_on_go:
        (store / "wait-for-go").write_text(str(lines_on_go))
    client = runtime.launch(prep, {"store": store}, tmp_path / name / "scratch", tmp_path / name / "sut.log",
                            registry.run_id if registry else f"logs-{name}")
    if registry:
        client.on_start, client.on_stop = registry.track, registry.untrack
    return client.start()


def _assert_whole(log: Path, count: int = LINES) -> None:
    lines = log.read_text().splitlines()
    numbered = [ln for ln in lines if ln.startswith("line ")]
    expected = [f"line {i:06d} " + "x" * 110 for i in range(count)]
    found = set(numbered) & set(expected)
    assert "END" in lines and len(found) == count, (
        f"{log}: {len(found)} of {count} lines, END {'present' if 'END' in lines else 'missing'}; last: {lines[-3:]}")


@pytest.mark.parametrize("attempt", range(3))
def test_a_kill_right_after_the_answer_keeps_the_whole_log(prepared, tmp_path, load, attempt):
    client = _launch(prepared, tmp_path, f"kill{attempt}")
    client.call("open", 120, volumes=client.volume_paths, config={"lines": LINES})
    client.kill()
    assert client._proc.poll() is not None
    _assert_whole(client.log_path)


def test_a_stop_that_escalates_to_a_kill_keeps_the_whole_log(prepared, tmp_path, load):
    client = _launch(prepared, tmp_path, "linger")
    client.call("open", 120, volumes=client.volume_paths, config={"lines": LINES, "linger": True})
    proc = client._proc
    client.stop(grace=0.5)  # the driver ignores EOF and SIGTERM: the stop ends in a kill
    _assert_whole(client.log_path)
    assert proc.returncode is not None and not containers_named(client.container)


def _wait_for(predicate, what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, f"no {what} within {seconds:g} s"
        time.sleep(0.05)


def test_a_timeout_while_the_client_is_starved_keeps_the_whole_log(prepared, tmp_path, load):
    count = 200  # what the engine holds for a stalled client without blocking the container
    client = _launch(prepared, tmp_path, "starved", lines_on_go=count)
    store = tmp_path / "starved" / "store"
    _wait_for(lambda: docker("inspect", "--format", "{{.State.Running}}", client.container,
                             check=False).stdout.strip() == "true", "running container")
    os.kill(client.pid, signal.SIGSTOP)  # the client gets no CPU from here on, the engine does
    (store / "go").touch()
    _wait_for(lambda: (store / "done").exists(), "burst written by the driver")
    with pytest.raises(DriverError, match="no answer within 2 s"):  # the client never passes the request on
        client.call("open", 2, volumes=client.volume_paths, config={"lines": 0})
    assert client._proc.poll() is not None and not containers_named(client.container)
    _assert_whole(client.log_path, count)
    assert "the engine's log of" in client.log_path.read_text()


def test_ctrl_c_while_the_client_is_starved_keeps_the_whole_log(prepared, tmp_path, load, cache):
    """The run's Ctrl-C path (RunRegistry.kill_all) reads the engine's log before it kills anything."""
    count = 200
    registry = RunRegistry(new_run_id())
    try:
        client = _launch(prepared, tmp_path, "ctrlc", lines_on_go=count, registry=registry)
        store = tmp_path / "ctrlc" / "store"
        _wait_for(lambda: docker("inspect", "--format", "{{.State.Running}}", client.container,
                                 check=False).stdout.strip() == "true", "running container")
        os.kill(client.pid, signal.SIGSTOP)
        (store / "go").touch()
        _wait_for(lambda: (store / "done").exists(), "burst written by the driver")
        registry.kill_all()
        _wait_for(lambda: not containers_named(client.container), "container removed", 30)
        _assert_whole(client.log_path, count)
        assert "the engine's log of" in client.log_path.read_text()
    finally:
        registry.close()
