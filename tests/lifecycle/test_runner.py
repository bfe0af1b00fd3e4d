"""The lifecycle runner: observations from a fake adapter (shape, skipped steps, harness errors,
seeds and order), then the bundled pack on the real reference SUTs."""

import random

import pytest

from lab.lifecycle.adapters import Ack, AdapterError, Served
from lab.lifecycle.adapters.driver import DriverAdapter
from lab.lifecycle.ledger import Label, Ledger
from lab.lifecycle.runner import run_pack, run_scenario
from lab.lifecycle.scenario import BUNDLED_PACK, Scenario, Scope, Step
from lab.lifecycle.scenario_pack import load_pack
from lab.runtime import get_runtime
from lab.runtime.housekeeping import RunRegistry, new_run_id
from test_driver_adapter import lifecycle_profile

ALICE, BOB = Scope("acme", "alice"), Scope("acme", "bob")


class FakeAdapter:
    """Records every call; serves what was written; raises AdapterError on the op named in ``fail``."""

    name = "fake"

    def __init__(self, capabilities=("ttl", "tenants", "erase"), fail: str | None = None):
        self.capabilities = frozenset(capabilities)
        self.fail, self.calls, self.values = fail, [], {}

    def _do(self, op, *args):
        self.calls.append((op, *args))
        if op == self.fail:
            raise AdapterError(f"{op}: the SUT went away")
        return Ack(True, 0.001, {"op": op})

    def describe(self):
        return {"sut": "fake"}

    def begin(self, namespace, seed=0):
        self._do("begin", namespace)
        self.values = {}

    def write(self, scope, key, value, ttl_steps):
        self.values[(scope, key)] = value
        return self._do("write", scope, key, value, ttl_steps)

    def correct(self, scope, key, value):
        self.values[(scope, key)] = value
        return self._do("correct", scope, key, value)

    def delete(self, scope, key):
        self.values.pop((scope, key), None)
        return self._do("delete", scope, key)

    def advance_time(self, steps):
        return self._do("advance_time", steps)

    def query(self, scope, prompt):
        self._do("query", scope, prompt)
        text = "\n".join(v for (s, _), v in self.values.items() if s == scope)
        return Served([{"text": text, "meta": {}}], text, {"records": []}, 0.002)

    def close(self):
        pass


def scenario(*steps, sid="demo") -> Scenario:
    """A scenario of ``(op, fields)`` steps in ALICE's scope (fields may carry ``scope``)."""
    built = tuple(Step(index=i, line=10 + i, op=op, **{"scope": ALICE, **fields})
                  for i, (op, fields) in enumerate(steps))
    return Scenario(sid, sid, (), ALICE, built, f"{sid}.yaml")


DEMO = scenario(("write", {"key": "office", "value": "Lisbon", "ttl_steps": 2}),
                ("correct", {"key": "office", "value": "Porto"}),
                ("advance_time", {"steps": 1}),
                ("query", {"prompt": "Where is my office?", "must_use": ("office",)}),
                ("delete", {"key": "office"}),
                ("query", {"prompt": "Where is my office?"}))


def test_an_observation_holds_every_ack_and_every_served_answer():
    fake = FakeAdapter()
    obs = run_scenario(fake, DEMO, 3, "s3-demo")
    assert {k: obs[k] for k in ("scenario", "seed", "namespace", "position", "adapter", "skipped", "error")} == {
        "scenario": "demo", "seed": 3, "namespace": "s3-demo", "position": "live", "adapter": "fake", "skipped": [],
        "error": None}
    assert [(s["index"], s["op"], s.get("key")) for s in obs["steps"]] == [
        (0, "write", "office"), (1, "correct", "office"), (2, "advance_time", None), (4, "delete", "office")]
    assert obs["steps"][0] == {"index": 0, "op": "write", "scope": {"tenant_id": "acme", "user_id": "alice"},
                               "key": "office", "ack": {"ok": True, "seconds": 0.001, "raw": {"op": "write"}}}
    assert obs["steps"][2]["steps"] == 1
    first, second = obs["queries"]
    assert (first["index"], first["prompt"], first["must_use"], first["served"]["text"]) == (
        3, "Where is my office?", ["office"], "Porto")
    assert second["served"] == {"records": [{"text": "", "meta": {}}], "text": "", "raw": {"records": []},
                                "seconds": 0.002}
    assert fake.calls[0] == ("begin", "s3-demo") and ("write", ALICE, "office", "Lisbon", 2) in fake.calls


def test_without_ttl_advance_time_is_skipped_and_a_ttl_write_happens_without_ttl():
    fake = FakeAdapter(capabilities=("tenants", "erase"))
    obs = run_scenario(fake, DEMO, 0, "s0-demo")
    assert obs["skipped"] == [
        {"index": 0, "op": "write", "reason": "the SUT declares no TTL: written without ttl_steps 2", "applied": True},
        {"index": 2, "op": "advance_time", "reason": "the SUT declares no TTL", "applied": False}]
    assert ("write", ALICE, "office", "Lisbon", None) in fake.calls
    assert not any(call[0] == "advance_time" for call in fake.calls) and obs["error"] is None


def test_an_adapter_error_mid_scenario_keeps_what_was_measured():
    obs = run_scenario(FakeAdapter(fail="delete"), DEMO, 0, "s0-demo")
    assert obs["error"] == {"stage": "delete step 4", "message": "delete: the SUT went away"}
    assert [s["op"] for s in obs["steps"]] == ["write", "correct", "advance_time"]
    assert len(obs["queries"]) == 1  # the query after the failed delete never ran
    assert run_scenario(FakeAdapter(fail="begin"), DEMO, 0, "x")["error"]["stage"] == "begin"


def test_a_crash_of_the_lab_is_still_this_scenarios_error():
    class Crashing(FakeAdapter):
        def query(self, scope, prompt):
            raise KeyError("bug")

    obs = run_scenario(Crashing(), DEMO, 0, "s0-demo")
    assert obs["error"]["stage"] == "query step 3" and obs["error"]["message"] == "KeyError: 'bug'"
    assert "Traceback" in obs["error"]["traceback"] and len(obs["steps"]) == 3


def test_rescope_deletes_at_the_old_scope_and_writes_the_value_with_its_ttl_left_at_the_new():
    moved = scenario(("write", {"key": "office", "value": "Lisbon", "ttl_steps": 3}),
                     ("advance_time", {"steps": 1}),
                     ("rescope", {"key": "office", "to": BOB}),
                     ("delete", {"key": "office", "scope": BOB}),
                     ("rescope", {"key": "office", "to": ALICE, "scope": BOB}))
    fake = FakeAdapter()
    obs = run_scenario(fake, moved, 0, "s0-demo")
    assert fake.calls[3:] == [("delete", ALICE, "office"), ("write", BOB, "office", "Lisbon", 2),
                              ("delete", BOB, "office"), ("delete", BOB, "office")]
    rescope = obs["steps"][2]
    assert rescope["to"] == {"tenant_id": "acme", "user_id": "bob"}
    assert rescope["ack"]["raw"] == {"op": "delete"} and rescope["write_ack"]["raw"] == {"op": "write"}
    assert obs["skipped"] == [{"index": 4, "op": "rescope", "applied": True,
                               "reason": "nothing current to move for 'office': only the delete was sent"}]


def test_run_pack_runs_each_scenario_once_per_seed_in_a_seeded_order():
    pack = [scenario(("query", {"prompt": "q"}), sid=f"sc{i}") for i in range(6)]
    saved, labels = [], []
    out = run_pack(FakeAdapter(), pack, 3, save=saved.append, progress=labels.append)
    assert saved == out and len(out) == 18
    by_seed = {s: [o["scenario"] for o in out if o["seed"] == s] for s in range(3)}
    assert by_seed[0] == [f"sc{i}" for i in range(6)]
    for seed in (1, 2):
        order = [f"sc{i}" for i in range(6)]
        random.Random(seed).shuffle(order)
        assert by_seed[seed] == order
    assert by_seed[1] != by_seed[0]
    assert out[0]["namespace"] == "s0-sc0" and labels[0] == "seed 0 sc0"
    assert [o["seed"] for o in run_pack(FakeAdapter(), pack[:1], [4, 7])] == [4, 7]


@pytest.fixture(scope="module")
def bundled():
    pack = load_pack(BUNDLED_PACK)
    assert not pack.errors and len(pack.scenarios) >= 15
    return pack.scenarios


@pytest.mark.parametrize("row", ["lifecycle-strict", "lifecycle-naive", "lifecycle-leaky"])
def test_the_bundled_pack_runs_on_one_sut_process_without_harness_errors(row, bundled, cache):
    registry = RunRegistry(new_run_id())
    try:
        with DriverAdapter(lifecycle_profile(row), get_runtime("local"), registry) as sut:
            pid = sut.sut.client.pid
            out = run_pack(sut, bundled, 1)
            assert sut.sut.client.pid == pid and sut.sut.starts == 1
    finally:
        registry.close()
    assert [o["error"] for o in out if o["error"]] == []
    assert len(out) == len(bundled) and all(o["skipped"] == [] for o in out)
    labels = set()  # the ledger's label of every value served, over the pack (seed 0: file order)
    for obs, sc in zip(out, bundled):
        ledger, queries = Ledger(), {q["index"]: q for q in obs["queries"]}
        for step in sc.steps:
            if step.op == "query":
                known = {k.value: k.label for k in ledger.known(step.scope)}
                lines = [r["text"] for r in queries[step.index]["served"]["records"]]
                assert {ledger.current(step.scope, key) for key in step.must_use} <= set(lines), sc.id
                labels |= {known[line] for line in lines}
            ledger.apply(step)
    lived = {Label.CURRENT, Label.STALE, Label.DELETED, Label.EXPIRED}  # what a naive store serves
    assert labels == {"lifecycle-strict": {Label.CURRENT}, "lifecycle-naive": lived,
                      "lifecycle-leaky": lived | {Label.FOREIGN_USER}}[row]


def test_answers_past_the_evidence_budget_stop_the_scenario_and_leave_a_readable_observation(monkeypatch, tmp_path):
    """A service answering too much for one scenario (each answer under the transport's cap): the scenario
    is a harness error naming the budget, the answers past it are left out, and what is saved stays within
    what memlab's own reader takes."""
    import json

    from lab.lifecycle import runner
    from lab.resultset.files import write_json
    from lab.resultset.loading import read_strict

    class Verbose(FakeAdapter):
        def query(self, scope, prompt):
            self._do("query", scope, prompt)
            text = "é" * 20_000  # escaped in JSON: six bytes a character
            return Served([{"text": text, "meta": {}}], text, {}, 0.001, body=json.dumps({"answer": text}))

    monkeypatch.setattr(runner, "EVIDENCE_BUDGET", 1_000_000)
    loud = scenario(("write", {"key": "k", "value": "v"}), *[("query", {"prompt": f"q{i}"}) for i in range(8)],
                    sid="loud")
    obs = run_scenario(Verbose(), loud, 0, "s0-loud")
    assert obs["error"] and "over the 1 MiB one observation holds" in obs["error"]["message"], obs["error"]
    assert 0 < len(obs["queries"]) < 8 and obs["steps"]  # what fit is kept, the rest left out
    write_json(tmp_path / "obs.json", obs)
    assert (tmp_path / "obs.json").stat().st_size < 1_000_000 * 1.1 and read_strict(tmp_path / "obs.json") == obs
