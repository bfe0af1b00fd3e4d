"""The lifecycle gate end to end: `memlab lifecycle run` on the reference rows and on a shim,
its exit codes, its --json summary, its result set verifying (and rejecting a tampered one)."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import shims
from shims.noop_delete import Store as NoopDeleteStore

pytestmark = pytest.mark.system  # composes or runs rows end to end: out of the fast loop

ROOT = Path(__file__).resolve().parents[2]
CHECKS = ("scope_leakage", "deletion_residue", "stale_reuse", "expiry_leak", "missing_current_fact")


def memlab(*args, check_rc=None):
    """Run the CLI in a subprocess; the completed process."""
    done = subprocess.run([sys.executable, "-m", "lab.cli", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert "Traceback" not in done.stderr, done.stderr
    if check_rc is not None:
        assert done.returncode == check_rc, done.stdout + done.stderr
    return done


def gate_run(tmp: Path, *args, rc):
    """One gated run into ``tmp``; (summary JSON, the result-set folder)."""
    out, summary = tmp / "set", tmp / "summary.json"
    memlab("lifecycle", "run", *args, "--runtime", "local", "--out", out, "--json", summary, check_rc=rc)
    return json.loads(summary.read_text()), out


@pytest.fixture(scope="module")
def naive(tmp_path_factory, cache):
    return gate_run(tmp_path_factory.mktemp("naive"), "--sut", "lifecycle-naive", rc=1)


@pytest.fixture(scope="module")
def leaky(tmp_path_factory, cache):
    return gate_run(tmp_path_factory.mktemp("leaky"), "--sut", "lifecycle-leaky", rc=1)


@pytest.fixture(scope="module")
def strict(tmp_path_factory, cache):
    return gate_run(tmp_path_factory.mktemp("strict"), "--sut", "lifecycle-strict", "--seeds", "2", rc=0)


def rate(summary, name):
    check = summary["checks"][name]
    assert check["opportunities"] > 0, f"{name} had no opportunity in the bundled pack"
    return check["violations"] / check["opportunities"]


def test_naive_fails_on_stale_deleted_and_expired_values_and_leaks_no_scope(naive):
    summary, _ = naive
    assert summary["gate"]["status"] == "FAIL" and "lifecycle-naive@live:deletion_residue" in summary["gate"]["blocking"]
    assert [rate(summary, n) for n in ("stale_reuse", "deletion_residue", "expiry_leak")] == [1.0, 1.0, 1.0]
    assert rate(summary, "scope_leakage") == 0.0
    assert summary["current_fact_accuracy"]["hits"] == summary["current_fact_accuracy"]["opportunities"] > 0
    assert summary["memory_utility_delta"] == 1.0


def test_leaky_adds_scope_leakage(leaky):
    summary, _ = leaky
    assert summary["checks"]["scope_leakage"]["status"] == "FAIL"
    assert 0 < rate(summary, "scope_leakage") < 1
    assert "lifecycle-leaky@live:scope_leakage" in summary["gate"]["blocking"]


def test_strict_passes_with_every_current_fact_and_a_full_utility_delta(strict):
    summary, _ = strict
    assert summary["status"] == "PASS" and summary["seeds"] == 2 and summary["scenarios"] >= 15
    assert {n: summary["checks"][n]["status"] for n in CHECKS} == {n: "PASS" for n in CHECKS}
    assert summary["current_fact_accuracy"]["hits"] == summary["current_fact_accuracy"]["opportunities"] > 0
    assert summary["memory_utility_delta"] == 1.0
    assert "paraphrase" in summary["judge_limits"] or "paraphrased" in summary["judge_limits"]


def test_the_result_set_verifies_and_every_report_is_written(strict):
    _, out = strict
    assert "VERIFIED" in memlab("verify", out, check_rc=0).stdout
    for name in ("report.md", "junit.xml", "report.html", "summary.json", "manifest.json"):
        assert (out / name).is_file(), name
    row = json.loads((out / "rows" / "lifecycle-strict@live.json").read_text())
    assert len(row["per_seed"]) == 2 and row["gate"]["unstable"] == []


def test_a_tampered_served_answer_or_row_is_rejected_with_its_ground(naive, tmp_path):
    _, out = naive
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    obs = sorted((copy / "observations" / "lifecycle-naive@live").glob("*.json"))[0]
    data = json.loads(obs.read_text())
    data["queries"][0]["served"]["text"] = ""  # the SUT "served nothing": the counts must change
    obs.write_text(json.dumps(data))
    done = memlab("verify", copy, check_rc=1).stdout
    assert "digest-mismatch" in done and "row-not-derivable" in done
    row_copy = tmp_path / "row"
    shutil.copytree(out, row_copy)
    path = row_copy / "rows" / "lifecycle-naive@live.json"
    row = json.loads(path.read_text())
    row["checks"]["deletion_residue"]["violations"] = 0
    path.write_text(json.dumps(row))
    assert "digest-mismatch" in memlab("verify", row_copy, check_rc=1).stdout


def test_the_findings_name_the_query_what_was_served_and_the_value_that_drove_it(naive):
    _, out = naive
    html = (out / "report.html").read_text()
    row = json.loads((out / "rows" / "lifecycle-naive@live.json").read_text())
    finding = next(f for f in row["findings"] if f["check"] == "deletion_residue")
    (value,) = finding["values"][:1]
    assert value["value"] in finding["served"] and value["label"] == "deleted" and finding["prompt"]
    assert f"<mark>{value['value']}</mark>" in html
    assert len({(f["scenario"], f["seed"], f["step"], f["check"]) for f in row["findings"]}) == len(row["findings"])


def test_a_bad_scenario_file_is_an_input_error_naming_file_and_line(tmp_path):
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "bad.yaml").write_text("id: bad\ntitle: t\nsubject: {tenant_id: a, user_id: u}\n"
                                   "steps:\n  - delete: {key: never-written}\n")
    done = memlab("lifecycle", "run", "--sut", "lifecycle-strict", "--runtime", "local", "--scenarios", pack,
                  "--out", tmp_path / "out", check_rc=2)
    assert "bad.yaml:5" in done.stderr and "fix" in done.stderr
    assert not (tmp_path / "out").exists(), "nothing may run on an invalid pack"
    assert memlab("lifecycle", "validate", pack, check_rc=2).returncode == 2


def test_a_row_that_does_not_take_the_lifecycle_measurement_is_refused_with_the_fix(tmp_path):
    done = memlab("lifecycle", "run", "--sut", "reference-naive", "--runtime", "local", "--out", tmp_path / "o",
                  check_rc=2)
    assert "does not take the lifecycle measurement" in done.stderr and "fix" in done.stderr


def test_an_invalid_profile_a_glob_selects_stops_the_gate_with_its_error(tmp_path):
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    text = (ROOT / "sut_profiles" / "lifecycle-strict.yaml").read_text()
    shutil.copy(ROOT / "sut_profiles" / "lifecycle-strict.yaml", profiles)
    (profiles / "lifecycle-bad.yaml").write_text(text.replace("row: lifecycle-strict", "row: lifecycle-bad\nbogus: [x]"))
    done = memlab("lifecycle", "run", "--profiles", profiles, "--sut", "lifecycle-*", "--runtime", "local",
                  "--out", tmp_path / "o", check_rc=2)
    assert "lifecycle-bad.yaml:2: bogus: unknown field" in done.stderr and "nothing was run" in done.stderr
    assert not (tmp_path / "o").exists()


def test_a_pack_without_queries_is_inconclusive_never_a_pass(tmp_path, cache):
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "w.yaml").write_text("id: only-writes\ntitle: t\nsubject: {tenant_id: a, user_id: u}\n"
                                 "steps:\n  - write: {key: k, value: lonely-value-9Z}\n")
    summary, _ = gate_run(tmp_path, "--sut", "lifecycle-strict", "--scenarios", pack, rc=1)
    assert summary["status"] == "INCONCLUSIVE"
    assert {c["status"] for c in summary["checks"].values()} == {"NOT TESTED"}


def test_the_gate_runs_a_teams_http_shim_and_a_delete_that_never_takes_effect_is_deletion_residue(tmp_path):
    """A delete the shim acknowledges and never applies: by default the value still served is judged,
    deletion residue (P1, exit 1) with the latency measured; ``--unapplied-delete error`` keeps the peer
    gate's refusal to score it (a harness error, exit 2, never a finding)."""
    config = tmp_path / "shim.yaml"
    for store, extra, rc in ((None, (), 0), (NoopDeleteStore(), (), 1),
                             (NoopDeleteStore(), ("--unapplied-delete", "error"), 2)):
        with shims.serve(store) as server:
            text = shims.EXAMPLE_CONFIG.read_text().replace("http://127.0.0.1:8765", server.url)
            config.write_text(text.replace("  query: 5\n", "  query: 5\n  convergence: 0.2\n"))
            summary, out = gate_run(tmp_path / f"rc{rc}", "--http", config, *extra, rc=rc)
        row = json.loads(next((out / "rows").glob("*.json")).read_text())
        residue = summary["checks"]["deletion_residue"]
        if rc == 0:
            assert residue["status"] == "PASS"
        elif rc == 1:  # judged: the residue is a finding, with the acknowledgement and what was measured
            assert residue["status"] == "FAIL" and residue["violations"] > 0 and not row["errors"], row["errors"]
            acks = [o for o in (out / "observations").rglob("*.json") if '"applied": false' in o.read_text()]
            assert acks, "the unapplied delete's confirmation (applied: false, seconds, queries) is kept"
        else:  # never a finding: the delete was confirmed by polling, it never took effect, the scenario stopped
            assert summary["status"] == "error" and residue["violations"] == 0
            assert any("was still served 0.2" in e["message"] and "delete" in e["message"] for e in row["errors"])


def test_a_missing_or_bad_shim_config_is_an_input_error_never_a_traceback(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nbase_url: http://127.0.0.1:1\nbogus: 1\n")
    for args in (("run", "--http"), ("doctor",)):
        assert "cannot read" in memlab("lifecycle", *args, tmp_path / "absent.yaml", check_rc=2).stderr
        assert "bad.yaml:3: bogus" in memlab("lifecycle", *args, bad, check_rc=2).stderr


def test_several_rows_are_summed_at_the_top_of_the_summary(tmp_path, cache):
    summary, _ = gate_run(tmp_path, "--sut", "lifecycle-strict", "--sut", "lifecycle-naive", rc=1)
    rows = summary["rows"].values()
    for name in CHECKS:
        top = summary["checks"][name]
        assert top["violations"] == sum(r["checks"][name]["violations"] for r in rows)
        assert top["opportunities"] == sum(r["checks"][name]["opportunities"] for r in rows)
    assert summary["checks"]["deletion_residue"]["status"] == "FAIL"  # naive fails it, strict passes it
    assert summary["current_fact_accuracy"]["hits"] == sum(r["current_fact_accuracy"]["hits"] for r in rows)
