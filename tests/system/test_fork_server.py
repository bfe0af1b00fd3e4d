"""The local runtime's fork server: each start a fresh forked child with the trial's environment.

A tiny driver in a temporary folder (this Python, the real kit) is started through
``LocalRuntime.launch`` with the fork server on and off: what its code sees (environment,
working folder, temp folder, argv, pid), what a stop and a kill leave behind, the launcher's
exit codes, the refusals (threads, a failing preload, the profile's opt-out) and ``gc``.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from lab.driver import DriverClient, DriverError
from lab.runtime import Prepared
from lab.runtime.housekeeping import RunRegistry, gc, new_run_id, track_server, wait_gone
from lab.runtime.local import LocalRuntime, _env
from resultsets import memlab

SUT = "import os\nLOADED_IN = os.getpid()\n"
DRIVER = '''
import os, signal, subprocess, sys, tempfile
import memlab_driver as kit
import fs_sut

TOP = {"home": os.environ.get("HOME"), "tmp": tempfile.gettempdir()}


class D(kit.Driver):
    def open(self, volumes, config):
        pass

    def describe(self):
        return {"sut": "fs", "version": "0", "libraries": {}, "capabilities": {},
                "pid": os.getpid(), "ppid": os.getppid(), "loaded_in": fs_sut.LOADED_IN, "top": TOP,
                "env": dict(os.environ), "cwd": os.getcwd(), "tmp": tempfile.gettempdir(),
                "argv": sys.argv, "path0": sys.path[0], "sid": os.getsid(0),
                "work": getattr(fs_sut, "work", lambda: None)(),
                "threads": sorted(open(f"/proc/self/task/{t}/comm").read().strip() for t in os.listdir("/proc/self/task"))}

    def write(self, context, text, meta):
        if text == "spawn":
            return {"id": str(subprocess.Popen(["sleep", "60"]).pid)}
        if text == "exit3":
            os._exit(3)
        os.kill(os.getpid(), signal.SIGUSR1)


if __name__ == "__main__":
    kit.serve(D)
'''


def make_driver(folder: Path, top: str = "", sut: str = SUT) -> Path:
    """A driver folder: driver.py (``top`` run first) and its SUT module fs_sut.py."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "fs_sut.py").write_text(sut)
    (folder / "driver.py").write_text(textwrap.dedent(top) + DRIVER)
    return folder


def profile(folder: Path, enabled: bool = True, preload: tuple[str, ...] = (),
            per_start: tuple[str, ...] = ()) -> SimpleNamespace:
    """What the runtime reads of a profile (lab.profile's Profile has these fields)."""
    return SimpleNamespace(row="fs-test", driver_dir=folder, timeouts={"start": 30.0, "op": 30.0},
                           fork_server=SimpleNamespace(enabled=enabled, preload=preload, per_start=per_start))


@pytest.fixture
def registry(cache):
    reg = RunRegistry(new_run_id())
    yield reg
    reg.close()


@pytest.fixture
def runtime():
    rt = LocalRuntime()
    yield rt
    rt.close()


def prepared(rt: LocalRuntime, prof, venv: Path) -> Prepared:
    """What LocalRuntime.prepare returns, for this Python (no venv built) and ``prof``."""
    server_env = {**_env(None, None), "FS_SERVER_ONLY": "1"}  # a variable no trial has
    note = (rt.fork_servers.prepare(prof, sys.executable, venv, server_env) if rt.use_fork_server
            else {"used": False, "reason": "--no-fork-server"})
    return Prepared(profile=prof, runtime="local", python=sys.version.split()[0], packages={},
                    detail={"venv": str(venv), "interpreter": sys.executable, "fork_server": note})


def start(rt, prep, registry, tmp: Path, n: int = 0) -> DriverClient:
    client = rt.launch(prep, {}, tmp / f"scratch-{n}", tmp / f"log-{n}.log", registry.run_id)
    client.on_start, client.on_stop = registry.track, registry.untrack
    client.start()
    assert client.call("open", 30, volumes={}, config={})["ok"]
    return client


def describe(client: DriverClient) -> dict:
    return client.call("describe", 30)["result"]


@pytest.fixture
def forked(runtime, registry, tmp_path):
    """A prepared fork-served driver (the server is up)."""
    prep = prepared(runtime, profile(make_driver(tmp_path / "drv")), tmp_path)
    assert prep.detail["fork_server"]["used"] is True, prep.detail["fork_server"]
    return prep


def test_the_driver_runs_forked_with_the_trials_environment_not_the_servers(runtime, registry, forked, tmp_path):
    client = start(runtime, forked, registry, tmp_path)
    seen = describe(client)
    client.stop()
    scratch = tmp_path / "scratch-0"
    assert client.argv[1:3] == ["-I", "-S"] and client.argv[3].endswith("fork_launch.py")
    assert seen["env"] == client.env  # replaced wholesale: nothing of the server's environment is left
    assert "FS_SERVER_ONLY" not in seen["env"]
    assert seen["top"] == {"home": str(scratch / "home"), "tmp": str(scratch / "tmp")}  # the driver's top level
    assert seen["tmp"] == str(scratch / "tmp")  # tempfile's folder, cached by the server's preload, is renewed
    assert seen["cwd"] == str(scratch)
    assert seen["argv"] == [str(forked.profile.driver_dir / "driver.py")]
    assert seen["path0"] == str(forked.profile.driver_dir)
    assert seen["loaded_in"] == seen["ppid"] != seen["pid"]  # the SUT module was imported by the server
    assert seen["sid"] == seen["pid"]  # its own session


def test_every_start_is_a_new_process(runtime, registry, forked, tmp_path):
    pids = []
    for n in range(3):
        client = start(runtime, forked, registry, tmp_path, n)
        pids.append(describe(client)["pid"])
        client.stop()
        assert wait_gone(pids[-1])
    assert len(set(pids)) == 3


@pytest.mark.parametrize("ending", ["stop", "kill"])
def test_a_stop_or_kill_ends_the_driver_and_its_children(runtime, registry, forked, tmp_path, ending):
    client = start(runtime, forked, registry, tmp_path)
    driver = describe(client)["pid"]
    grandchild = int(client.call("write", 30, context="c", text="spawn", meta={})["record"]["id"])
    getattr(client, ending)()
    assert wait_gone(driver) and wait_gone(grandchild)


@pytest.mark.parametrize("fork", [True, False], ids=["forked", "plain"])
@pytest.mark.parametrize("text, code", [("exit3", 3), ("usr1", -signal.SIGUSR1)])
def test_the_exit_code_is_the_drivers_on_both_paths(registry, tmp_path, fork, text, code):
    rt = LocalRuntime(fork_server=fork)
    try:
        prep = prepared(rt, profile(make_driver(tmp_path / "drv")), tmp_path)
        client = start(rt, prep, registry, tmp_path)
        with pytest.raises(DriverError, match=f"exited with code {code} before answering"):
            client.call("write", 30, context="c", text=text, meta={})
        client.stop()
    finally:
        rt.close()


def test_a_server_with_a_thread_after_preloading_refuses_and_the_plain_path_runs(runtime, registry, tmp_path):
    top = "import threading, time\nthreading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n"
    prep = prepared(runtime, profile(make_driver(tmp_path / "drv", top)), tmp_path)
    note = prep.detail["fork_server"]
    assert note["used"] is False and "2 threads run after preloading" in note["reason"]
    client = start(runtime, prep, registry, tmp_path)
    seen = describe(client)
    client.stop()
    assert client.argv[1:] == ["-u", str(tmp_path / "drv" / "driver.py")]
    assert seen["loaded_in"] == seen["pid"]


def test_jemallocs_background_thread_does_not_refuse_and_the_child_allocates_without_it(runtime, registry, tmp_path):
    """pyarrow starts jemalloc's background thread at import: a fork-safe pool (jemalloc's fork
    handlers stop it in the child), so the server serves, and the child allocates through pyarrow."""
    sut = SUT + "import pyarrow\n\ndef work():\n    return len(pyarrow.array(range(200_000)).to_pylist())\n"
    prep = prepared(runtime, profile(make_driver(tmp_path / "drv", sut=sut)), tmp_path)
    note = prep.detail["fork_server"]
    assert note["used"] is True, note
    client = start(runtime, prep, registry, tmp_path)
    seen = describe(client)
    client.stop()
    assert seen["loaded_in"] == seen["ppid"] != seen["pid"]  # pyarrow came with the server's preload
    assert seen["work"] == 200_000
    assert "jemalloc_bg_thd" not in seen["threads"]


def test_a_failing_preload_refuses(runtime, tmp_path):
    prof = profile(make_driver(tmp_path / "drv"), preload=("fs_no_such_module",))
    note = prepared(runtime, prof, tmp_path).detail["fork_server"]
    assert note["used"] is False
    assert "preloading fs_no_such_module failed: ModuleNotFoundError" in note["reason"]


def test_the_profile_opts_out(runtime, registry, tmp_path):
    prep = prepared(runtime, profile(make_driver(tmp_path / "drv"), enabled=False), tmp_path)
    assert prep.detail["fork_server"] == {"used": False,
                                          "reason": "the profile opts out (fork_server: {enabled: false})"}
    assert runtime.fork_servers._servers == {}  # none started
    client = start(runtime, prep, registry, tmp_path)
    client.stop()
    assert client.argv[1] == "-u"


def test_a_driver_without_the_kit_keeps_its_own_stdio_on_the_plain_path(runtime, registry, tmp_path):
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "driver.py").write_text(textwrap.dedent('''
        import json, sys
        for line in sys.stdin:
            req = json.loads(line)
            print(json.dumps({"id": req["id"], "ok": True, "result": {"sut": "plain"}}), flush=True)
    '''))
    prep = prepared(runtime, profile(folder), tmp_path)
    assert prep.detail["fork_server"]["used"] is False
    assert "does not import the driver kit" in prep.detail["fork_server"]["reason"]
    client = start(runtime, prep, registry, tmp_path)
    assert client.call("describe", 30)["result"] == {"sut": "plain"}
    client.stop()
    assert client.argv[1] == "-u"


def test_no_fork_server_keeps_the_plain_path(registry, tmp_path):
    rt = LocalRuntime(fork_server=False)
    prep = prepared(rt, profile(make_driver(tmp_path / "drv")), tmp_path)
    client = start(rt, prep, registry, tmp_path)
    seen = describe(client)
    client.stop()
    assert client.argv[1:] == ["-u", str(tmp_path / "drv" / "driver.py")]
    assert seen["loaded_in"] == seen["pid"] and rt.fork_servers._servers == {}


def test_a_launcher_whose_server_is_gone_starts_the_driver_plainly(runtime, registry, forked, tmp_path):
    client = runtime.launch(forked, {}, tmp_path / "s", tmp_path / "gone.log", registry.run_id)
    [server] = runtime.fork_servers._servers.values()
    server.stop()
    client.start()
    assert client.call("open", 30, volumes={}, config={})["ok"]
    seen = describe(client)
    client.stop()
    assert seen["loaded_in"] == seen["pid"]
    assert "fork server not serving" in (tmp_path / "gone.log").read_text()


def test_a_server_that_ended_idle_is_started_again_at_the_next_launch(runtime, registry, tmp_path, monkeypatch):
    monkeypatch.setattr("lab.runtime.forkserver.IDLE_SECONDS", 0.5)
    prep = prepared(runtime, profile(make_driver(tmp_path / "drv")), tmp_path)
    [server] = runtime.fork_servers._servers.values()
    assert server.proc.wait(timeout=10) == 0  # no driver ran for 0.5 s: it ended by itself
    client = start(runtime, prep, registry, tmp_path)
    seen = describe(client)
    client.stop()
    [again] = runtime.fork_servers._servers.values()
    assert again is not server and seen["ppid"] == again.proc.pid == seen["loaded_in"]


def test_a_killed_server_is_not_started_again_the_start_is_plain(runtime, registry, forked, tmp_path):
    [server] = runtime.fork_servers._servers.values()
    server.proc.kill()  # what a run's end, Ctrl-C and gc do
    server.proc.wait()
    client = start(runtime, forked, registry, tmp_path)
    seen = describe(client)
    client.stop()
    assert client.argv[1] == "-u" and seen["loaded_in"] == seen["pid"]


def test_the_first_start_records_its_modules_for_the_next_server(runtime, registry, forked, tmp_path):
    client = start(runtime, forked, registry, tmp_path)
    client.stop()
    [recorded] = tmp_path.glob(".memlab-modules-*.json")
    names = json.loads(recorded.read_text())
    assert "fs_sut" in names and "memlab_driver" in names and "__main__" not in names


def test_the_runs_end_and_gc_end_the_server(cache, tmp_path):
    rt = LocalRuntime()
    reg = RunRegistry(new_run_id())
    prep = prepared(rt, profile(make_driver(tmp_path / "drv")), tmp_path)
    client = start(rt, prep, reg, tmp_path)
    driver = describe(client)["pid"]
    [server] = rt.fork_servers._servers.values()
    reg.kill_all()  # Ctrl-C: the tracked launcher, the server and the driver it forked
    assert wait_gone(driver) and server.proc.wait(timeout=5) == -signal.SIGKILL  # (our child: reaped, not polled)
    assert not server.folder.exists()  # its socket, log and HOME went with it
    client.kill()
    reg.close()
    leftover = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    stale = RunRegistry(new_run_id())
    track_server(stale.run_id, leftover.pid)
    (stale.dir / "owner").write_text("999999 1")  # its memlab process is gone
    assert f"fork-served process {leftover.pid}" in gc()
    assert leftover.wait(timeout=5) == -signal.SIGKILL
    rt.close()
    assert not server.folder.exists()


def test_memlab_run_with_and_without_no_fork_server_gives_the_same_row(tmp_path, cache):
    sets = {}
    for flag in ((), ("--no-fork-server",)):
        out = tmp_path / ("plain" if flag else "forked")
        proc = memlab("run", "--runtime", "local", "--sut", "reference-sealed", "--nonce", "tests", "--out", out,
                      *flag, cache=cache)
        assert proc.returncode == 0, proc.stderr
        env = json.loads((out / "observations" / "reference-sealed" / "environment.json").read_text())
        [row] = [json.loads(p.read_text()) for p in (out / "rows").glob("*.json")]
        sets[bool(flag)] = (env, row)
    (forked_env, forked), (plain_env, plain) = sets[False], sets[True]
    assert forked_env["detail"]["fork_server"]["used"] is True
    assert plain_env["detail"]["fork_server"] == {"used": False, "reason": "--no-fork-server"}
    same = ("python", "packages")
    assert {k: forked_env[k] for k in same} == {k: plain_env[k] for k in same}
    assert forked_env["detail"]["interpreter"] == plain_env["detail"]["interpreter"]
    assert {c: v["verdict"] for c, v in forked["cells"].items()} == {c: v["verdict"] for c, v in plain["cells"].items()}
    assert forked["controls"] == plain["controls"]
