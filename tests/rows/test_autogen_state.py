"""The autogen-state row (images/autogen): AutoGen AgentChat's saved agent state, an AssistantAgent's
save_state written as a JSON file per conversation and loaded back with load_state.

The row's lifecycle gate, live and restarted, is run once (``--position both``, as published) and
each position compared with ``results/published/autogen-state/lifecycle/``; the two positions
agree with each other, because every op is a stateless endpoint (the state is the file, nothing is
kept in the process). The row takes no at-rest measurement; the reason is checked here: through
the driver, in the row's own environment, the file holds AutoGen's AssistantAgentState with the
messages nested in llm_context.messages, and the lab's JSON document editor finds no record in it.
"""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from edits.jsondoc import JsonDocEditor
from edits.layout import parse_layout
from lab.lifecycle.adapters.process import SutProcess
from lab.profile import load_profiles, select
from lab.runtime.housekeeping import RunRegistry, new_run_id
from lab.runtime.local import LocalRuntime
from test_lifecycle_rows import installed, published, summary

pytestmark = pytest.mark.rows

ROW = "autogen-state"
CONTEXT = "acme/alice"


@pytest.mark.parametrize("position", ["live", "restarted"])
def test_lifecycle_run_matches_its_published_set(lifecycle, position):
    then, now = published(ROW, position), lifecycle[position]
    assert installed(now) == installed(then) == str(then["sut"]["version"]), (installed(now), installed(then))
    assert summary(now) == summary(then), f"{ROW}@{position} differs from results/published/{ROW}/lifecycle"


def test_a_restart_changes_nothing_the_gate_sees(lifecycle):
    live, restarted = (dict(summary(lifecycle[p]), position=None) for p in ("live", "restarted"))
    assert lifecycle["live"]["restarts"]["count"] == 0 < lifecycle["restarted"]["restarts"]["count"]
    assert live == restarted


def test_the_store_is_the_saved_agent_state_with_its_messages_nested():
    profile = select(load_profiles(), [ROW])[0]
    runtime, registry = LocalRuntime(), RunRegistry(new_run_id())
    sut = SutProcess(profile, runtime, registry)
    try:
        sut.start()
        for text, role in (("my locker is L-5521", "user"), ("noted: locker L-5521", "assistant")):
            assert sut.call("write", context=CONTEXT, text=text, meta={"role": role})["ok"]
        sut.restart()
        answer = sut.call("read", context=CONTEXT)
        assert answer["ok"], answer
        assert [(r["text"], r["meta"]["role"]) for r in answer["records"]] == [
            ("my locker is L-5521", "user"), ("noted: locker L-5521", "assistant")]
        store = sut.volumes["store"]
        [path] = list(store.iterdir())
        assert path.name == f"{quote(CONTEXT, safe='')}.json"
        state = json.loads(path.read_text())
        assert {k: state[k] for k in ("type", "version")} == {"type": "AssistantAgentState", "version": "1.0.0"}
        assert [(m["type"], m["source"], m["content"]) for m in state["llm_context"]["messages"]] == [
            ("UserMessage", "user", "my locker is L-5521"), ("AssistantMessage", "assistant_agent", "noted: locker L-5521")]
        layout = parse_layout({"backend": "json", "volume": "store", "file": path.name, "context": "source",
                               "identity": [], "order": "@position", "payload": "content"})
        assert JsonDocEditor(layout, store).records() == []  # the messages are out of the json editor's reach
    finally:
        sut.stop()
        runtime.close()
        registry.close()
