"""The tamper table (bench/tamper.py) on a real set: verify rejects every class naming its ground,
and no reading command (verify, gate, show, report, compare, analyze) crashes on any of them."""

import json
import sys

import pytest
from click.testing import CliRunner
from resultsets import ROOT, make_result_set

from lab.cli import main
from lab.resultset.verify import GROUNDS, verify

sys.path.insert(0, str(ROOT / "bench"))
import tamper as table  # noqa: E402

#: Classes whose tampered row file every reader must refuse (exit 2), not render.
READERS_REFUSE = {"row NaN metric", "row 1e400 metric", "row 100k-deep JSON", "row duplicate verdict key",
                  "row duplicate verdict key, signed set", "row file 33 MiB (same JSON value)", "a fifo in rows/",
                  "row with a lone surrogate", "row file replaced by a folder",
                  "row of another shape (controls.C1 without ok), re-pinned",
                  "row of another shape (a cell's evidence a list), re-pinned"}


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    return make_result_set(tmp_path_factory, table.ROW_NAME, extra=("--no-reports",), name="tamper")


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    return table.keys(tmp_path_factory.mktemp("tamper-keys"))


def cli(*args):
    """``memlab ARGS`` in this process: the exit code and everything printed; a crash fails the test."""
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.output


def test_the_untouched_set_verifies(pristine, keys, tmp_path):
    assert verify(pristine).ok
    signed = table.tampered(pristine, table.Tamper("none", lambda r, k: None, "", signed=True), tmp_path, keys)
    assert verify(signed, keys.public).ok  # so every class below is caught by its tamper, not by the set


def test_the_table_is_large_and_names_known_grounds():
    assert len(table.CLASSES) >= 86
    assert len({t.name for t in table.CLASSES}) == len(table.CLASSES)
    assert {t.ground for t in table.CLASSES} <= set(GROUNDS) | {table.UNREADABLE}
    assert READERS_REFUSE <= {t.name for t in table.CLASSES}


@pytest.mark.parametrize("tamper", table.CLASSES, ids=[t.name for t in table.CLASSES])
def test_verify_rejects_the_class_and_no_reader_crashes(pristine, keys, tmp_path, tamper):
    root = table.tampered(pristine, tamper, tmp_path, keys)
    held, said = table.outcome(root, tamper, keys)
    assert held, f"{tamper.name}: wanted {tamper.ground}, got {said}"
    pin = ["--pubkey", keys.public_path] if tamper.pinned else []
    code, out = cli("verify", root, *pin)
    if tamper.name == "manifest removed":  # run.json completed, no manifest: what a kill while writing it leaves
        assert code == 3 and "PARTIAL" in out and "no manifest.json" in out, out
    elif tamper.ground == table.UNREADABLE:
        assert code == 2 and "memlab:" in out and "manifest.json" in out, out
    elif tamper.ground == "run-incomplete" and not tamper.name.startswith("partial run"):  # PARTIAL, not complete
        assert code == 3 and "PARTIAL" in out and "trials without an observation" in out, out
    else:
        assert code == 1 and tamper.ground in out, out
    code, out = cli("gate", root, "--fail-on", "accepted", *pin)
    assert code == 2 and "memlab:" in out, out  # a set that does not verify is never gated
    for args in (("show", root), ("report", root, "--format", "markdown"), ("compare", pristine, root)):
        code, out = cli(*args)
        if tamper.name in READERS_REFUSE:
            assert code == 2 and "memlab:" in out and "rows/" in out, (args[0], out)
        else:
            assert code in (0, 2) and (code == 0 or "memlab:" in out), (args[0], out)
    code, out = cli("analyze", root, "--out", tmp_path / "analyzed", "--no-reports")
    assert code in (0, 2) and (code == 0 or "memlab:" in out), out
    if code == 0:  # analyze derived a new set from evidence that matches its manifest: that set verifies,
        found = {f.ground for f in verify(tmp_path / "analyzed").findings}  # or is as partial as its source
        partial = json.loads((root / "run.json").read_text()).get("status") != "completed"
        assert found == ({"run-incomplete"} if partial else set()), found


def test_a_partial_set_says_which_trials_are_missing(pristine, keys, tmp_path):
    tamper = next(t for t in table.CLASSES if t.name.startswith("partial run"))
    result = verify(table.tampered(pristine, tamper, tmp_path, keys))
    incomplete = [f for f in result.findings if f.ground == "run-incomplete"]
    assert len(incomplete) == 1 and f"{table.ROW_NAME}/T10" in incomplete[0].detail, result.findings
    assert not result.ok

