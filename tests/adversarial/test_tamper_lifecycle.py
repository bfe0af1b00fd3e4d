"""A published lifecycle set tampered with: strict reading (verify names the row, show and report exit 2
with the file, never a traceback), stray *.tmp rows and symlinks are findings."""

import json
import shutil

import pytest
from click.testing import CliRunner
from resultsets import ROOT

from lab.cli import main
from lab.lifecycle.verify import verify_lifecycle

SOURCE = ROOT / "results" / "published" / "atelya-attest-chain+anchor" / "lifecycle"
ROW = "rows/atelya-attest-chain+anchor@live.json"


@pytest.fixture
def rs(tmp_path):
    return shutil.copytree(SOURCE, tmp_path / "rs")


def cli(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    return result.exit_code, " ".join(result.output.split())


def test_the_copy_verifies(rs):
    assert verify_lifecycle(rs).ok


@pytest.mark.parametrize("old,new", [('"adapter": "driver"', '"adapter": "x", "adapter": "driver"'),
                                     ('"rate": 0.0', '"rate": NaN'),
                                     ('{', '{"deep": ' + "[" * 100_000 + "]" * 100_000 + ", ")],
                         ids=["duplicate-key", "nan", "100k-deep"])
def test_a_row_the_strict_reader_refuses(rs, old, new):
    text = (rs / ROW).read_text(encoding="utf-8")
    (rs / ROW).write_text(text.replace(old, new, 1), encoding="utf-8")
    assert ("row-malformed", ROW) in {(f.ground, f.file) for f in verify_lifecycle(rs).findings}
    code, out = cli("verify", rs)
    assert code == 1 and "row-malformed" in out
    for args in (("show", rs), ("report", rs, "--format", "markdown")):
        code, out = cli(*args)
        assert code == 2 and "memlab:" in out and "@live.json" in out, (args[0], out)


def test_a_stray_tmp_row_and_a_symlink_are_findings(rs):
    (rs / "rows" / "x.json.tmp").write_text("{}\n")
    target = rs.parent / "outside.json"
    scenario = sorted((rs / "scenarios").iterdir())[0]
    shutil.copyfile(scenario, target)
    scenario.unlink()
    scenario.symlink_to(target)
    found = {(f.ground, f.file) for f in verify_lifecycle(rs).findings}
    assert ("row-extra", "rows/x.json.tmp") in found
    assert ("unsafe-file", scenario.relative_to(rs).as_posix()) in found


@pytest.mark.parametrize("key,value", [("run_id", "someone-else"), ("lab", {"commit": "0" * 40}), ("fail_on", "p2")])
def test_a_manifest_naming_another_run_than_run_json(rs, key, value):
    manifest = json.loads((rs / "manifest.json").read_text())
    manifest[key] = value
    (rs / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    assert ("run-malformed", "manifest.json") in {(f.ground, f.file) for f in verify_lifecycle(rs).findings}



@pytest.mark.parametrize("field,value,said", [("seeds", "two", "field 'seeds' is a str"),
                                              ("rows", [{"row": 5}], "field 'rows[0].row' is a int"),
                                              ("fail_on", 42, "field 'fail_on' is a int")])
def test_a_run_json_of_another_shape_is_run_malformed_naming_its_field(rs, field, value, said):
    run = json.loads((rs / "run.json").read_text())
    run[field] = value
    (rs / "run.json").write_text(json.dumps(run, indent=2, sort_keys=True) + "\n")
    found = [f for f in verify_lifecycle(rs).findings if f.file == "run.json" and f.ground == "run-malformed"]
    assert len(found) == 1 and said in found[0].detail, found
