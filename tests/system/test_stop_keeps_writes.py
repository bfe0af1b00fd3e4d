"""A stop loses no write, on every backend the lab has: write, stop, start anew, read.

A stop ends the driver without the interpreter's teardown (the kit's ``finish``, after the SUT's
own ``Driver.close()``). Through the published rows' drivers and the reference driver, on the
local runtime with the fork server as a run uses it (and once on the plain path): records are
written through the SUT, the SUT is stopped (its services too) and started as a new process on
the same volumes, and every record must be read back. A write that lived only in a buffer the
SUT flushes at teardown would be missing here.
"""

from __future__ import annotations

import pytest

from lab.lifecycle.adapters.process import SutProcess
from lab.profile import load_profiles, select
from lab.runtime.housekeeping import RunRegistry, new_run_id
from lab.runtime.local import LocalRuntime

#: One row per backend: the reference driver's five, then the SUTs' own stores (slow: their environments).
BACKENDS = [("reference-naive", "SQLite"), ("reference-naive-jsonl", "JSON lines"),
            ("reference-naive-md", "Markdown"), ("reference-naive-postgres", "PostgreSQL"),
            ("reference-naive-redis", "Redis")]
SUT_BACKENDS = [("langgraph-sqlite", "SQLite (LangGraph)"), ("langgraph-postgres", "PostgreSQL (LangGraph)"),
                ("mem0-qdrant-local", "Qdrant local"), ("crewai-ltm-lancedb", "LanceDB"),
                ("hermes-memory-md", "Markdown (Hermes)"), ("openai-agents-sqlite-session", "SQLite (OpenAI Agents)"),
                ("llamaindex-memory-sqlite", "SQLite (LlamaIndex)"), ("adk-sessions-sqlite", "SQLite (Google ADK)")]
CASES = ([pytest.param(row, True, id=f"{row}-{what}") for row, what in BACKENDS]
         + [pytest.param("reference-naive", False, id="reference-naive-SQLite-plain")]
         + [pytest.param(row, True, id=f"{row}-{what}", marks=pytest.mark.rows) for row, what in SUT_BACKENDS])
TEXTS = [f"stop-test record {n}: the harbour light is {colour}" for n, colour in enumerate(("red", "green", "amber"))]


@pytest.mark.parametrize("row, fork", CASES)
def test_a_stop_loses_no_write(row, fork):
    profile = select(load_profiles(), [row])[0]
    runtime, registry = LocalRuntime(fork_server=fork), RunRegistry(new_run_id())
    sut = SutProcess(profile, runtime, registry)
    try:
        sut.start()
        assert sut.prepared.detail["fork_server"].get("used") is fork, sut.prepared.detail["fork_server"]
        for text in TEXTS:
            assert sut.call("write", context="stopctx", text=text, meta={"role": "user", "source": "memlab-seed"})["ok"]
        sut.restart()
        answer = sut.call("read", context="stopctx")
        assert answer["ok"], answer
        assert sorted(r["text"] for r in answer["records"]) == sorted(TEXTS)
    finally:
        sut.stop()
        runtime.close()
        registry.close()
