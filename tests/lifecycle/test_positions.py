"""The restarted position and erasure at rest on the real reference SUTs (local runtime): the same
checks as live with a restart after every mutation, the naive store's erased values found on disk
at offsets that hold them, the strict store's not, a row without per-record erasure, and the
result set of both positions (side by side, verifying, a tampered scan rejected)."""

import json
import shutil
from pathlib import Path

import pytest
import shims
from test_driver_adapter import lifecycle_profile
from test_lifecycle_gate import gate_run, memlab

from lab.lifecycle.adapters.driver import DriverAdapter
from lab.lifecycle.derive import derive_row
from lab.lifecycle.residue import needles
from lab.lifecycle.runner import run_pack, run_scenario
from lab.lifecycle.scenario import BUNDLED_PACK
from lab.lifecycle.scenario_pack import load_pack
from lab.profile import ProfileError, load_profile
from lab.runtime import get_runtime
from lab.runtime.housekeeping import RunRegistry, new_run_id

pytestmark = pytest.mark.system  # composes or runs rows end to end: out of the fast loop

ROOT = Path(__file__).resolve().parents[2]
MUTATIONS = ("write", "correct", "delete", "rescope", "advance_time")
SMALL = ("deletion-basic", "rescope-user", "correction-basic")


@pytest.fixture(scope="module")
def bundled():
    return load_pack(BUNDLED_PACK).scenarios


@pytest.fixture(scope="module")
def registry(cache):
    reg = RunRegistry(new_run_id())
    yield reg
    reg.close()


def measure(row, position, scenarios, registry):
    """The pack at ``position`` on a fresh SUT: (derived row, number of SUT starts)."""
    with DriverAdapter(lifecycle_profile(row), get_runtime("local"), registry) as sut:
        observations = run_pack(sut, scenarios, 1, position=position)
        starts = sut.sut.starts
    meta = {"row": row, "position": position, "capabilities": sorted(sut.capabilities)}
    return derive_row(meta, {s.id: s for s in scenarios}, observations, "p2"), starts


@pytest.mark.parametrize("row", ["lifecycle-strict", "lifecycle-naive"])
def test_restarted_gives_the_checks_of_live_with_a_restart_after_every_mutation(row, bundled, registry):
    live, _ = measure(row, "live", bundled, registry)
    restarted, starts = measure(row, "restarted", bundled, registry)
    mutations = sum(1 for s in bundled for step in s.steps if step.op in MUTATIONS)
    assert restarted["errors"] == [] and restarted["position"] == "restarted" and live["position"] == "live"
    assert restarted["checks"] == live["checks"] and restarted["gate"] == live["gate"]  # the store persists
    assert restarted["restarts"]["count"] == mutations == starts - 1 and live["restarts"]["count"] == 0
    assert 0 < restarted["restarts"]["median_seconds"] < 2
    e, again = live["erasure_at_rest"], restarted["erasure_at_rest"]
    counts = ("deletes", "scanned", "present", "not_found", "not_attributable", "not_measured", "not_applied")
    assert {k: e[k] for k in counts} == {k: again[k] for k in counts} and e["scanned"] > 0 and e["problems"] == []
    if row == "lifecycle-strict":  # its store file is rewritten whole: the erased value is gone from it
        assert e["present"] == 0 and e["not_found"] == e["scanned"]
    else:  # naive marks records erased and keeps them
        assert e["present"] == e["scanned"] and all(item["hits"] for item in e["evidence"])


@pytest.mark.parametrize("position", ["live", "restarted"])
def test_a_present_hit_names_a_file_and_offset_that_hold_the_value(position, bundled, registry):
    deletion = next(s for s in bundled if s.id == "deletion-basic")  # only queries follow its delete
    for row in ("lifecycle-naive", "lifecycle-strict"):
        with DriverAdapter(lifecycle_profile(row), get_runtime("local"), registry) as sut:
            obs = run_scenario(sut, deletion, 0, "s0-deletion", position)
            record = next(e["erasure_at_rest"] for e in obs["steps"] if e["op"] == "delete")
            volumes = sut.volumes()
            assert record["when"].startswith("right after" if position == "live" else "the SUT and its services stopped")
            [value] = record["values"]
            assert value["value"] == "cashew allergy code AL-93"
            if row == "lifecycle-strict":
                assert record["status"] == "not_found" and record["scanned"]["files"] == 1
                assert record["scanned"]["bytes"] == (volumes["store"] / "lifecycle.json").stat().st_size
                continue
            assert record["status"] == "present" and value["hits"]
            for hit in value["hits"]:  # read the file itself: the bytes are there
                needle = needles(value["value"])[hit["encoding"]]
                data = (volumes[hit["volume"]] / hit["file"]).read_bytes()
                assert hit["file"] == "lifecycle.json" and data[hit["offset"]:hit["offset"] + len(needle)] == needle


def test_a_row_without_per_record_erasure_sends_no_delete_and_its_ledger_applies_none(tmp_path, cache):
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    text = (ROOT / "sut_profiles" / "lifecycle-strict.yaml").read_text()
    assert "[ttl, tenants, erase]" in text
    (profiles / "lifecycle-context.yaml").write_text(  # the reference, erasing whole contexts only
        text.replace("row: lifecycle-strict", "row: lifecycle-context").replace("[ttl, tenants, erase]", "[ttl, tenants]")
        .replace("  mode: strict", "  mode: strict\n  erasure: context"))
    summary, out = gate_run(tmp_path, "--sut", "lifecycle-context", "--profiles", profiles, rc=0)
    row = json.loads((out / "rows" / "lifecycle-context@live.json").read_text())
    check = row["checks"]["deletion_residue"]
    assert check["status"] == "NOT TESTED" and check["reason"].startswith("the SUT erases whole contexts only")
    assert check["opportunities"] == 0  # the ledger never marked a value deleted
    assert row["checks"]["missing_current_fact"]["violations"] == 0  # nor moved one the SUT still holds
    skipped = [s for p in (out / "observations" / "lifecycle-context@live").glob("*.json")
               for s in json.loads(p.read_text())["skipped"]]
    pack = [step for s in load_pack(BUNDLED_PACK).scenarios for step in s.steps if step.op in ("delete", "rescope")]
    assert len(skipped) == len(pack) and all(s["applied"] is False and "erasure" in s["reason"] for s in skipped)
    assert row["erasure_at_rest"]["deletes"] == 0 and row["erasure_at_rest"]["not_applied"] == len(pack)
    assert summary["status"] == "PASS"


def test_erase_is_a_lifecycle_capability_of_the_profile_schema(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text((ROOT / "sut_profiles" / "lifecycle-strict.yaml").read_text().replace("erase]", "erasure]"))
    with pytest.raises(ProfileError, match=r"must be a list of \['ttl', 'tenants', 'update', 'erase'\]"):
        load_profile(path)


@pytest.fixture(scope="module")
def both(tmp_path_factory, cache):
    """lifecycle-strict and lifecycle-naive, --restart, on three scenarios of the pack."""
    tmp = tmp_path_factory.mktemp("both")
    (tmp / "pack").mkdir()
    for sid in SMALL:
        shutil.copy(BUNDLED_PACK / f"{sid}.yaml", tmp / "pack")
    return gate_run(tmp, "--sut", "lifecycle-strict", "--sut", "lifecycle-naive", "--restart",
                    "--scenarios", tmp / "pack", rc=1)


def test_each_position_is_its_own_row_side_by_side_and_the_set_verifies(both):
    summary, out = both
    keys = ["lifecycle-naive@live", "lifecycle-naive@restarted", "lifecycle-strict@live", "lifecycle-strict@restarted"]
    assert sorted(summary["rows"]) == keys and sorted(p.stem for p in (out / "rows").glob("*.json")) == keys
    assert sorted(p.name for p in (out / "observations").iterdir()) == keys
    run = json.loads((out / "run.json").read_text())
    order = [f"{m['row']}@{m['position']}" for m in run["rows"]]  # each row's positions one after the other
    assert sorted(order) == keys and [k.split("@")[0] for k in order][::2] == [k.split("@")[0] for k in order][1::2]
    restarts = summary["rows"]["lifecycle-strict@restarted"]["restarts"]["count"]
    assert restarts > 0 and summary["rows"]["lifecycle-strict@live"]["restarts"]["count"] == 0
    logs = {k: len(list((out / "logs" / k).glob("*.log"))) for k in keys}  # one per SUT start
    assert logs["lifecycle-strict@live"] == 1 and logs["lifecycle-strict@restarted"] == 1 + restarts
    assert summary["rows"]["lifecycle-naive@live"]["erasure_at_rest"]["present"] == 1
    assert "VERIFIED" in memlab("verify", out, check_rc=0).stdout
    table = [line.split(" | ")[0] for line in (out / "report.md").read_text().splitlines() if line.startswith("| lifecycle")]
    assert table == [f"| {k}" for k in order]  # adjacent, never merged


def test_the_reports_show_every_hit_and_junit_carries_the_finding_without_gating(both):
    summary, out = both
    item = summary["rows"]["lifecycle-naive@restarted"]["erasure_at_rest"]["evidence"][0]
    hit = item["hits"][0]
    html = (out / "report.html").read_text()
    assert f"<td>{hit['file']}</td><td>{hit['offset']}</td>" in html and "not decoded" in html
    assert f"store/lifecycle.json @ {hit['offset']} (utf-8)" in (out / "report.md").read_text()
    junit = (out / "junit.xml").read_text()
    case = junit.split('name="erasure_at_rest"')[2].split("</testcase>")[0]  # the second row's
    assert "<system-out>" in case and "<failure" not in case and "<skipped" not in case


def test_verify_rejects_a_scan_changed_from_present_to_not_found(both, tmp_path):
    _, out = both
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    path = copy / "observations" / "lifecycle-naive@live" / "deletion-basic@s0.json"
    obs = json.loads(path.read_text())
    record = next(e["erasure_at_rest"] for e in obs["steps"] if e["op"] == "delete")
    assert record["status"] == "present"
    record["status"] = record["values"][0]["status"] = "not_found"
    record["values"][0]["hits"] = []
    path.write_text(json.dumps(obs))
    done = memlab("verify", copy, check_rc=1).stdout
    assert "digest-mismatch" in done and "row-not-derivable" in done and "erasure_at_rest" in done


@pytest.mark.parametrize("flag", [("--position", "restarted"), ("--restart",)])
def test_an_http_shim_cannot_take_the_restarted_position(flag, tmp_path):
    done = memlab("lifecycle", "run", "--http", shims.EXAMPLE_CONFIG, *flag, "--out", tmp_path / "o", check_rc=2)
    assert "cannot be restarted by the lab" in done.stderr and "--position live" in done.stderr
    assert not (tmp_path / "o").exists()
