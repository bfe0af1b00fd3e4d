"""HttpAdapter and its config: the example shim driven over loopback, errors named with their fix."""
from __future__ import annotations

import json
import socket
import sys
import time
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
from shims import EXAMPLE_CONFIG, example, serve

from lab.lifecycle.adapters import Adapter, AdapterError
from lab.lifecycle.adapters.http import HttpAdapter, HttpConfigError, HttpError, load_http_config
from lab.lifecycle.adapters.http_json import MAX_ANSWER_DEPTH
from lab.lifecycle.runner import run_scenario
from lab.lifecycle.scenario import Scope
from lab.lifecycle.scenario_pack import load_scenario
from lab.resultset.files import write_json
from lab.resultset.loading import read_strict

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from hostile_reads import alias_bomb  # noqa: E402  (the hostile class plays the same file against the CLI)

ANN, BOB, ANN_ELSEWHERE = Scope("acme", "ann"), Scope("acme", "bob"), Scope("globex", "ann")


@pytest.fixture
def shim():
    with serve() as server:
        yield server


@pytest.fixture
def sut(shim):
    with HttpAdapter(load_http_config(EXAMPLE_CONFIG, base_url=shim.url)) as adapter:
        adapter.begin("test")
        yield adapter


def test_drives_the_example_shim_through_write_correct_delete_query(sut):
    assert isinstance(sut, Adapter)
    assert sut.capabilities == frozenset({"ttl", "update", "tenants", "erase"})  # the contract's delete is per key
    ack = sut.write(ANN, "city", "Lisbon", None)
    assert ack.ok and ack.raw == {"ok": True, "key": "city"} and ack.seconds > 0
    sut.write(ANN, "pet", "a cat named Miso", None)
    sut.correct(ANN, "city", "Porto")
    served = sut.query(ANN, "Where do I live?")
    assert served.text.splitlines() == ["Porto", "key", "city", "a cat named Miso", "key", "pet"]  # every field
    assert served.records[0] == {"text": "Porto", "meta": {"key": "city"}}
    assert json.loads(served.body)["memories"][0]["key"] == "city" and served.raw == {}  # the body is the evidence
    assert sut.query(BOB, "Where do I live?").text == ""
    assert sut.query(ANN_ELSEWHERE, "Where do I live?").text == ""
    sut.delete(ANN, "city")
    assert [r["text"] for r in sut.query(ANN, "Where do I live?").records] == ["a cat named Miso"]


def test_ttl_runs_on_logical_time_and_begin_empties_the_store(sut):
    sut.write(ANN, "code", "door code 4411", 1)
    sut.write(ANN, "name", "Ann", None)
    assert "4411" in sut.query(ANN, "code?").text
    sut.advance_time(1)
    assert [r["text"] for r in sut.query(ANN, "code?").records] == ["Ann"]
    sut.begin("next")
    assert sut.query(ANN, "code?").text == ""


def test_runs_a_scenario_through_the_runner(sut, tmp_path):
    path = tmp_path / "correct-then-delete.yaml"
    path.write_text("""\
id: correct-then-delete
title: A correction and a deletion over HTTP
subject: {tenant_id: acme, user_id: ann}
steps:
  - write: {key: office, value: "Lisbon office on Rua Augusta"}
  - correct: {key: office, value: "Porto office on Rua das Flores"}
  - query: {prompt: "Where is my office?", expect: {must_use: [office]}}
  - delete: {key: office}
  - query: {prompt: "Where is my office?"}
""")
    obs = run_scenario(sut, load_scenario(path), seed=0, namespace="s0-correct-then-delete")
    assert obs["error"] is None, obs["error"]
    assert [s["op"] for s in obs["steps"]] == ["write", "correct", "delete"]
    assert all(s["ack"]["ok"] for s in obs["steps"])
    assert [[r["text"] for r in q["served"]["records"]] for q in obs["queries"]] == [["Porto office on Rua das Flores"], []]


def _mock(handler, **config_changes):
    """An adapter on a mock transport (no socket): ``handler(request) -> httpx.Response``."""
    config = load_http_config(EXAMPLE_CONFIG, base_url="http://127.0.0.1:9")
    return HttpAdapter(replace(config, **config_changes), transport=httpx.MockTransport(handler))


@pytest.mark.parametrize("status, body, kind, fix", [
    (500, {"error": "db down"}, "status", "fix the service's write handler"),
    (400, {"error": "bad", "fix": "send key as a string"}, "status", "send key as a string"),
    (404, {}, "route", "implement POST /write"),
    (200, {"status": "done"}, "shape", 'answer {"ok": true}'),
    (200, {"ok": True, "key": "other"}, "shape", "echo the request's key"),
    (200, ["ok"], "shape", 'answer {"ok": true}'),
])
def test_a_mutation_not_confirmed_is_an_adapter_error_with_its_fix(status, body, kind, fix):
    sut = _mock(lambda request: httpx.Response(status, json=body))
    with pytest.raises(HttpError) as err:
        sut.write(ANN, "city", "Lisbon", None)
    assert isinstance(err.value, AdapterError)
    assert err.value.kind == kind and err.value.endpoint == "write"
    assert fix in err.value.fix and fix in str(err.value)
    if kind == "status":
        assert f"answered {status}: {{\"error\":" in str(err.value)


@pytest.mark.parametrize("body, text, retrieved", [
    ({"memories": [{"text": "Porto", "key": "city"}, {"text": "Miso"}]}, "Porto\nkey\ncity\nMiso", None),
    ({"answer": "You live in Porto.", "memories": [{"text": "Porto", "old": {"pin": 4242}}]}, "You live in Porto.",
     ["Porto\nold\npin\n4242"]),
    ({"memories": []}, "", None),
])
def test_the_judge_reads_the_answer_or_every_field_of_every_memory(body, text, retrieved):
    served = _mock(lambda request: httpx.Response(200, json=body)).query(ANN, "Where?")
    assert served.text == text and served.retrieved == retrieved and json.loads(served.body) == body


def test_a_number_in_what_was_retrieved_is_read_in_the_peer_contract():
    body = {"answer": "Your PIN is on file.", "retrieved": [{"key": "pin", "value": 4242}, "note", [0.5, True, None]]}
    served = _mock(lambda request: httpx.Response(200, json=body), contract="memorycheck").query(ANN, "PIN?")
    assert served.retrieved == ["key\npin\nvalue\n4242", "note", "0.5"]


@pytest.mark.parametrize("sent", [
    '{ "memories" : [ {"key":"city",  "text" : "Z\\u00fcrich"} ] }\n',
    '\ufeff{"memories":[{"text":"Zürich","zz":1.50,"key":"city","aa":1E2}]}\t\r\n',  # a BOM, raw UTF-8, lexemes
])
def test_the_evidence_is_the_body_as_received_byte_for_byte(sent):
    """Spacing, member order, escapes, a byte order mark and number lexemes are kept as sent."""
    sent_bytes = sent.encode("utf-8")
    served = _mock(lambda request: httpx.Response(200, content=sent_bytes)).query(ANN, "Where?")
    assert served.body.encode("utf-8") == sent_bytes and served.to_json()["body"] == sent
    assert served.text.splitlines()[0] == "Zürich"


@pytest.mark.parametrize("sent, name, contract", [
    ('{"answer": "Porto", "answer": "Lisbon"}', "answer", "memlab"),
    ('{"memories": [{"text": "Porto", "text": "Lisbon"}]}', "text", "memlab"),
    ('{"answer": "ok", "retrieved": [{"v": {"pin": 4242, "pin": 1}}]}', "pin", "memorycheck"),  # nested
    ('{"memories": [], "\\u001b[31m": 1, "\\u001b[31m": 2}', "\\x1b[31m", "memlab"),  # named inert
])
def test_a_member_named_twice_is_a_contract_error_naming_it(sent, name, contract):
    with pytest.raises(HttpError) as err:
        _mock(lambda request: httpx.Response(200, text=sent), contract=contract).query(ANN, "Where?")
    assert err.value.kind == "shape" and f"names {name!r} twice" in err.value.message
    assert "\x1b" not in str(err.value) and "each key once" in err.value.fix


def test_a_refused_answer_with_a_member_named_twice_stays_a_status_error():
    sent = '{"error": "db down", "error": "again"}'
    with pytest.raises(HttpError) as err:
        _mock(lambda request: httpx.Response(500, text=sent)).query(ANN, "Where?")
    assert err.value.kind == "status" and err.value.status == 500


@pytest.mark.parametrize("number", ["NaN", "-Infinity", "1e400"])
def test_a_number_no_result_set_can_save_is_a_contract_error(number):
    """JSON readers disagree on these, and the observation keeping them could not be written."""
    sent = '{"memories": [{"text": "Porto", "score": ' + number + "}]}"
    with pytest.raises(HttpError, match=number) as err:
        _mock(lambda request: httpx.Response(200, text=sent)).query(ANN, "Where?")
    assert err.value.kind == "shape" and "finite numbers" in err.value.fix


@pytest.mark.parametrize("content", ['{"memories": [{"text": "Zürich"}]}'.encode("latin-1"),
                                     '{"memories": []}'.encode("utf-16")])
def test_an_answer_not_in_utf8_is_a_contract_error(content):
    with pytest.raises(HttpError, match="not JSON in UTF-8") as err:
        _mock(lambda request: httpx.Response(200, content=content)).query(ANN, "Where?")
    assert err.value.kind == "shape" and "UTF-8" in err.value.fix


@pytest.mark.parametrize("depth", [MAX_ANSWER_DEPTH - 3, MAX_ANSWER_DEPTH - 2, 900, 100_000])
def test_a_deep_answer_is_read_or_refused_never_a_crash(depth):
    """Read up to MAX_ANSWER_DEPTH (the memory's field is 3 levels down), whose observation a result
    set reads back; deeper, even too deep for the decoder, a named shape error."""
    sent = '{"memories": [{"text": "Porto", "meta": ' + "[" * depth + "4242" + "]" * depth + "}]}"
    adapter = _mock(lambda request: httpx.Response(200, text=sent))
    if depth + 3 <= MAX_ANSWER_DEPTH:
        assert adapter.query(ANN, "Where?").text.splitlines() == ["Porto", "meta", "4242"]
        return
    with pytest.raises(HttpError, match="nested too deep") as err:
        adapter.query(ANN, "Where?")
    assert err.value.kind == "shape"


def test_the_deepest_answer_read_is_kept_in_an_observation_a_result_set_reads(tmp_path):
    nested = "[" * (MAX_ANSWER_DEPTH - 3) + "4242" + "]" * (MAX_ANSWER_DEPTH - 3)
    sent = '{"memories": [{"text": "Porto", "meta": ' + nested + "}]}"
    sut = _mock(lambda r: httpx.Response(200, text=sent) if r.url.path == "/query" else httpx.Response(200, json={"ok": True}))
    path = tmp_path / "deep.yaml"
    path.write_text("id: deep\ntitle: deep\nsubject: {tenant_id: acme, user_id: ann}\nsteps:\n"
                    "  - query: {prompt: Where?}\n")
    sut.begin("deep")
    obs = run_scenario(sut, load_scenario(path), seed=0, namespace="s0-deep")
    assert obs["error"] is None and read_strict(write_json(tmp_path / "obs.json", obs)) == obs


@pytest.mark.parametrize("body", [{"memories": ["Porto"]}, {"results": []}, {"answer": 3},
                                  {"memories": [{"key": "city"}]}])
def test_a_query_answer_of_the_wrong_shape_names_the_contract(body):
    with pytest.raises(HttpError, match="memories") as err:
        _mock(lambda request: httpx.Response(200, json=body)).query(ANN, "Where?")
    assert err.value.kind == "shape" and '"memories": [{"text"' in err.value.fix


def test_headers_come_from_the_environment_and_never_into_results(monkeypatch, tmp_path):
    monkeypatch.setenv("SHIM_TOKEN", "s3cret")
    path = tmp_path / "shim.yaml"
    path.write_text('base_url: http://127.0.0.1:9\nenv: [SHIM_TOKEN]\nheaders: {Authorization: "Bearer ${SHIM_TOKEN}"}\n'
                    "capabilities: {tenants: false}\n")
    seen = []
    transport = httpx.MockTransport(lambda r: seen.append(r) or httpx.Response(
        200, json={"memories": [{"text": "Lisbon"}]} if r.url.path == "/query" else {"ok": True}))
    sut = HttpAdapter(load_http_config(path), transport=transport)
    ack = sut.write(ANN, "city", "Lisbon", 3)
    assert ack.confirm["queries"] == 1 and [r.url.path for r in seen] == ["/write", "/query"]
    assert seen[0].headers["authorization"] == "Bearer s3cret"
    body = json.loads(seen[0].content)
    assert body == {"scope": {"tenant_id": "acme", "user_id": "acme/ann"}, "key": "city", "value": "Lisbon"}
    assert "s3cret" not in json.dumps(sut.describe()) and "folded" in sut.describe()["scope"]
    assert "Authorization" in sut.describe()["config"]["headers"]
    with pytest.raises(HttpError, match="declares no ttl"):
        sut.advance_time(1)


def test_the_shims_own_400_reaches_the_error(sut):
    with pytest.raises(HttpError, match="400") as err:
        sut.write(ANN, "code", "4411", 0)
    assert "ttl_steps: 1 or more" in err.value.fix


class _SlowWrite(example.Handler):
    def on_write(self, body, store):
        time.sleep(0.3)
        return super().on_write(body, store)


def test_a_mutation_over_its_timeout_aborts_with_the_measured_latency():
    with serve(handler=_SlowWrite) as server:
        config = load_http_config(EXAMPLE_CONFIG, base_url=server.url)
        with HttpAdapter(replace(config, timeouts={"mutation": 0.1, "query": 1.0})) as sut:
            with pytest.raises(HttpError, match=r"no whole answer within 0.1 s \(measured 0\.1") as err:
                sut.write(ANN, "city", "Lisbon", None)
    assert err.value.kind == "timeout" and 0.1 <= err.value.seconds < 0.3
    assert "raise its timeout" in err.value.fix


def test_connection_refused_names_base_url():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed on exit: nothing listens there
    config = load_http_config(EXAMPLE_CONFIG, base_url=f"http://127.0.0.1:{port}")
    with HttpAdapter(config) as sut, pytest.raises(HttpError, match="cannot connect") as err:
        sut.begin("x")
    assert err.value.kind == "connect" and "fix base_url" in err.value.fix


@pytest.mark.parametrize("text, line, field, fix", [
    ("name: x\nbase_url: http://127.0.0.1:1\nretries: 3\n", 3, "retries", "use only contract, base_url, name"),
    ("base_url: http://127.0.0.1:1\nretries: 3\n", 2, "retries", "use only contract, base_url, supports_ttl"),
    ("base_url: http://h\ntimeouts: {query: 3}\nsupports_ttl: true\n", 3, "supports_ttl",
     "contract: memorycheck"),  # keys of both contracts
    ("contract: mem0\nbase_url: http://h\n", 1, "contract", "contract: memlab"),
    ("base_url: http://h\nsupports_ttl: 'false'\n", 2, "supports_ttl", "unquoted"),
    ("base_url: http://h\ntimeout_seconds: .nan\n", 2, "timeout_seconds", "timeout_seconds: 30"),
    ("base_url: http://h\nconvergence_timeout_seconds: .inf\n", 2, "convergence_timeout_seconds", "30"),
    ("base_url: http://h\nauth_token_env: 'bad name'\n", 2, "auth_token_env", "MEMORYCHECK_HTTP_TOKEN"),
    ('base_url: "http://h\\r\\nX-Injected: 1"\n', 1, "base_url", "on one line"),
    ("base_url: http://h:99999\n", 1, "base_url", "http://host:port"),
    ("name: x\nbase_url: ftp://host\n", 2, "base_url", "http://host:port"),
    ("base_url: http://u:p@host\n", 1, "base_url", "put credentials in headers"),
    ("base_url: http://h\npaths:\n  query: v1/query\n", 3, "paths.query", "starting with /"),
    ("base_url: http://h\npaths: {search: /s}\n", 2, "paths.search", "reset, write, delete, query"),
    ("base_url: http://h\nenv: [MEMLAB_UNSET_VAR]\nheaders:\n  X-Key: ${MEMLAB_UNSET_VAR}\n", 4, "headers.X-Key",
     "export MEMLAB_UNSET_VAR"),
    ("base_url: http://h\nheaders:\n  X-Key: ${MEMLAB_UNSET_VAR}\n", 3, "headers.X-Key", "env: [MEMLAB_UNSET_VAR]"),
    ("base_url: http://h\ntimeouts:\n  mutation: 0\n", 3, "timeouts.mutation", "mutation: 5"),
    ("base_url: http://h\ntimeouts:\n  query: .inf\n", 3, "timeouts.query", "query: 30"),
    ("base_url: http://h\ncapabilities: {update: true}\n", 2, "capabilities.update", "ttl and tenants"),
    ("base_url: http://h\ncapabilities:\n  ttl: yes please\n", 3, "capabilities.ttl", "ttl: true"),
    ("paths: {}\n", 1, "base_url", "add `base_url"),
    ("base_url: [http://h\n", 2, "(yaml)", "YAML syntax"),
    ("base_url: http://h\nbase_url: http://g\n", 2, "base_url", "keep one base_url:"),
    ("base_url: http://h\n---\nbase_url: http://g\n", 2, "(yaml)", "a shim config is one YAML document"),
    ("base_url: http://h\nheaders: " + "[" * 40 + "]" * 40 + "\n", 2, "(yaml)", "no field of a shim config nests"),
    ("base_url: !!python/name:os.system http://h\n", 1, "(yaml)", "remove the !tag"),
])
def test_a_bad_config_names_file_line_field_and_fix(tmp_path, text, line, field, fix):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(HttpConfigError) as err:
        load_http_config(path)
    assert (err.value.line, err.value.field) == (line, field)
    assert fix in err.value.fix and str(err.value).startswith(f"{path}:{line}: {field}: ")


def test_an_alias_bomb_in_a_config_is_refused_before_it_expands(tmp_path):
    """Six levels of ten aliases each are a million values once expanded (eight, a hundred million)."""
    path = tmp_path / "bomb.yaml"
    path.write_text(alias_bomb("base_url: http://127.0.0.1:1"))
    with pytest.raises(HttpConfigError) as err:
        load_http_config(path)
    assert err.value.field == "(yaml)" and "alias bomb" in err.value.fix
    assert "more than 20000 values once its aliases are expanded" in err.value.message


def test_the_config_defaults_and_the_url_override(tmp_path):
    path = tmp_path / "ours.yaml"
    path.write_text("base_url: https://memory.example.com/api/\npaths: {query: /v2/search}\n")
    config = load_http_config(path)
    assert config.name == "ours" and config.url("query") == "https://memory.example.com/api/v2/search"
    assert config.url("reset") == "https://memory.example.com/api/reset"
    assert config.timeouts == {"mutation": 5.0, "query": 30.0, "convergence": 5.0}
    assert config.capabilities == {"ttl": False, "tenants": True} and config.contract == "memlab"
    assert load_http_config(path, base_url="http://127.0.0.1:8000").url("write") == "http://127.0.0.1:8000/write"
