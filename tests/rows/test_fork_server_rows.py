"""The rows whose SUT reads its environment at import, under the fork server: each start's own paths.

mem0-qdrant-local, crewai-ltm-lancedb, hermes-memory-md, letta-block-history and the memory-blackbox
rows name their SUT in ``fork_server.per_start``: the server preloads only dependencies, never the
SUT. Started as a run starts them (local runtime, fork server on), written to, restarted and read: the server
serves (no refusal), nothing lands in the server's own HOME, XDG_CONFIG_HOME or TMPDIR, and what
the SUT resolves from its environment at import lands in the trial's volume or scratch folder.
"""

from __future__ import annotations

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
            "crewai-ltm-lancedb": ["store:crewai", "scratch:home/.config/crewai"],
            "hermes-memory-md": ["store:state.db", "store:SOUL.md"],
            "letta-block-history": ["scratch:home/.letta/logs/Letta.log"]}


def server_files(runtime: LocalRuntime) -> list[str]:
    return [str(p) for folder in runtime.fork_servers.folders() for sub in ("home", "config", "tmp")
            for p in (folder / sub).rglob("*")]


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
        assert note["used"] is True and note["per_start"] == list(profile.fork_server.per_start), note
        assert sut.call("write", context="forkctx", text="the harbour light is red",
                        meta={"role": "user", "source": "memlab-seed"})["ok"]
        sut.restart()
        assert [r["text"] for r in sut.call("read", context="forkctx")["records"]] == ["the harbour light is red"]
        assert server_files(runtime) == []
        scratch = sut.work / f"scratch-{sut.starts}"
        for where in RESOLVED[row]:
            base, rel = where.split(":")
            assert ((sut.volumes["store"] if base == "store" else scratch) / rel).exists(), where
    finally:
        sut.stop()
        runtime.close()
        registry.close()
