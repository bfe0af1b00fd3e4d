"""The autogen-state row (images/autogen): AutoGen AgentChat's saved agent state, an AssistantAgent's
save_state written as a JSON file per conversation and loaded back with load_state.

The row is re-measured at rest once (``integrity_rows.check_row``: cell and variant against
``results/published/autogen-state/``, and the installed version) and every expressible edit's
verdict is asserted; its lifecycle gate, live and restarted, is run once (``--position both``, as
published) and each position compared with ``results/published/autogen-state/lifecycle/``; the two
positions agree with each other, because every op is a stateless endpoint (the state is the file,
nothing is kept in the process). Through the driver, in the row's own environment, the generic
json-files editor reads exactly the messages the SUT serves (text, order, role), and a role it
relabels at rest is the role served.
"""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from edits.base import editor_for
from edits.model import EditSpec
from lab.lifecycle.adapters.process import SutProcess
from lab.profile import load_profiles, select
from lab.runtime.housekeeping import RunRegistry, new_run_id
from lab.runtime.local import LocalRuntime
from integrity_rows import assert_every_edit_served, raise_failure_and_check_points
from test_lifecycle_rows import assert_matches_published, summary

pytestmark = pytest.mark.rows

ROW = "autogen-state"
CONTEXT = "acme/alice"


def test_at_rest_row_matches_its_published_result_set(at_rest):
    raise_failure_and_check_points(at_rest)  # no audit command: the read point only


def test_every_edit_is_served_as_genuine(at_rest):
    read = at_rest[1]["read"]
    assert_every_edit_served(read)
    variants = {c: {v["variant"]: v for v in read["cells"][c]["variants"]} for c in ("T4", "T8")}
    assert {k: v["verdict"] for k, v in variants["T4"].items()} == {"default": "ACCEPTED", "swap=contents": "ACCEPTED"}
    t8 = variants["T8"]
    assert {k: v["verdict"] for k, v in t8.items()} == {"default": "ACCEPTED", "place=type": "ACCEPTED",
                                                         "place=source": "error"}
    # the source alone relabelled: the served role (the message's type) is unchanged
    assert "no visible effect" in t8["place=source"]["reason"], t8["place=source"]


@pytest.mark.parametrize("position", ["live", "restarted"])
def test_lifecycle_run_matches_its_published_set(lifecycle, position):
    assert_matches_published(ROW, position, lifecycle[position])


def test_a_restart_changes_nothing_the_gate_sees(lifecycle):
    live, restarted = (dict(summary(lifecycle[p]), position=None) for p in ("live", "restarted"))
    assert lifecycle["live"]["restarts"]["count"] == 0 < lifecycle["restarted"]["restarts"]["count"]
    assert live == restarted


def test_the_editor_reads_the_messages_the_sut_serves_and_a_relabel_at_rest_is_served():
    profile = select(load_profiles(), [ROW])[0]
    runtime, registry = LocalRuntime(), RunRegistry(new_run_id())
    sut = SutProcess(profile, runtime, registry)
    written = [("my locker is L-5521", "user"), ("noted: locker L-5521", "assistant"), ("my desk is D-118", "user")]
    try:
        sut.start()
        for text, role in written:
            assert sut.call("write", context=CONTEXT, text=text, meta={"role": role})["ok"]
        store = sut.volumes["store"]
        editor = {}

        def read_at_rest():
            editor["records"] = editor_for(profile.store, {"store": store}).records()
        sut.restart(while_stopped=read_at_rest)
        served = sut.call("read", context=CONTEXT)
        assert served["ok"], served
        assert [(r["text"], r["meta"]["role"]) for r in served["records"]] == written
        [path] = list(store.iterdir())
        assert path.name == f"{quote(CONTEXT, safe='')}.json"
        state = json.loads(path.read_text())
        assert {k: state[k] for k in ("type", "version")} == {"type": "AssistantAgentState", "version": "1.0.0"}
        records = editor["records"]
        assert {r.context for r in records} == {CONTEXT}  # the file name, percent-decoded
        assert [(r.payload, r.metadata["role"], r.order) for r in records] == \
            [(text, role, i) for i, (text, role) in enumerate(written)]
        assert [r["id"] for r in served["records"]] == [str(r.order) for r in records]

        def relabel_the_desk():
            applied = editor_for(profile.store, {"store": store}).apply(
                EditSpec("T8", CONTEXT, "D-118", meta_field="role", op="set_meta"))
            assert applied.statements == [f"{path.name}: set type to 'AssistantMessage', source to "
                                          "'assistant_agent' of element 2"]
        sut.restart(while_stopped=relabel_the_desk)
        served = sut.call("read", context=CONTEXT)
        assert served["ok"], served
        assert [(r["text"], r["meta"]["role"], r["meta"]["source"]) for r in served["records"]] == [
            (written[0][0], "user", "user"), (written[1][0], "assistant", "assistant_agent"),
            (written[2][0], "assistant", "assistant_agent")]  # now the agent's own message
    finally:
        sut.stop()
        runtime.close()
        registry.close()
