"""The rows whose SUT reads its environment at import, under the fork server: each start's own paths.

mem0-qdrant-local, crewai-ltm-lancedb, hermes-memory-md, letta-block-history and the memory-blackbox
rows name their SUT in ``fork_server.per_start``: the server preloads only dependencies, never the
SUT. Started as a run starts them (local runtime, fork server on), written to, restarted and read: the server
serves (no refusal), nothing lands in the server's own HOME, XDG_CONFIG_HOME or TMPDIR, and what
the SUT resolves from its environment at import lands in the trial's volume or scratch folder.

CrewAI is preloaded instead, under the server's sealed placeholder, and each start rebinds it
(images/crewai/driver.py ``rebind_crewai``): the placeholder stays sealed (an empty file per
variable), each start writes its own secret key, and in starts forked from that preload
(``fork_placeholder_probe.py``) no live object holds a path under the placeholder and the files a
start leaves are those of a plain start.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from lab.lifecycle.adapters.process import SutProcess
from lab.profile import load_profiles, select
from lab.runtime.housekeeping import RunRegistry, new_run_id
from lab.runtime.local import LocalRuntime

pytestmark = pytest.mark.rows

#: Per row: paths (relative to the store volume, or to the last start's scratch) the SUT makes
#: from what it read at import: Mem0's MEM0_DIR, CrewAI's storage folder and ~, Hermes's HERMES_HOME,
#: Letta's ~/.letta (the log file it opens at import; its database address is checked by the read);
#: memory-blackbox makes nothing from its ~ (DEFAULT_HOME, its CLI's default home) unless asked.
RESOLVED = {"memory-blackbox-md+restart": [],
            "mem0-qdrant-local": ["store:mem0/config.json"],
            "crewai-ltm-lancedb": ["store:crewai", "scratch:home/.config/crewai",
                                   "scratch:home/.local/share/crewai/credentials/secret.key"],
            "hermes-memory-md": ["store:state.db", "store:SOUL.md"],
            "letta-block-history": ["scratch:home/.letta/logs/Letta.log"]}


#: Per row: a file the SUT writes afresh at every start, under its scratch folder (a new one each start).
FRESH = {"crewai-ltm-lancedb": "home/.local/share/crewai/credentials/secret.key"}
PROBE = Path(__file__).with_name("fork_placeholder_probe.py")


def server_files(runtime: LocalRuntime) -> list[str]:
    return [str(p) for folder in runtime.fork_servers.folders() for sub in ("home", "config", "tmp")
            for p in (folder / sub).rglob("*")]


def unsealed(runtime: LocalRuntime) -> list[str]:
    """What the servers' placeholders hold but empty files (sealed, or never entered: nothing)."""
    return [str(p) for folder in runtime.fork_servers.folders() for p in (folder / "placeholder").rglob("*")
            if not p.is_file() or p.stat().st_size]


@pytest.mark.parametrize("row", sorted(RESOLVED))
def test_the_sut_sees_each_starts_own_paths_and_leaves_the_servers_folders_empty(row):
    profile = select(load_profiles(), [row])[0]
    runtime, registry = LocalRuntime(fork_server=True), RunRegistry(new_run_id())
    sut = SutProcess(profile, runtime, registry)
    try:
        for path in sut.volumes.values():  # what the SUT makes at import is made anew by this run
            assert not path.exists() or not any(path.iterdir())
        sut.start()
        note = sut.prepared.detail["fork_server"]
        assert note["used"] is True and note.get("per_start", []) == list(profile.fork_server.per_start), note
        assert sut.call("write", context="forkctx", text="the harbour light is red",
                        meta={"role": "user", "source": "memlab-seed"})["ok"]
        sut.restart()
        assert [r["text"] for r in sut.call("read", context="forkctx")["records"]] == ["the harbour light is red"]
        assert server_files(runtime) == [] and unsealed(runtime) == []
        scratch = sut.work / f"scratch-{sut.starts}"
        if row in FRESH:  # the restart's own, not the first start's
            before, after = (sut.work / f"scratch-{sut.starts - 1}" / FRESH[row]), scratch / FRESH[row]
            assert before.read_bytes() != after.read_bytes()
        for where in RESOLVED[row]:
            base, rel = where.split(":")
            assert ((sut.volumes["store"] if base == "store" else scratch) / rel).exists(), where
    finally:
        sut.stop()
        runtime.close()
        registry.close()


def test_crewai_forked_from_its_placeholder_preload_keeps_nothing_of_it(tmp_path):
    profile = select(load_profiles(), ["crewai-ltm-lancedb"])[0]
    python = LocalRuntime(fork_server=False).prepare(profile).detail["interpreter"]
    (tmp_path / "trials").mkdir()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "PYTHONNOUSERSITE": "1",
           "PYTHONDONTWRITEBYTECODE": "1"}
    runs, loaded = {}, []
    for mode in ("plain", "forked"):  # the server preloads what the plain start loaded, as after a first start
        preload = {"modules": list(profile.fork_server.preload), "optional": loaded}
        proc = subprocess.run([python, str(PROBE), str(profile.driver_dir / "driver.py"), str(tmp_path / mode),
                               str(tmp_path / "trials"), json.dumps(preload), mode, str(tmp_path / f"{mode}.json")],
                              env=env, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-3000:]
        runs[mode] = json.loads((tmp_path / f"{mode}.json").read_text())
        loaded = runs[mode]["starts"][0]["modules"]
        cut = next(n for n, name in enumerate(loaded) if name.split(".")[0] == "lancedb")  # as the server cuts it
        loaded = loaded[:cut]
    forked, [plain] = runs["forked"], runs["plain"]["starts"]
    assert forked["status"].get("ready"), forked["status"]
    assert "crewai_core.settings.DEFAULT_CONFIG_PATH" in forked["held_by_server"]
    assert forked["sealed"] and all(forked["sealed"].values()) and forked["server_files"] == []
    one, two = forked["starts"]
    assert one["held"] == two["held"] == [] and not one["pending"] and not two["pending"]
    assert one["files"] == two["files"] == plain["files"]
    assert None not in (one["key"], two["key"], plain["key"]) and one["key"] != two["key"]
