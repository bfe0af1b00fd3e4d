"""The scenario loader: the format, every error path (file, line, field, fix), warnings, the pack."""

import json
import textwrap

import pytest

from lab.lifecycle import scenario_read, scenario_yaml
from lab.lifecycle.ledger import Label, Ledger
from lab.lifecycle.scenario import BUNDLED_PACK, Scenario, ScenarioError, Scope
from lab.lifecycle.scenario_pack import load_pack, load_scenario, scan_scenario

HEAD = "id: s1\ntitle: T\nsubject: {tenant_id: acme, user_id: alice}\nsteps:\n"  # steps start at line 5
W = '  - write: {key: office, value: "Lisbon office"}\n'
Q = "  - query: {prompt: 'Where?', expect: {must_use: [office]}}\n"
THEMES = {"correction", "double-correction", "deletion", "delete-readd", "readd-correct", "multi-key",
          "ttl-sibling", "rescope", "rescope-readd", "cross-tenant-move", "scope-users", "scope-tenants",
          "shared-user-id"}


def put(tmp_path, text, name="s.yaml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_documented_example_loads_with_scopes_resolved(tmp_path):
    path = put(tmp_path, HEAD + W + Q +
               '  - write: {key: office, value: "Braga desk", ttl_steps: 2}\n    as: {user_id: bob}\n'
               '  - rescope: {key: office, to: {tenant_id: globex}}\n    as: {user_id: bob}\n'
               '  - advance_time: {steps: 3}\n  - correct: {key: office, value: "Porto office"}\n'
               '  - delete: {key: office}\n')
    sc = load_scenario(path)
    alice, bob = Scope("acme", "alice"), Scope("acme", "bob")
    assert (sc.id, sc.title, sc.tags, sc.subject, sc.path) == ("s1", "T", (), alice, str(path))
    assert [s.op for s in sc.steps] == ["write", "query", "write", "rescope", "advance_time", "correct", "delete"]
    assert [s.line for s in sc.steps] == [5, 6, 7, 9, 11, 12, 13]
    assert sc.steps[1].must_use == ("office",) and sc.steps[1].prompt == "Where?"
    assert (sc.steps[2].scope, sc.steps[2].ttl_steps) == (bob, 2)
    assert (sc.steps[3].scope, sc.steps[3].to) == (bob, Scope("globex", "bob"))  # `to` over the step's scope
    assert sc.steps[4].steps == 3 and sc.steps[5].scope == alice


def test_the_module_docstring_example_is_valid(tmp_path):
    from lab.lifecycle import scenario
    doc = scenario.__doc__
    example = textwrap.dedent(doc[doc.index("::\n") + 3:doc.index("Each step is")])
    sc = load_scenario(put(tmp_path, example.strip() + "\n"))
    assert [s.op for s in sc.steps] == ["write", "correct", "query", "write", "rescope", "delete", "advance_time"]
    assert sc.steps[4].to == Scope("globex", "bob")


def test_every_op_has_its_fields_and_example():
    from lab.lifecycle.scenario import OPS
    assert set(scenario_yaml.FIELDS) == set(scenario_yaml.EXAMPLES) == set(OPS)


def test_to_json_round_trips(tmp_path):
    for sc in load_pack().scenarios:
        assert Scenario.from_json(json.loads(json.dumps(sc.to_json()))) == sc


ERRORS = [  # (yaml, line, field, in message, in fix)
    (HEAD + "  - write: {key: a, value: [b\n", 6, "(yaml)", "not valid YAML", "YAML syntax"),
    ("", 1, "(top)", "empty", "id:"),
    ("- id: s1\n", 1, "(top)", "must be a mapping, not a list", "id: <name>"),
    (HEAD + W + "---\nid: s2\n", 6, "(yaml)", "not valid YAML", "one document per file"),
    ("id: &a s1\nx: [" + ", ".join(["*a"] * 101) + "]\n", 2, "(yaml)", "more than 100 aliases", "write the values out"),
    ("id: s1\nx: " + "[" * 12 + "]" * 12 + "\n", 2, "(yaml)", "nested deeper than", "simplify"),
    ("id: s1\nid: s2\n", 2, "id", "duplicate key (first at line 1)", "keep one"),
    ("a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
     "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n", 1, "(yaml)",
     "more than 10000 nodes once its aliases are expanded", "split or simplify"),
    ("<<: {id: s1}\n", 1, "(top)", "missing field 'title'", "add it"),  # a merge key is expanded, as PyYAML does
    (HEAD + W + "    yes: 1\n", 6, "steps[0]", "a boolean", "plain name"),
    (HEAD + W + "color: blue\n", 6, "color", "unknown field", "id, title, tags, subject, steps"),
    ("id: s1\nsubject: {tenant_id: a, user_id: b}\nsteps: [{write: {key: a, value: b}}]\n", 1, "(top)",
     "missing field 'title'", "add it"),
    ("id: -bad id\ntitle: T\nsubject: {tenant_id: a, user_id: b}\nsteps: []\n", 1, "id", "not a usable id", "1-64"),
    (HEAD.replace("title: T\n", "title: T\ntags: correction\n") + W, 3, "tags", "list of distinct tags", "tags: ["),
    (HEAD.replace(", user_id: alice", "") + W, 3, "subject", "missing field 'user_id'", "tenant_id: acme"),
    (HEAD.replace("user_id: alice", "user_id: alice, role: admin") + W, 3, "subject.role", "unknown field",
     "tenant_id, user_id"),
    (HEAD.replace("user_id: alice", "user_id: 42") + W, 3, "subject.user_id", "must be text, not a number", 'quote it: "42"'),
    (HEAD.replace("steps:\n", "steps: []\n"), 4, "steps", "no steps", "steps: [{write"),
    (HEAD.replace("steps:\n", "steps: {write: {key: a, value: b}}\n"), 4, "steps", "must be a list of steps, not a "
     "mapping", "steps: [{write"),
    (HEAD + "  - write\n", 5, "steps[0]", "one-key mapping", "- write: {key:"),
    (HEAD + "  - op: write\n    key: office\n", 5, "steps[0]", "missing field 'value'", "op: write, key: plan"),
    (HEAD + '  - write: {key: a, value: "b"}\n    delete: {key: a}\n', 5, "steps[0]", "exactly one op, found 2",
     "one step per op"),
    (HEAD + "  - as: {user_id: bob}\n", 5, "steps[0]", "exactly one op, found 0", "add one"),
    (HEAD + '  - write: {key: a, value: "b", ttl: 2}\n', 5, "steps[0].write.ttl", "unknown field", "ttl_steps"),
    (HEAD + "  - write: {key: a}\n", 5, "steps[0].write", "missing field 'value'", "value:"),
    (HEAD + "  - write: {key: a, value: 7}\n", 5, "steps[0].write.value", "not a number", 'quote it: "7"'),
    (HEAD + "  - write: {key: a, value: yes}\n", 5, "steps[0].write.value", "a boolean", 'quote the word, e.g. "yes"'),
    (HEAD + "  - write: {key: a, value: ~}\n", 5, "steps[0].write.value", "not null", "in quotes"),
    (HEAD + "  - write: {key: [a], value: b}\n", 5, "steps[0].write.key", "not a list", "one piece of text"),
    (HEAD + "  - write: {key: a, value: 2024-05-01}\n", 5, "steps[0].write.value", "a date", "quote it"),
    (HEAD + '  - write: {key: a, value: " "}\n', 5, "steps[0].write.value", "is empty", "write the text"),
    (HEAD + '  - write: {key: a, value: "!!"}\n', 5, "steps[0].write.value", "no letters or digits",
     "teal-falcon-7Q"),
    (HEAD + '  - write: {key: a, value: "b", ttl_steps: true}\n', 5, "steps[0].write.ttl_steps",
     "positive integer, not a boolean", "ttl_steps: 2"),
    (HEAD + '  - write: {key: a, value: "b", ttl_steps: 1.5}\n', 5, "steps[0].write.ttl_steps",
     "positive integer, not a number", "ttl_steps: 2"),
    (HEAD + '  - write: {key: a, value: "b", ttl_steps: 0}\n', 5, "steps[0].write.ttl_steps", "positive integer, not 0",
     "ttl_steps: 2"),
    (HEAD + W + '  - correct: {key: office, value: "c", ttl_steps: 2}\n', 6, "steps[1].correct.ttl_steps",
     "unknown field", "key, value"),
    (HEAD + '  - advance_time: {steps: "2"}\n', 5, "steps[0].advance_time.steps", "positive integer, not text",
     "steps: 2"),
    (HEAD + "  - advance_time: {steps: 1}\n    as: {user_id: bob}\n", 6, "steps[0].as", "no scope", "remove as:"),
    (HEAD + W + "    as: {user: bob}\n", 6, "steps[0].as.user", "unknown field", "tenant_id, user_id"),
    (HEAD + W + "    as: {}\n", 6, "steps[0].as", "is empty", "tenant_id and/or user_id"),
    (HEAD + "  - write: {key: a, value: b}\n    as: bob\n", 6, "steps[0].as", "must be a mapping, not text",
     "{tenant_id: acme"),
    (HEAD + W + "  - rescope: {key: office, to: {user_id: alice}}\n", 6, "steps[1].rescope.to", "own scope",
     "another tenant_id"),
    (HEAD + W + "  - rescope: {key: office}\n", 6, "steps[1].rescope", "missing field 'to'", "to: {user_id: bob}"),
    (HEAD + W + "  - query: {prompt: 'Where?', expect: {must_see: [office]}}\n", 6, "steps[1].query.expect.must_see",
     "unknown field", "must_use"),
    (HEAD + W + "  - query: {prompt: 'Where?', expect: {must_use: []}}\n", 6, "steps[1].query.expect.must_use",
     "non-empty list", "remove expect"),
    (HEAD + W + "  - query: {prompt: 'Where?', expect: {must_use: [office, office]}}\n", 6,
     "steps[1].query.expect.must_use", "names a key twice", "once"),
    (HEAD + W + "  - query: {expect: {must_use: [office]}}\n", 6, "steps[1].query", "missing field 'prompt'", "prompt"),
    # rules that need the whole scenario
    (HEAD + "  - delete: {key: office}\n", 5, "steps[0].delete.key", "never written in scope (tenant 'acme', "
     "user 'alice') before this step", "write it earlier"),
    (HEAD + W + "  - delete: {key: office}\n    as: {user_id: bob}\n", 6, "steps[1].delete.key",
     "user 'bob'", "the step's as:"),
    (HEAD + W + "  - delete: {key: office}\n  - delete: {key: office}\n", 7, "steps[2].delete.key",
     "already deleted", "remove this delete"),
    (HEAD + '  - correct: {key: office, value: "b"}\n', 5, "steps[0].correct.key", "never written", "write it earlier"),
    (HEAD + W + '  - delete: {key: office}\n  - correct: {key: office, value: "b"}\n', 7, "steps[2].correct.key",
     "nothing to correct", "re-add it with write:"),
    (HEAD + W + "  - delete: {key: office}\n  - rescope: {key: office, to: {user_id: bob}}\n", 7,
     "steps[2].rescope.key", "no current value in scope (tenant 'acme', user 'alice') to move: it was deleted",
     "while it is current"),
    (HEAD + '  - write: {key: office, value: "b", ttl_steps: 1}\n  - advance_time: {steps: 1}\n'
     "  - rescope: {key: office, to: {user_id: bob}}\n", 7, "steps[2].rescope.key", "its TTL ran out",
     "while it is current"),
    (HEAD + Q, 5, "steps[0].query.expect.must_use[0]", "it was never written there", "write it before this query"),
    (HEAD + W + "  - delete: {key: office}\n" + Q, 7, "steps[2].query.expect.must_use[0]", "it was deleted",
     "remove it from must_use"),
    (HEAD + '  - write: {key: office, value: "b", ttl_steps: 2}\n  - advance_time: {steps: 2}\n' + Q, 7,
     "steps[2].query.expect.must_use[0]", "its TTL ran out", "write it before"),
    (HEAD + W + Q + "    as: {tenant_id: globex}\n", 6, "steps[1].query.expect.must_use[0]", "tenant 'globex'",
     "write it before"),
]


@pytest.mark.parametrize("text, line, field, message, fix", ERRORS,
                         ids=[f"{i}-{e[2]}" for i, e in enumerate(ERRORS)])
def test_every_error_names_file_line_field_and_fix(tmp_path, text, line, field, message, fix):
    path = put(tmp_path, text)
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    err = caught.value
    assert (err.path, err.line, err.field) == (str(path), line, field), str(err)
    assert message in err.message and fix in err.fix, str(err)
    assert str(err) == f"{path}:{line}: {field}: {err.message}\n  fix: {err.fix}"


def test_node_cap_and_size_cap(tmp_path, monkeypatch):
    monkeypatch.setattr(scenario_read, "MAX_NODES", 20)
    err = scan_scenario(put(tmp_path, HEAD + W * 5)).errors[0]
    assert "more than 20 nodes" in err.message and err.line is not None
    monkeypatch.setattr(scenario_read, "MAX_BYTES", 10)
    err = scan_scenario(put(tmp_path, HEAD + W)).errors[0]
    assert (err.field, err.line) == ("(file)", None) and "split" in err.fix


def test_unreadable_files(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"id: \xff\xfe\n")
    assert scan_scenario(bad).errors[0].message == "not UTF-8 text"
    assert "cannot read" in scan_scenario(tmp_path / "missing.yaml").errors[0].message


def test_all_rule_errors_of_a_file_are_reported(tmp_path):
    found = scan_scenario(put(tmp_path, HEAD + "  - delete: {key: a}\n  - delete: {key: b}\n"))
    assert [e.line for e in found.errors] == [5, 6] and found.scenarios == ()


@pytest.mark.parametrize("values, message", [
    (("teal-falcon-7Q", "TEAL falcon 7q"), "the same value as step 0 (line 5)"),
    (("Rua Augusta", "Lisbon office on Rua Augusta"), "contains the value of step 0"),
    (("Lisbon office on Rua Augusta", "Rua Augusta"), "appears inside the value of step 0"),
])
def test_non_distinctive_values_warn_but_load(tmp_path, values, message):
    text = HEAD + f'  - write: {{key: a, value: "{values[0]}"}}\n  - write: {{key: b, value: "{values[1]}"}}\n    as: {{user_id: bob}}\n'
    found = scan_scenario(put(tmp_path, text))
    assert len(found.scenarios) == 1 and not found.errors
    (warning,) = found.warnings
    assert (warning.line, warning.field) == (6, "steps[1].write.value")
    assert message in warning.message and "teal-falcon-7Q" in warning.fix
    assert str(warning).startswith(f"{warning.path}:6: steps[1].write.value: warning: non-distinctive")


def test_a_prompt_holding_a_value_warns(tmp_path):
    found = scan_scenario(put(tmp_path, HEAD + W + "  - query: {prompt: 'Is it the Lisbon office?'}\n"))
    (warning,) = found.warnings
    assert (warning.line, warning.field) == (6, "steps[1].query.prompt") and "no-memory" in warning.message


def test_tokens_that_merely_share_letters_do_not_warn(tmp_path):
    text = HEAD + '  - write: {key: a, value: "cat"}\n  - write: {key: b, value: "concatenate"}\n'
    assert scan_scenario(put(tmp_path, text)).warnings == ()


def test_a_pack_reads_yaml_and_yml_and_refuses_duplicate_ids(tmp_path):
    put(tmp_path, HEAD + W, "a.yaml")
    put(tmp_path, HEAD.replace("s1", "s2") + W, "b.yml")
    put(tmp_path, HEAD + W, "c.YAML")
    put(tmp_path, "not a scenario", "notes.txt")
    pack = load_pack(tmp_path)
    assert [s.id for s in pack.scenarios] == ["s1", "s2"]
    (err,) = pack.errors
    assert (err.path, err.line, err.field) == (str(tmp_path / "c.YAML"), 1, "id")
    assert "duplicate scenario id 's1' (also in a.yaml)" in err.message


def test_a_pack_keeps_the_good_files_and_reports_the_bad(tmp_path):
    put(tmp_path, HEAD + W, "a.yaml")
    put(tmp_path, HEAD.replace("s1", "s2") + "  - delete: {key: x}\n", "b.yaml")
    pack = load_pack(tmp_path)
    assert [s.id for s in pack.scenarios] == ["s1"] and pack.errors[0].path.endswith("b.yaml")


def test_an_empty_or_missing_pack_folder_is_an_error(tmp_path):
    assert "no *.yaml or *.yml" in load_pack(tmp_path).errors[0].message
    assert load_pack(tmp_path / "nope").errors[0].message == "not a folder or a scenario file"


def test_the_bundled_pack_is_clean_and_covers_every_theme():
    pack = load_pack(BUNDLED_PACK)
    assert pack.errors == () and pack.warnings == ()
    assert len(pack.scenarios) >= 16
    assert THEMES <= {t for s in pack.scenarios for t in s.tags}
    for sc in pack.scenarios:
        assert any(s.must_use for s in sc.steps), sc.id
        assert sc.path.endswith(f"{sc.id}.yaml")


THEME_LABELS = {"deletion": Label.DELETED, "delete-readd": Label.DELETED, "readd-correct": Label.STALE,
                "correction": Label.STALE, "ttl-sibling": Label.EXPIRED, "rescope": Label.DELETED,
                "scope-users": Label.FOREIGN_USER, "scope-tenants": Label.FOREIGN_TENANT,
                "shared-user-id": Label.FOREIGN_TENANT, "cross-tenant-move": Label.FOREIGN_TENANT}


def test_each_bundled_scenario_queries_while_its_theme_has_something_to_catch():
    for sc in load_pack(BUNDLED_PACK).scenarios:
        ledger, seen = Ledger(), set()
        for step in sc.steps:
            if step.op == "query":
                seen |= {k.label for k in ledger.known(step.scope)}
            ledger.apply(step)
        for tag in set(sc.tags) & set(THEME_LABELS):
            assert THEME_LABELS[tag] in seen, (sc.id, tag)
