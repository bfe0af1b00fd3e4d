"""DriverAdapter on real SUT processes: the lifecycle reference driver (strict, naive, leaky) on
the local runtime, broken drivers for the harness faults, and lifecycle-strict in a container."""

import dataclasses
import shutil
import textwrap
from pathlib import Path
from typing import Any

import pytest

from lab.lifecycle.adapters import AdapterError
from lab.lifecycle.adapters.driver import DriverAdapter
from lab.lifecycle.scenario import Scope
from lab.profile import LifecycleSpec, Profile, load_profile
from lab.runtime import get_runtime
from lab.runtime.dockercli import engine
from lab.runtime.housekeeping import RunRegistry, new_run_id, wait_gone

ROOT = Path(__file__).resolve().parents[2]
ALICE, BOB, OTHER = Scope("acme", "alice"), Scope("acme", "bob"), Scope("globex", "alice")


def lifecycle_profile(name: str, **changes) -> Profile:
    """sut_profiles/<name>.yaml, loaded; ``changes``: lifecycle capabilities, scope, or Profile fields."""
    prof = load_profile(ROOT / "sut_profiles" / f"{name}.yaml")
    caps = frozenset(changes.pop("capabilities", prof.lifecycle.capabilities))
    spec = LifecycleSpec(capabilities=caps, scope=changes.pop("scope", prof.lifecycle.scope))
    return dataclasses.replace(prof, lifecycle=spec, **changes)


@pytest.fixture(scope="module")
def registry(cache):
    reg = RunRegistry(new_run_id())
    yield reg
    reg.close()


@pytest.fixture
def start(registry):
    """start(row, **changes) -> a started DriverAdapter (closed after the test), in namespace t."""
    started = []

    def _start(row: str, runtime: str = "local", **changes) -> DriverAdapter:
        adapter = DriverAdapter(lifecycle_profile(row, **changes), get_runtime(runtime), registry).start()
        started.append(adapter)
        adapter.begin("t")
        return adapter

    yield _start
    for adapter in started:
        adapter.close()


def served(adapter: DriverAdapter, scope: Scope = ALICE) -> list[str]:
    """The text of each record served (the judged text reads each record whole: its text, then its meta)."""
    return [r["text"] for r in adapter.query(scope, "Where is my office?").records]


def test_the_judged_text_reads_every_field_of_a_record(start):
    sut = start("lifecycle-strict")
    sut.write(ALICE, "office", "Porto", None)
    lines = sut.query(ALICE, "Where is my office?").text.splitlines()
    assert lines[0] == "Porto" and "key" in lines and "office" in lines  # meta's member names and values too


def test_naive_serves_a_superseded_value_and_strict_does_not(start):
    for row, expected in (("lifecycle-naive", ["Lisbon", "Porto"]), ("lifecycle-strict", ["Porto"])):
        sut = start(row)
        sut.write(ALICE, "office", "Lisbon", None)
        ack = sut.correct(ALICE, "office", "Porto")
        assert ack.ok and ack.raw["record"]["text"] == "Porto"
        assert served(sut) == expected, row


def test_leaky_serves_another_users_value_of_the_same_tenant(start):
    for row in ("lifecycle-strict", "lifecycle-naive", "lifecycle-leaky"):
        sut = start(row)
        sut.write(BOB, "office", "Oslo", None)
        sut.write(OTHER, "office", "Rome", None)
        sut.write(ALICE, "office", "Lisbon", None)
        assert served(sut) == (["Oslo", "Lisbon"] if row == "lifecycle-leaky" else ["Lisbon"]), row


def test_delete_erases_every_record_of_the_key_and_the_answer_names_them(start):
    strict, naive = start("lifecycle-strict"), start("lifecycle-naive")
    for sut in (strict, naive):
        sut.write(ALICE, "office", "Lisbon", None)
        sut.correct(ALICE, "office", "Porto")
        sut.write(ALICE, "desk", "D7", None)
        ack = sut.delete(ALICE, "office")
        assert ack.ok and sorted(c["erased"][0] for c in ack.raw["calls"]) == ["1", "2"]
    assert served(strict) == ["D7"]
    assert served(naive) == ["Lisbon", "Porto", "D7"]  # "ok", and still served
    assert strict.delete(ALICE, "office").detail.startswith("no record carries 'office'")


def test_ttl_expires_in_strict_only(start):
    for row, expected in (("lifecycle-strict", ["Porto"]), ("lifecycle-naive", ["Lisbon", "Porto"])):
        sut = start(row)
        sut.write(ALICE, "office", "Lisbon", 2)
        sut.write(ALICE, "desk", "Porto", None)
        sut.advance_time(1)
        assert served(sut) == ["Lisbon", "Porto"]
        assert sut.advance_time(1).raw["result"] == {"now": 2}
        assert served(sut) == expected, row


def test_correct_uses_the_suts_own_update_when_declared(start):
    sut = start("lifecycle-strict", capabilities=["ttl", "tenants", "update", "erase"])
    first = sut.write(ALICE, "office", "Lisbon", None).raw["record"]["id"]
    ack = sut.correct(ALICE, "office", "Porto")
    assert ack.raw["record"]["id"] == first  # updated in place, not a second record
    assert served(sut) == ["Porto"]
    sut.delete(ALICE, "office")
    assert served(sut) == []
    naive = start("lifecycle-naive", capabilities=["ttl", "tenants", "update", "erase"])
    naive.write(ALICE, "office", "Lisbon", 2)
    assert naive.correct(ALICE, "office", "Porto").raw["record"]["id"] == "2"  # a new value beside the old
    assert served(naive) == ["Lisbon", "Porto"]
    assert [c["erased"] for c in naive.delete(ALICE, "office").raw["calls"]] == [["1"], ["2"]]


def test_without_tenants_scope_is_folded_into_the_context(start):
    sut = start("lifecycle-leaky", capabilities=["ttl"], scope="folded")
    assert sut.describe()["scope"].startswith("folded")
    sut.write(BOB, "office", "Oslo", None)
    sut.write(OTHER, "office", "Rome", None)
    sent = []
    call = sut.sut.client.call
    sut.sut.client.call = lambda op, timeout, **fields: sent.append(fields) or call(op, timeout, **fields)
    assert served(sut) == ["Oslo"]  # the driver splits "t:acme/t:bob": the leak shows all the same
    assert sent == [{"context": "t:acme/t:alice", "query": "Where is my office?"}]


def test_a_row_the_lifecycle_gate_does_not_measure_is_refused(registry):
    with pytest.raises(AdapterError, match="row reference-naive is not measured by the lifecycle gate"):
        DriverAdapter(load_profile(ROOT / "sut_profiles" / "reference-naive.yaml"), get_runtime("local"), registry)


def test_one_process_serves_every_namespace_and_close_stops_it(start):
    sut = start("lifecycle-strict")
    sut.write(ALICE, "office", "Lisbon", None)
    pid = sut.sut.client.pid
    sut.begin("u")
    assert served(sut) == [] and sut.sut.client.pid == pid
    described = sut.describe()
    assert described["sut"] == "memlab-lifecycle-reference" and described["runtime"] == "local"
    assert described["capabilities"] == ["erase", "tenants", "ttl"] and described["scope"].startswith("separate")
    sut.close()
    assert wait_gone(pid)


def test_the_store_survives_a_restart(start):
    sut = start("lifecycle-strict")
    sut.write(ALICE, "office", "Lisbon", None)
    sut.correct(ALICE, "office", "Porto")
    pid = sut.sut.client.pid
    sut.restart()
    assert sut.sut.client.pid != pid and served(sut) == ["Porto"]


BROKEN = textwrap.dedent('''
    import importlib.util, os, sys, time
    REF = sys.argv[1] if len(sys.argv) > 1 else "{ref}"
    spec = importlib.util.spec_from_file_location("lifecycle_reference", REF)
    ref = importlib.util.module_from_spec(spec); spec.loader.exec_module(ref)
    kit = ref.kit

    class Broken(ref.LifecycleDriver):
        def erase(self, context, record_id):
            super().erase(context, record_id)
            return []  # says ok, names nothing
        def read(self, context):
            if self.config_break == "crash":
                print("boom: the store is gone", file=sys.stderr, flush=True)
                os._exit(3)
            time.sleep(3)
            return []
        def open(self, volumes, config):
            self.config_break = config.pop("break")
            if self.config_break == "extra":  # one line more than the requests asked for, at exit
                import atexit
                atexit.register(lambda: (kit._PROTOCOL_OUT.write('{{"id": 99, "ok": true}}\\n'),
                                         kit._PROTOCOL_OUT.flush()))
            super().open(volumes, config)

    kit.serve(Broken)
''')


@pytest.fixture
def broken(tmp_path):
    """A profile whose driver (./broken) says ok to an erase without naming it, and crashes or hangs on a read."""
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "driver.py").write_text(BROKEN.format(ref=ROOT / "images" / "lifecycle-reference" / "driver.py"))

    def _profile(mode: str) -> Any:
        return lifecycle_profile("lifecycle-strict", driver="./broken", path=tmp_path / "broken.yaml",
                                 row=f"broken-{mode}", configuration={"mode": "strict", "break": mode},
                                 timeouts={"start": 30.0, "op": 0.5})
    return _profile


def test_an_erase_answer_that_does_not_name_the_record_is_a_harness_error(broken, registry):
    with DriverAdapter(broken("crash"), get_runtime("local"), registry) as sut:
        sut.begin("t")
        sut.write(ALICE, "office", "Lisbon", None)
        with pytest.raises(AdapterError, match=r"erase of record 1 \('office'\) answered erased=\[\], "
                                               "which does not name it"):
            sut.delete(ALICE, "office")


def test_a_crash_is_an_adapter_error_with_the_log_path_and_its_last_lines(broken, registry):
    with DriverAdapter(broken("crash"), get_runtime("local"), registry) as sut:
        sut.begin("t")
        with pytest.raises(AdapterError) as err:
            sut.query(ALICE, "q")
    message = str(err.value)
    assert "exited with code 3" in message and f"SUT log: {sut.sut.log_path}" in message
    assert "boom: the store is gone" in message.split("last lines:")[1]


def test_a_read_past_the_profiles_timeout_is_an_adapter_error(broken, registry):
    with DriverAdapter(broken("hang"), get_runtime("local"), registry) as sut:
        sut.begin("t")
        with pytest.raises(AdapterError, match=r"read after 0\.\d+ s: read: no answer within 0.5 s"):
            sut.query(ALICE, "q")


def test_a_capability_the_driver_does_not_offer_is_refused_at_start(registry, tmp_path):
    folder = tmp_path / "plain"
    shutil.copytree(ROOT / "images" / "reference", folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "driver.py").write_text((ROOT / "images" / "reference" / "driver.py").read_text().replace(
        '"snapshot": True}', '"snapshot": True, "lifecycle": []}'))
    prof = lifecycle_profile("lifecycle-strict", driver="./plain", path=tmp_path / "plain.yaml", row="plain",
                             configuration={})
    with pytest.raises(AdapterError, match=r"declares \['tenants', 'ttl'\], which the driver does not offer"):
        DriverAdapter(prof, get_runtime("local"), registry).start()


@pytest.mark.docker
def test_lifecycle_strict_in_a_container(start):
    ok, why = engine()
    if not ok:
        pytest.fail(f"docker tests need a running Docker engine: {why}.\n"
                    "Run .ci/docker-up (as root on Debian) to start one.", pytrace=False)
    sut = start("lifecycle-strict", runtime="docker")
    assert sut.describe()["runtime"] == "docker"
    sut.write(ALICE, "office", "Lisbon", 1)
    sut.correct(ALICE, "office", "Porto")
    sut.write(BOB, "desk", "D7", None)
    assert served(sut) == ["Porto"]
    sut.restart()  # a new container on the same volume
    assert served(sut) == ["Porto"]
    assert sut.delete(ALICE, "office").ok and served(sut) == []


def test_a_line_beyond_the_answers_is_found_when_the_sut_stops(broken, registry):
    with DriverAdapter(broken("extra"), get_runtime("local"), registry) as sut:
        sut.begin("t")
        sut.write(ALICE, "office", "Lisbon", None)
        with pytest.raises(AdapterError, match="no request asked for") as err:
            sut.close()  # the kit's finish path, not a bare stop
        assert sut.sut.client is None and sut.sut.services == []
    assert "exactly one answer per request" in str(err.value)
