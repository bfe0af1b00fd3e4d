"""verify is exact: every file a manifest pins is listed once, in one spelling, in a place evidence
lives; ``verify --json`` prints JSON whatever happens (an unreadable set, a bad --pubkey); a partial
set whose run.json names a row without a row file is PARTIAL, not rejected."""

import json

import pytest
from click.testing import CliRunner
from resultsets import cache, copy_set, load, make_result_set, save  # noqa: F401 (cache: a fixture)

from lab.cli import main
from lab.resultset.verify import verify


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    return make_result_set(tmp_path_factory, "reference-naive", extra=("--no-reports",), name="exact")


def _manifest(root, change):
    manifest = load(root / "manifest.json")
    change(manifest)
    save(root / "manifest.json", manifest)


@pytest.mark.parametrize("name, change, detail", [
    ("an evidence file listed twice", lambda m: m["evidence"].append(dict(m["evidence"][0])), "listed twice"),
    ("an evidence file listed again as a//b",
     lambda m: m["evidence"].append({**m["evidence"][0], "file": m["evidence"][0]["file"].replace("/", "//", 1)}),
     "needs a relative file"),
    ("a file that is no evidence listed as evidence",
     lambda m: m["evidence"].append({"file": "manifest.json", "digest": "sha256:" + "0" * 64}), "is no evidence file"),
])
def test_a_manifest_listing_a_file_twice_or_out_of_place_is_rejected(pristine, tmp_path, name, change, detail):
    root = copy_set(pristine, tmp_path / "rs")
    _manifest(root, change)
    result = verify(root)
    found = [f for f in result.findings if f.ground == "row-malformed"]
    assert found and detail in found[0].detail, (name, result.findings)


def _verify_json(*args):
    result = CliRunner().invoke(main, ["verify", *map(str, args), "--json"])
    return result.exit_code, json.loads(result.output)


def test_verify_json_prints_json_for_an_unreadable_set(pristine, tmp_path):
    code, said = _verify_json(tmp_path / "absent")
    assert code == 2 and said["verified"] is False and "is not a folder" in said["error"]
    root = copy_set(pristine, tmp_path / "rs")
    (root / "manifest.json").write_text("{not json")
    code, said = _verify_json(root)
    assert code == 2 and said["unreadable"] and "manifest.json" in said["error"], said
    code, said = _verify_json(pristine, "--pubkey", root / "manifest.json")
    assert code == 2 and "--pubkey" in said["error"], said


def test_a_partial_set_missing_a_row_file_is_partial_not_rejected(pristine, tmp_path):
    root = copy_set(pristine, tmp_path / "rs")
    run = load(root / "run.json")
    run["status"] = "failed"  # a full disk: the row file was never written, run.json and the manifest were
    save(root / "run.json", run)
    for row in (root / "rows").glob("*.json"):
        row.unlink()
    from lab.resultset.results import ResultSet
    ResultSet(root, resume=True).write_manifest(run)
    result = CliRunner().invoke(main, ["verify", str(root)])
    assert result.exit_code == 3 and "PARTIAL" in result.output and "rows without a row file: reference-naive" \
        in result.output, result.output
