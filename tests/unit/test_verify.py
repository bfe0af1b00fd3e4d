"""``memlab verify`` on a real result set: it passes untouched and names the ground of every tamper."""

import json
from pathlib import Path

import pytest
from resultsets import (copy_set, edit_row, fix_evidence_digest, load, make_result_set, memlab, save,
                        shared_cache)

from lab.resultset import signing
from lab.resultset.verify import GROUNDS, verify

SEALED, NAIVE = "rows/reference-sealed@read.json", "rows/reference-naive@read.json"


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    return make_result_set(tmp_path_factory, "reference-sealed", "reference-naive")


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return shared_cache(tmp_path_factory)


@pytest.fixture
def rs(pristine, tmp_path):
    return copy_set(pristine, tmp_path / "rs")


def grounds(root, pubkey=None):
    return {(f.ground, f.file) for f in verify(root, pubkey).findings}


def test_untouched_set_verifies(pristine, cache):
    result = verify(pristine)
    assert result.ok and result.rows == 2 and result.evidence > 20
    proc = memlab("verify", pristine, cache=cache)
    assert proc.returncode == 0 and proc.stdout.startswith("VERIFIED"), proc.stdout


@pytest.mark.parametrize("fraction", [0.1, 0.35, 0.6, 0.9])
def test_one_byte_changed_in_a_row_is_a_digest_mismatch(rs, fraction):
    data = bytearray((rs / SEALED).read_bytes())
    i = int(len(data) * fraction)
    while not chr(data[i]).isalnum():  # a letter or digit inside the JSON, so it stays parseable
        i += 1
    data[i] = ord("x") if data[i] != ord("x") else ord("y")
    (rs / SEALED).write_bytes(bytes(data))
    assert ("digest-mismatch", SEALED) in grounds(rs)


def test_a_row_file_that_is_no_longer_json_is_a_digest_mismatch(rs):
    (rs / NAIVE).write_bytes((rs / NAIVE).read_bytes()[:-10])
    assert grounds(rs) == {("digest-mismatch", NAIVE)}


def test_a_removed_row_is_row_missing(rs):
    (rs / SEALED).unlink()
    assert grounds(rs) == {("row-missing", SEALED)}


def test_an_added_row_is_row_extra(rs):
    row = load(rs / NAIVE)
    row["row"] = "reference-naive-copy"
    save(rs / "rows" / "reference-naive-copy@read.json", row)
    assert grounds(rs) == {("row-extra", "rows/reference-naive-copy@read.json")}


@pytest.mark.parametrize("field,value", [("metric", 0.9), ("level", "L2"), ("groups", {"T1-T5": 1.0})])
def test_an_edited_score_with_its_digest_fixed_is_caught_only_by_the_recount(rs, field, value):
    def change(row):
        if field == "groups":
            row["groups"].update(value)
        else:
            row[field] = value
    edit_row(rs, NAIVE, change)
    assert grounds(rs) == {("recount-differs", NAIVE)}


def test_a_verdict_edited_and_rescored_is_not_derivable_from_its_observations(rs):
    def change(row):
        row["cells"]["T3"]["verdict"] = "REJECTED"
    edit_row(rs, NAIVE, change, rescore=True)  # metric and level agree with the cells; digest fixed
    result = verify(rs)
    assert {(f.ground, f.file) for f in result.findings} == {("verdict-not-derivable", NAIVE)}
    assert "T3: the row says REJECTED" in result.findings[0].detail
    assert "give ACCEPTED" in result.findings[0].detail


def test_a_cell_reason_edited_is_not_derivable(rs):
    edit_row(rs, SEALED, lambda row: row["cells"]["T1"].update(reason="looked fine to me"))
    assert grounds(rs) == {("verdict-not-derivable", SEALED)}


def test_a_stated_configuration_edited_is_row_not_derivable(rs):
    edit_row(rs, NAIVE, lambda row: row["configuration"].update(head="off-store"))
    assert grounds(rs) == {("row-not-derivable", NAIVE)}


def test_an_edited_observation_is_pinned_and_when_repinned_no_longer_gives_the_verdict(rs):
    obs = "observations/reference-naive/T1.json"
    data = load(rs / obs)
    data["read"] = {"ok": False, "refused": True, "error": "integrity failure", "signals": []}
    save(rs / obs, data)
    assert ("digest-mismatch", obs) in grounds(rs)
    fix_evidence_digest(rs, obs)
    assert grounds(rs) == {("verdict-not-derivable", NAIVE)}


@pytest.mark.parametrize("case,evidence,why", [
    ("T3", "records_after", "the record is still present"),  # the deleted record is there after the edit
    ("T9", "records_between", "the genuine write should add exactly"),  # the SUT's write added nothing
])
def test_a_c3_flipped_to_landed_against_its_saved_evidence_is_c3_not_derivable(rs, case, evidence, why):
    obs = f"observations/reference-naive/{case}.json"
    data = load(rs / obs)
    assert data["c3"]["ok"] is True
    data["c3"][evidence] = data["c3"]["records_before"]  # the evidence now says the edit did not land
    save(rs / obs, data)
    fix_evidence_digest(rs, obs)
    result = verify(rs)
    assert {(f.ground, f.file) for f in result.findings} == {("c3-not-derivable", obs)}
    assert "the saved C3 says ok=True" in result.findings[0].detail and why in result.findings[0].detail


def test_an_observation_of_the_wrong_shape_names_its_file_and_field(rs, cache, tmp_path):
    obs = "observations/reference-naive/T3.json"
    data = load(rs / obs)
    data["c3"]["ok"] = "yes"
    save(rs / obs, data)
    fix_evidence_digest(rs, obs)
    result = verify(rs)
    assert {(f.ground, f.file) for f in result.findings} == {("verdict-not-derivable", NAIVE)}
    assert f"{obs}: field c3.ok: Input should be a valid boolean" in result.findings[0].detail
    proc = memlab("analyze", rs, "--out", tmp_path / "new", cache=cache)
    assert proc.returncode == 2 and f"{obs}: field c3.ok" in proc.stderr and not (tmp_path / "new").exists()


def test_missing_and_unlisted_evidence(rs):
    log = sorted((rs / "logs" / "reference-sealed").iterdir())[0]
    log.unlink()
    (rs / "observations" / "reference-sealed" / "T11.json").write_text("{}\n")
    assert grounds(rs) == {("evidence-missing", log.relative_to(rs).as_posix()),
                           ("evidence-extra", "observations/reference-sealed/T11.json")}


@pytest.mark.parametrize("field,value,said", [("rows", ["reference-sealed", 7], "field 'rows[1]' is a int"),
                                              ("status", 1, "field 'status' is a int"),
                                              ("kind", "lifecycle", "schema 'memlab.lifecycle-run/1'")])
def test_a_re_pinned_run_json_of_another_shape_is_named_by_its_record(rs, field, value, said):
    run = load(rs / "run.json")
    run[field] = value
    save(rs / "run.json", run)
    fix_evidence_digest(rs, "run.json")
    found = [f for f in verify(rs).findings if f.file == "run.json"]
    assert [f.ground for f in found] == ["run-disagrees"] and said in found[0].detail, found


def test_unknown_method_revision(rs):
    manifest = load(rs / "manifest.json")
    manifest["method_revision"] = "bpm-agent-memory-integrity-99"
    save(rs / "manifest.json", manifest)
    found = grounds(rs)
    assert ("unknown-method-revision", "manifest.json") in found
    assert {g for g, _ in found} == {"unknown-method-revision"}


def test_changed_decision_rules_are_refused(rs):
    manifest = load(rs / "manifest.json")
    manifest["decision_rules"]["metric"] = "(REJECTED + REPORTED) / N"
    save(rs / "manifest.json", manifest)
    assert grounds(rs) == {("unknown-decision-rules", "manifest.json")}


@pytest.fixture
def keys(tmp_path):
    _, pub, _ = signing.keygen(tmp_path / "k" / "sign.pem")
    _, other, _ = signing.keygen(tmp_path / "k" / "other.pem")
    return tmp_path / "k" / "sign.pem", pub, other


def test_a_signed_set_verifies_against_its_pinned_key(rs, keys, cache):
    key, pub, _ = keys
    assert memlab("sign", rs, "--key", key, cache=cache).returncode == 0
    result = verify(rs, signing.load_public_key(pub))
    assert result.ok and result.signed_by.startswith("ed25519:")
    assert memlab("verify", rs, "--pubkey", pub, cache=cache).returncode == 0


def test_a_signed_set_names_every_file_its_manifest_does_not_pin(rs, keys, cache):
    """A signature vouches for what the manifest pins, no more: a forged junit.xml or summary.json (what CI
    reads) and a file added verify with the set, so verify names each of them, in its text and its JSON."""
    key, pub, _ = keys
    signing.sign(rs, signing.load_private_key(key))
    (rs / "junit.xml").write_text('<testsuites name="memlab"/>')
    (rs / "summary.json").write_text('{"status": "PASS", "exit_code": 0}')
    (rs / "extra").mkdir()
    (rs / "extra" / "notes.txt").write_text("added after signing")
    (rs / "bulk").mkdir()
    for i in range(5):  # a folder of many: named once, with its count
        (rs / "bulk" / f"{i}.txt").write_text(str(i))
    result = verify(rs, signing.load_public_key(pub))
    assert result.ok and {"junit.xml", "summary.json", "extra/notes.txt"} <= set(result.unpinned)
    assert not set(result.unpinned) & {"manifest.json", "manifest.sig", "run.json", SEALED, NAIVE}
    assert not any(f.startswith(("observations/", "logs/")) for f in result.unpinned)  # evidence is pinned
    said = memlab("verify", rs, "--pubkey", pub, cache=cache)
    assert said.returncode == 0 and "not pinned by the manifest" in said.stdout, said.stdout
    assert all(name in said.stdout for name in ("junit.xml", "summary.json", "extra/notes.txt", "bulk/ (5 files)"))
    as_json = json.loads(memlab("verify", rs, "--json", cache=cache).stdout)
    assert as_json["verified"] and "summary.json" in as_json["unpinned"]


def test_a_manifest_changed_after_signing_is_a_bad_signature(rs, keys):
    key, pub, _ = keys
    signing.sign(rs, signing.load_private_key(key))
    manifest = load(rs / "manifest.json")
    manifest["run_id"] = "someone-else"
    save(rs / "manifest.json", manifest)
    assert grounds(rs, signing.load_public_key(pub)) == {("bad-signature", "manifest.sig"),
                                                         ("run-disagrees", "manifest.json")}  # run.json's run_id


def test_an_altered_signature_is_bad(rs, keys):
    key, _, _ = keys
    signing.sign(rs, signing.load_private_key(key))
    record = load(rs / "manifest.sig")
    record["signature"] = ("A" if record["signature"][0] != "A" else "B") + record["signature"][1:]
    save(rs / "manifest.sig", record)
    assert grounds(rs) == {("bad-signature", "manifest.sig")}


def test_a_signature_by_another_key_than_the_pinned_one(rs, keys):
    key, _, other = keys
    signing.sign(rs, signing.load_private_key(key))
    assert grounds(rs, signing.load_public_key(other)) == {("signature-key-mismatch", "manifest.sig")}


def test_an_unsigned_set_with_a_pinned_key(rs, keys):
    assert grounds(rs, signing.load_public_key(keys[1])) == {("signature-missing", "manifest.sig")}


def test_rejection_exits_1_and_names_ground_and_file(rs, cache):
    (rs / SEALED).unlink()
    proc = memlab("verify", rs, cache=cache)
    assert proc.returncode == 1
    assert "REJECTED" in proc.stdout and "row-missing" in proc.stdout and SEALED in proc.stdout
    as_json = memlab("verify", rs, "--json", cache=cache)
    assert json.loads(as_json.stdout)["findings"][0]["ground"] == "row-missing"


def test_a_completed_run_without_its_manifest_is_partial_never_verified(rs, cache):
    (rs / "manifest.json").unlink()  # what a kill while the manifest is written leaves (or its removal)
    proc = memlab("verify", rs, cache=cache)
    assert proc.returncode == 3 and "PARTIAL" in proc.stdout and "no manifest.json" in proc.stdout, proc.stdout
    assert "trials without an observation: none" in proc.stdout and "memlab run --resume" in proc.stdout
    as_json = json.loads(memlab("verify", rs, "--json", cache=cache).stdout)
    assert as_json["partial"] and not as_json["verified"] and not as_json["pinned"]


@pytest.mark.parametrize("damage", ["garbage-manifest", "not-a-folder", "wrong-schema"])
def test_unreadable_input_exits_2_with_a_message(rs, cache, damage):
    target = rs
    if damage == "garbage-manifest":
        (rs / "manifest.json").write_text("{not json")
    elif damage == "wrong-schema":
        save(rs / "manifest.json", {"schema": "something/9"})
    else:
        target = rs / "run.json"
    proc = memlab("verify", target, cache=cache)
    assert proc.returncode == 2 and "memlab:" in proc.stderr, proc.stderr


def test_every_ground_is_documented():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "results.md").read_text()
    assert [g for g in GROUNDS if f"`{g}`" not in doc] == []


@pytest.mark.parametrize("change", [
    lambda row: row.pop("controls"),
    lambda row: row.update(controls=[1, 2]),
    lambda row: row["cells"].pop("T7"),
    lambda row: row["cells"].update(T2="REJECTED"),
    lambda row: row["cells"]["T2"].update(verdict="PASSED"),
])
def test_a_malformed_row_is_named_and_never_crashes_verify_report_or_gate(rs, cache, change):
    edit_row(rs, NAIVE, change)
    assert ("row-malformed", NAIVE) in grounds(rs)
    assert memlab("verify", rs, cache=cache).returncode == 1  # memlab() fails the test on a traceback
    assert memlab("gate", rs, "--fail-on", "accepted", cache=cache).returncode == 2
    memlab("report", rs, "--format", "html", cache=cache)  # renders what it can, or says why not
