"""Packs in the peer gate's shape (memorycheck's ``- op: NAME``): read as the peer reads them, what the
peer accepts never refused (a warning with file, line and fix instead), the rest refused as the
peer refuses it; the bundled pack exported to either shape and loaded back unchanged."""

import json
from dataclasses import replace

import pytest
from test_lifecycle_gate import gate_run, memlab

from lab.lifecycle.scenario import BUNDLED_PACK, Scope
from lab.lifecycle.scenario_pack import load_pack, scan_scenario
from lab.lifecycle.scenario_export import to_yaml

HEAD = 'id: "001-demo"\ntitle: T\ntags: [x]\nsubject:\n  tenant_id: acme\n  user_id: alice\nsteps:\n'  # steps at line 8
W = "  - op: write\n    key: plan\n    value: starter-legacy-2024\n"
Q = "  - op: query\n    prompt: Which plan?\n    expect:\n      must_use: [plan]\n"


def put(tmp_path, text, name="s.yaml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_peer_shape_loads_as_the_peer_reads_it(tmp_path):
    text = (HEAD + W + Q + "  - op: correct\n    key: plan\n    value: scale-annual-2026\n"
            "  - op: rescope\n    key: plan\n    to: {user_id: bob}\n"
            "  - op: query\n    as: {user_id: bob}\n    prompt: Which plan?\n    expect: {must_use: [plan]}\n"
            "  - op: write\n    key: otp\n    value: otp-991\n    ttl_steps: 2\n  - op: advance_time\n    steps: 2\n"
            "  - op: delete\n    key: otp\n  - op: query\n    prompt: Anything?\n")
    found = scan_scenario(put(tmp_path, text))
    assert found.errors == () and found.warnings == () and found.peer == ("001-demo",)
    (sc,) = found.scenarios
    alice, bob = Scope("acme", "alice"), Scope("acme", "bob")
    assert (sc.id, sc.tags, sc.subject) == ("001-demo", ("x",), alice)
    assert [s.op for s in sc.steps] == ["write", "query", "correct", "rescope", "query", "write", "advance_time",
                                        "delete", "query"]
    assert [s.line for s in sc.steps][:3] == [8, 11, 15]
    assert sc.steps[3].to == bob and sc.steps[4].scope == bob and sc.steps[4].must_use == ("plan",)
    assert sc.steps[5].ttl_steps == 2 and sc.steps[6].steps == 2 and sc.steps[8].must_use == ()


FORGIVEN = [  # (yaml, line, field, in message): the peer takes it, memlab warns and takes it the peer's way
    (HEAD + W + "    note: first plan\n", 11, "steps[0].note", "unknown field"),
    (HEAD + W.replace("    value: starter-legacy-2024\n", "    value: 2024\n"), 10, "steps[0].value", "not a number"),
    (HEAD + W + "    ttl_steps: 0\n", 11, "steps[0].ttl_steps", "at least 1, not 0"),
    (HEAD + W + "    ttl_steps: '3'\n", 11, "steps[0].ttl_steps", "whole number, not text"),
    (HEAD + W + "    key: plan\n", 11, "steps[0].key", "duplicate key (first at line 9)"),
    (HEAD.replace("tags: [x]\n", "tags: x\n") + W, 3, "tags", "list of distinct tags"),
    (HEAD.replace("title: T\n", "title: T\nowner: ops\n") + W, 3, "owner", "unknown field"),
    (HEAD + "  - op: advance_time\n    steps: 1\n    as: {user_id: bob}\n", 10, "steps[0].as", "no scope"),
    (HEAD + "  - op: correct\n    key: plan\n    value: scale-annual-2026\n", 9, "steps[0].key",
     "never written in scope"),
    (HEAD + "  - op: query\n    prompt: Which plan?\n    expect: {must_use: [plan]}\n", 10,
     "steps[0].expect.must_use[0]", "no current value"),
    (HEAD + W + "  - op: query\n    prompt: P?\n    expect: {must_use: [plan, plan]}\n", 13, "steps[1].expect.must_use",
     "names a key twice"),
    (HEAD.replace('id: "001-demo"', 'id: "001 demo / v2"') + W, 1, "id", "not a usable id"),
]


@pytest.mark.parametrize("text, line, field, message", FORGIVEN, ids=[f[2] for f in FORGIVEN])
def test_what_the_peer_accepts_is_a_warning_never_a_refusal(tmp_path, text, line, field, message):
    found = scan_scenario(put(tmp_path, text))
    assert found.errors == (), found.errors
    assert len(found.scenarios) == 1
    warning = next(w for w in found.warnings if w.field == field)
    assert warning.line == line and message in warning.message and warning.fix, str(warning)
    assert warning.message.endswith(")") and " (" in warning.message  # says how it is taken


def test_forgiven_values_are_taken_the_peers_way(tmp_path):
    text = (HEAD.replace('id: "001-demo"', 'id: 17') + W.replace("starter-legacy-2024", "2024")
            + "    ttl_steps: 0\n  - op: correct\n    key: other\n    value: teal-heron-5\n    ttl_steps: 4\n")
    (sc,) = scan_scenario(put(tmp_path, text)).scenarios
    assert sc.id == "17" and sc.steps[0].value == "2024" and sc.steps[0].ttl_steps == 1
    assert (sc.steps[1].op, sc.steps[1].ttl_steps) == ("write", 4)  # the peer's correct is a write, TTL included


REFUSED = [  # what the peer refuses too
    (HEAD + "  - op: remember\n    key: plan\n", 8, "steps[0].op", "unknown op 'remember'"),
    (HEAD + "  - op: write\n    key: plan\n", 8, "steps[0]", "missing field 'value'"),
    (HEAD + "  - op: advance_time\n    steps: 0\n", 9, "steps[0].steps", "at least 1"),
    (HEAD + W + "  - op: rescope\n    key: plan\n    to: {user_id: alice}\n", 13, "steps[1].to", "own scope"),
    (HEAD + "  - op: delete\n    key: plan\n", 9, "steps[0].key", "never written"),
    (HEAD + W + "  - op: query\n    prompt: P?\n    expect: [plan]\n", 13, "steps[1].expect", "must be a mapping"),
]


@pytest.mark.parametrize("text, line, field, message", REFUSED, ids=[r[2] for r in REFUSED])
def test_what_the_peer_refuses_is_an_error_with_file_line_and_fix(tmp_path, text, line, field, message):
    found = scan_scenario(put(tmp_path, text))
    (error,) = found.errors
    assert (error.line, error.field) == (line, field) and message in error.message and error.fix, str(error)


def test_a_strict_file_in_memlabs_shape_still_refuses_what_a_peer_file_is_forgiven(tmp_path):
    text = ("id: s1\ntitle: T\nsubject: {tenant_id: a, user_id: u}\nsteps:\n"
            "  - write: {key: k, value: v-1, note: x}\n")
    assert "unknown field" in scan_scenario(put(tmp_path, text)).errors[0].message


def test_one_pack_mixes_both_shapes_and_a_peer_file_with_a_taken_id_runs_under_another(tmp_path):
    put(tmp_path, HEAD + W + Q, "a.yaml")
    put(tmp_path, HEAD + W, "b.yaml")  # the same id, peer-shaped: the peer runs both
    put(tmp_path, 'id: own-1\ntitle: T\nsubject: {tenant_id: a, user_id: u}\nsteps:\n  - write: {key: k, value: v-1}\n',
        "c.yaml")
    pack = load_pack(tmp_path)
    assert [s.id for s in pack.scenarios] == ["001-demo", "001-demo-2", "own-1"] and pack.errors == ()
    assert set(pack.peer) == {"001-demo", "001-demo-2"}
    assert any("run as '001-demo-2'" in w.message for w in pack.warnings)
    assert load_pack(tmp_path / "a.yaml").scenarios[0].id == "001-demo"  # one file is a pack too


@pytest.mark.parametrize("shape", ["memorycheck", "memlab"])
def test_the_bundled_pack_exported_in_either_shape_loads_back_unchanged(tmp_path, shape):
    for sc in load_pack(BUNDLED_PACK).scenarios:
        path = put(tmp_path, to_yaml(sc, shape), f"{sc.id}.yaml")
        found = scan_scenario(path)
        assert found.errors == () and found.warnings == (), (found.errors, found.warnings)
        again = found.scenarios[0]
        assert replace(again, path=sc.path, steps=tuple(replace(s, line=0) for s in again.steps)) == \
            replace(sc, steps=tuple(replace(s, line=0) for s in sc.steps))
        assert bool(found.peer) is (shape == "memorycheck")


def test_the_export_command_writes_the_pack_the_validator_reads(tmp_path):
    done = memlab("lifecycle", "export", "--to", tmp_path / "peer", check_rc=0)
    assert "in memorycheck's shape" in done.stdout
    assert "(19 in memorycheck's shape): valid" in memlab("lifecycle", "validate", tmp_path / "peer", check_rc=0).stdout
    assert "not empty" in memlab("lifecycle", "export", "--to", tmp_path / "peer", check_rc=2).stderr


def test_a_must_use_key_without_a_current_value_is_reported_not_tested_in_a_run(tmp_path, cache):
    pack = tmp_path / "pack"
    pack.mkdir()
    put(pack, HEAD + W + Q + "  - op: delete\n    key: plan\n" + Q, "p.yaml")
    summary, out = gate_run(tmp_path, "--sut", "lifecycle-strict", "--scenarios", pack, rc=0)
    missing = summary["checks"]["missing_current_fact"]
    assert (missing["status"], missing["opportunities"], missing["not_tested"]) == ("PASS", 1, 1)
    row = json.loads(next((out / "rows").glob("*.json")).read_text())
    (entry,) = row["not_tested"]
    assert entry["key"] == "plan" and "authoring" in entry["reason"] and entry["step"] == 3
