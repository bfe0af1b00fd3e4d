"""Errors that say the real thing (issue 41, item 4), on copies of the published sets, in process:

a. ``compare`` of an at-rest and a lifecycle set names each set's kind, never a malformed row;
b. ``lifecycle run`` of a PACK there is none of says "no such file or folder", and what a pack is;
c. ``verify`` of a folder that holds sets below it verifies each one, a line each and a total;
d. an unknown ``--sut`` row gets its close matches ("did you mean"), in one place for every command.
"""

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from resultsets import ROOT

from lab.cli import main
from lab.cli import verify_below as below_mod
from lab.lifecycle import results as lifecycle_results
from lab.profile import no_row_matches
from lab.resultset import kinds, loading, manifest

PUBLISHED = ROOT / "results" / "published"
AT_REST_AND_LIFECYCLE = PUBLISHED / "agno-sqlite-sessions"  # an at-rest set; lifecycle/, frontdoor/ and compose/ below it
ONLY_LIFECYCLE = PUBLISHED / "langgraph-store"  # no set itself: lifecycle/ (its frontdoor/ left out by copy)
MISLEADING = ("not a memlab row", "names what changed")


def memlab(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def copy(src: Path, dest: Path) -> Path:
    """A copy of a published row's folder, its front-door set and its composition left out (these tests count
    the others)."""
    shutil.copytree(src, dest, symlinks=True, ignore=shutil.ignore_patterns("frontdoor", "compose"))
    return dest


def tamper(root: Path) -> None:
    """Change one verdict of the set's first row: verify rejects it."""
    row = sorted((root / "rows").glob("*.json"))[0]
    row.write_text(row.read_text().replace('"ACCEPTED"', '"REJECTED"', 1) + " ")


# a. compare reads each set's kind first

def test_kinds_match_the_writers():
    assert kinds.SCHEMAS == {manifest.MANIFEST_SCHEMA: kinds.AT_REST, lifecycle_results.MANIFEST_SCHEMA: kinds.LIFECYCLE}
    assert loading.set_kind(AT_REST_AND_LIFECYCLE) == "at-rest"
    assert loading.set_kind(AT_REST_AND_LIFECYCLE / "lifecycle") == "lifecycle"
    assert loading.set_kind(ONLY_LIFECYCLE) is None
    assert kinds.kind_of_schema("memlab.frontdoor-manifest/1") == "frontdoor"
    assert kinds.kind_of_schema("other/1") is None


def test_kind_of_a_partial_set_is_read_from_its_run(tmp_path):
    part = copy(AT_REST_AND_LIFECYCLE / "lifecycle", tmp_path / "lc")
    (part / "manifest.json").unlink()
    assert loading.set_kind(part) == "lifecycle"
    rest = tmp_path / "rest"
    rest.mkdir()
    (rest / "run.json").write_text(json.dumps({"rows": ["x"], "status": "running"}))
    assert loading.set_kind(rest) == "at-rest"


@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_compare_at_rest_and_lifecycle_names_both_kinds(order):
    sets = [AT_REST_AND_LIFECYCLE, AT_REST_AND_LIFECYCLE / "lifecycle"]
    result = memlab("compare", sets[order[0]], sets[order[1]])
    assert result.exit_code == 2, result.output
    out = " ".join(result.output.split())
    assert f"{AT_REST_AND_LIFECYCLE} is an at-rest set" in out
    assert f"{AT_REST_AND_LIFECYCLE / 'lifecycle'} is a lifecycle set" in out
    assert "cannot be compared cell for cell" in out and "fix:" in out
    assert not any(text in out for text in MISLEADING)


def test_compare_two_lifecycle_sets_says_it_is_not_supported():
    result = memlab("compare", AT_REST_AND_LIFECYCLE / "lifecycle", ONLY_LIFECYCLE / "lifecycle")
    assert result.exit_code == 2, result.output
    out = " ".join(result.output.split())
    assert "compares at-rest sets only" in out and "lifecycle sets are not compared cell for cell" in out
    assert "memlab show DIR" in out
    assert not any(text in out for text in MISLEADING)


def test_compare_two_at_rest_sets_still_compares():
    result = memlab("compare", AT_REST_AND_LIFECYCLE, PUBLISHED / "agno-sqlite-sessions")
    assert result.exit_code == 0, result.output
    assert "comparable row(s)" in result.output


def test_an_at_rest_reader_given_a_lifecycle_set_says_what_it_is():
    for args in (("gate", "--fail-on", "accepted"), ("analyze", "--out", "/nonexistent/never-written")):
        result = memlab(*args[:1], AT_REST_AND_LIFECYCLE / "lifecycle", *args[1:])
        assert result.exit_code == 2, result.output
        out = " ".join(result.output.split())
        assert "is a lifecycle set" in out and "reads at-rest sets only" in out, out
        assert not any(text in out for text in MISLEADING)


def test_a_changed_row_of_an_at_rest_set_still_says_so(tmp_path):
    rest = copy(AT_REST_AND_LIFECYCLE, tmp_path / "rest")
    row = sorted((rest / "rows").glob("*.json"))[0]
    row.write_text(json.dumps({**json.loads(row.read_text()), "detection_point": 3}))
    with pytest.raises(loading.Unreadable, match="is not a memlab row: .*names what changed"):
        loading.load_rows(rest)


# b. a PACK there is none of

@pytest.mark.parametrize("args", [("no-such-pack.yaml",), ("no-such-pack.yaml", "--sut", "lifecycle-strict"),
                                  ("--scenarios", "no-such-pack.yaml", "--sut", "lifecycle-strict")])
def test_lifecycle_run_of_a_missing_pack(args, tmp_path):
    result = memlab("lifecycle", "run", *args, "--out", tmp_path / "out")
    assert result.exit_code == 2, result.output
    out = " ".join(result.output.split())
    assert "no such file or folder: no-such-pack.yaml" in out
    assert "a scenario pack is a folder of scenario *.yaml/*.yml files, or one such file" in out and "fix:" in out
    assert "name what to gate" not in out and "invalid scenario" not in out
    assert not (tmp_path / "out").exists()


def test_lifecycle_run_of_a_row_given_as_the_pack():
    result = memlab("lifecycle", "run", "lifecycle-strict")
    assert result.exit_code == 2, result.output
    out = " ".join(result.output.split())
    assert "no such file or folder: lifecycle-strict" in out and "is a row, not a pack" in out
    assert "--sut lifecycle-strict" in out


@pytest.mark.parametrize("command", ["validate", "export"])
def test_validate_and_export_of_a_missing_pack(command, tmp_path):
    to = ("--to", tmp_path / "to") if command == "export" else ()
    result = memlab("lifecycle", command, tmp_path / "nope", *to)
    assert result.exit_code == 2, result.output
    assert "no such file or folder:" in result.output and "invalid scenario" not in result.output


# c. verify of a folder of sets

def test_verify_a_folder_holding_a_lifecycle_set(tmp_path):
    row = copy(ONLY_LIFECYCLE, tmp_path / "langgraph-store")
    result = memlab("verify", row)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split()[:3] == ["VERIFIED", "lifecycle", f"{row / 'lifecycle'}:"]
    assert lines[-1] == f"1 set(s) below {row} (up to 4 levels): 1 verified; exit 0"
    assert "not a memlab result set" not in result.output


def test_verify_below_exits_as_the_worst_set(tmp_path):
    top = tmp_path / "published"
    copy(AT_REST_AND_LIFECYCLE, top / "a")
    copy(ONLY_LIFECYCLE, top / "b")
    result = memlab("verify", top)
    assert result.exit_code == 0 and result.output.count("VERIFIED") == 3, result.output
    (top / "b" / "lifecycle" / "manifest.json").unlink()  # its run completed, its manifest gone: partial
    result = memlab("verify", top)
    assert result.exit_code == 3, result.output
    assert [line.split()[0] for line in result.output.splitlines()[:3]] == ["VERIFIED", "VERIFIED", "PARTIAL"]
    tamper(top / "a")
    result = memlab("verify", top)
    assert result.exit_code == 1, result.output
    assert result.output.splitlines()[0].startswith("REJECTED   at-rest")
    assert f"`memlab verify {top / 'a'}` names each" in result.output
    assert result.output.splitlines()[-1] == (f"3 set(s) below {top} (up to 4 levels): 1 verified, 1 rejected, "
                                               "1 partial; exit 1")


def test_verify_below_as_json(tmp_path):
    top = tmp_path / "top"
    copy(ONLY_LIFECYCLE, top / "b")
    result = memlab("verify", top, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["exit"] == 0 and data["counts"]["verified"] == 1
    assert [(s["result_set"], s["kind"], s["verdict"]) for s in data["sets"]] == [
        (str(top / "b" / "lifecycle"), "lifecycle", "VERIFIED")]


def test_verify_below_follows_no_link_and_stops_at_its_depth(tmp_path):
    outside = copy(ONLY_LIFECYCLE / "lifecycle", tmp_path / "outside")
    top = tmp_path / "top"
    (top / "1" / "2" / "3").mkdir(parents=True)
    (top / "link").symlink_to(outside, target_is_directory=True)
    copy(ONLY_LIFECYCLE / "lifecycle", top / "1" / "2" / "3" / "4")  # 4 levels below: found
    copy(ONLY_LIFECYCLE / "lifecycle", top / "1" / "2" / "3" / "4" / "5")  # 5: not searched
    found = below_mod.sets_below(top)
    assert found.sets == [top / "1" / "2" / "3" / "4"] and found.links == [top / "link"]
    result = memlab("verify", top)
    assert result.exit_code == 0, result.output
    assert "1 set(s) below" in result.output and "1 symbolic link(s) not followed" in result.output


def test_verify_of_a_folder_with_no_set_below_keeps_its_error(tmp_path):
    (tmp_path / "empty" / "deeper").mkdir(parents=True)
    result = memlab("verify", tmp_path / "empty")
    assert result.exit_code == 2, result.output
    out = " ".join(result.output.split())
    assert "manifest.json is missing: not a memlab result set" in out
    assert "nor is any folder up to 4 levels below it one" in out and "fix:" in out


def test_verify_of_a_set_names_the_sets_below_it():
    result = memlab("verify", AT_REST_AND_LIFECYCLE)
    assert result.exit_code == 0, result.output
    assert any(line.startswith(f"VERIFIED {AT_REST_AND_LIFECYCLE}:") for line in result.output.splitlines())
    out = " ".join(result.output.split())
    assert "holds 3 more set(s) below it, not verified with it: compose, frontdoor, lifecycle" in out
    assert f"`memlab verify {AT_REST_AND_LIFECYCLE / 'compose'}`" in out


def test_many_sets_are_verified_under_a_progress_bar(tmp_path, monkeypatch):
    monkeypatch.setattr(below_mod, "MANY", 1)
    top = tmp_path / "top"
    copy(ONLY_LIFECYCLE, top / "b")
    copy(ONLY_LIFECYCLE, top / "c")
    result = memlab("verify", top)
    assert result.exit_code == 0, result.output
    assert "2/2" in result.output  # the bar, done
    assert result.output.splitlines()[-1].startswith("2 set(s) below")


# d. did you mean

def test_no_row_matches_names_the_close_rows():
    rows = ["reference-naive", "reference-strict", "mem0-qdrant-local", "agno-sqlite"]
    text = no_row_matches(["reference-naiv"], rows, "sut_profiles")
    assert text.splitlines()[:2] == ["no row 'reference-naiv' in sut_profiles", "  did you mean reference-naive? "
                                     "(also close: reference-strict)"]
    assert "did you mean agno-sqlite?" in no_row_matches(["AGNO-SQLITE"], rows)
    many = no_row_matches(["mem0", "zzz"], rows)
    assert "no row matches any of 'mem0', 'zzz'" in many and "'mem0': did you mean mem0-qdrant-local?" in many
    assert "did you mean" not in no_row_matches(["zzz"], rows)


@pytest.mark.parametrize("command", [("lifecycle", "run"), ("run",)])
def test_an_unknown_sut_gets_did_you_mean(command, tmp_path):
    result = memlab(*command, "--sut", "reference-naiv", "--out", tmp_path / "out")
    assert result.exit_code == 2, result.output
    out = " ".join(result.output.split())
    assert "no row 'reference-naiv'" in out and "did you mean reference-naive?" in out
    assert "memlab list" in out
    assert not (tmp_path / "out").exists()


def test_an_unknown_adapter_row_gets_did_you_mean():
    result = memlab("lifecycle", "run", "--adapter", "sut:lifecycle-strcit")
    assert result.exit_code == 2, result.output
    assert "did you mean lifecycle-strict?" in result.output


def test_links_are_not_followed_even_to_a_set_inside(tmp_path):
    top = copy(ONLY_LIFECYCLE, tmp_path / "top")
    os.symlink(top / "lifecycle", top / "again")
    found = below_mod.sets_below(top)
    assert found.sets == [top / "lifecycle"] and found.links == [top / "again"]
