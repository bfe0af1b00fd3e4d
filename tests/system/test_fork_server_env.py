"""A fork server never hands a start its own environment: a SUT that reads it at import.

A SUT module that reads ``HOME`` at import and writes a file there: preloaded by the server, it
would hold the server's ``HOME`` in every start and write into the server's folder. The server
refuses it (a module global holding the server's path); named in ``fork_server.per_start`` (as
an installed distribution), it is never preloaded, not even from the modules a first start
recorded, so each start imports it under its own ``HOME``, and the server's folders stay empty.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from test_fork_server import describe, prepared, profile, registry, runtime, start  # noqa: F401  (fixtures)

SUT = """
import os
HOME = os.environ["HOME"]                  # read at import, as Mem0's MEM0_DIR or Hermes's HERMES_HOME
with open(os.path.join(HOME, "sut-was-here"), "w") as f:
    f.write(str(os.getpid()))
"""
DRIVER = """
import os, sys
import memlab_driver as kit
{top}

class D(kit.Driver):
    def open(self, volumes, config):
        import fs_sut  # after the trial's environment is in place, as the real drivers do
        self.sut = fs_sut

    def describe(self):
        return {{"sut": "fs", "version": "0", "sut_home": self.sut.HOME, "home": os.environ["HOME"]}}


if __name__ == "__main__":
    kit.serve(D)
"""


def sut_driver(folder: Path, top: str = "") -> Path:
    """A driver folder with the SUT module fs_sut, installed as the distribution fs-sut."""
    folder.mkdir(parents=True)
    (folder / "fs_sut.py").write_text(SUT)
    (folder / "driver.py").write_text(DRIVER.format(top=textwrap.dedent(top)))
    info = folder / "fs_sut-0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fs-sut\nVersion: 0\n")
    (info / "top_level.txt").write_text("fs_sut\n")
    return folder


def server_files(rt) -> list[str]:
    """Every file under the servers' own HOME, XDG_CONFIG_HOME and TMPDIR."""
    return [str(p) for folder in rt.fork_servers.folders() for sub in ("home", "config", "tmp")
            for p in (folder / sub).rglob("*")]


def test_a_preloaded_module_holding_the_servers_home_refuses(runtime, tmp_path):
    prof = profile(sut_driver(tmp_path / "drv", top="import fs_sut"))
    note = prepared(runtime, prof, tmp_path).detail["fork_server"]
    assert note["used"] is False
    assert "server's own paths in fs_sut.HOME" in note["reason"] and "per_start" in note["reason"]


def test_a_per_start_distribution_the_driver_imports_at_its_top_level_refuses(runtime, tmp_path):
    prof = profile(sut_driver(tmp_path / "drv", top="import fs_sut"), per_start=("fs-sut",))
    note = prepared(runtime, prof, tmp_path).detail["fork_server"]
    assert note["used"] is False and "preloading imported fs_sut" in note["reason"]


def test_per_start_naming_a_distribution_not_installed_refuses(runtime, tmp_path):
    prof = profile(sut_driver(tmp_path / "drv"), per_start=("no-such-dist",))
    note = prepared(runtime, prof, tmp_path).detail["fork_server"]
    assert note["used"] is False and "per_start names no-such-dist, which is not installed" in note["reason"]


def test_a_per_start_sut_is_imported_by_every_start_under_its_own_home(runtime, registry, tmp_path):
    prof = profile(sut_driver(tmp_path / "drv"), per_start=("fs-sut",))
    homes = []
    for n in range(2):  # the second server preloads what the first start recorded, fs_sut left out
        runtime.fork_servers.close()
        prep = prepared(runtime, prof, tmp_path)
        assert prep.detail["fork_server"]["used"] is True and prep.detail["fork_server"]["per_start"] == ["fs-sut"]
        client = start(runtime, prep, registry, tmp_path, n)
        seen = describe(client)
        assert server_files(runtime) == []  # nothing of the SUT's landed in the server's folders
        client.stop()
        homes.append(seen["sut_home"])
        assert seen["sut_home"] == seen["home"] == str(tmp_path / f"scratch-{n}" / "home")
        assert (Path(seen["home"]) / "sut-was-here").is_file()
    [recorded] = tmp_path.glob(".memlab-modules-*.json")  # what the first start loaded: fs_sut among them
    assert "fs_sut" in json.loads(recorded.read_text())
    assert not list(tmp_path.glob(".memlab-modules-*.cut"))  # left out of the preload, not cut after importing it
    assert len(set(homes)) == 2


def test_a_global_the_profile_names_unused_does_not_refuse(runtime, tmp_path):
    prof = profile(sut_driver(tmp_path / "drv", top="import fs_sut"))
    prof.fork_server.unused_paths = ("fs_sut.HOME",)  # say: read at import, never used after it
    assert prepared(runtime, prof, tmp_path).detail["fork_server"]["used"] is True


PLACEHOLDER_DRIVER = """
import os
import memlab_driver as kit
from memlab_driver import fork_placeholder

if __name__ == "__memlab_preload__" and fork_placeholder.enter():
    import fs_sut  # noqa: F401  (the server imports the SUT under its placeholder)


class D(kit.Driver):
    def open(self, volumes, config):
        if fork_placeholder.ROOT is not None and {rebind}:
            fork_placeholder.rebind()
        import fs_sut
        self.sut = fs_sut

    def describe(self):
        return {{"sut": "fs", "version": "0", "sut_home": self.sut.HOME, "home": os.environ["HOME"]}}


if __name__ == "__main__":
    kit.serve(D)
"""


def placeholder_driver(folder: Path, rebind: bool) -> Path:
    """The SUT of sut_driver, imported by the server under the placeholder; ``open`` rebinds it or not."""
    sut_driver(folder)
    (folder / "driver.py").write_text(PLACEHOLDER_DRIVER.format(rebind=rebind))
    return folder


def sealed(rt) -> dict[str, bool]:
    """Each placeholder variable: whether it is an empty regular file (sealed)."""
    return {p.name: p.is_file() and p.stat().st_size == 0 for folder in rt.fork_servers.folders()
            for p in (folder / "placeholder").iterdir()}


def test_a_sut_preloaded_under_the_placeholder_is_rebound_to_each_starts_home(runtime, registry, tmp_path):
    prof = profile(placeholder_driver(tmp_path / "drv", rebind=True))
    prep = prepared(runtime, prof, tmp_path)
    assert prep.detail["fork_server"]["used"] is True  # fs_sut.HOME is under the placeholder: rebound, not refused
    assert sealed(runtime) == {"HOME": True, "XDG_CONFIG_HOME": True, "TMPDIR": True}  # what fs_sut wrote is gone
    for n in range(2):
        client = start(runtime, prep, registry, tmp_path, n)
        seen = describe(client)
        client.stop()
        assert seen["sut_home"] == seen["home"] == str(tmp_path / f"scratch-{n}" / "home")
    assert server_files(runtime) == [] and all(sealed(runtime).values())


def test_a_start_that_does_not_rebind_the_placeholder_is_refused(runtime, registry, tmp_path):
    prof = profile(placeholder_driver(tmp_path / "drv", rebind=False))
    prep = prepared(runtime, prof, tmp_path)
    client = runtime.launch(prep, {}, tmp_path / "scratch-0", tmp_path / "log-0.log", registry.run_id)
    client.on_start, client.on_stop = registry.track, registry.untrack
    client.start()
    try:
        answer = client.call("open", 30, volumes={}, config={})
        assert answer["ok"] is False and "did not rebind" in answer["error"]["message"]
    finally:
        client.stop()
