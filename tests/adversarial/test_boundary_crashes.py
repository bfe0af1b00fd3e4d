"""No crash reads as a verdict (issue 39, the boundary): exit 1 is a verdict (a gate failed, a set
rejected), 2 bad input or a harness error, and a crash is neither. A stray or malformed scenario of a
lifecycle set, a run.json of another kind, an ASCII terminal, a driver answer nested 100,000 deep:
each is named (the file, the limit), never a traceback with exit 1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from resultsets import copy_set

from lab.cli import main
from lab.driver import DriverClient, DriverError
from lab.driver.lines import MAX_ANSWER_DEPTH, json_depth, parse_answer

ROOT = Path(__file__).resolve().parents[2]
AT_REST = ROOT / "results" / "published" / "agno-sqlite"
LIFECYCLE = AT_REST / "lifecycle"


def cli(*args) -> tuple[int, str]:
    """``memlab ARGS`` in this process: (exit code, output); an exception other than an exit fails."""
    done = CliRunner().invoke(main, [str(a) for a in args])
    assert done.exception is None or isinstance(done.exception, SystemExit), repr(done.exception)
    return done.exit_code, done.output  # standard output and error, as a terminal shows them


def edit_json(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


# 1. a stray or malformed scenarios/*.json of a lifecycle set


@pytest.mark.parametrize("content", ["{}", "[]", "42", '{"id": "x", "title": "t"}'],
                         ids=["empty-object", "array", "number", "missing-keys"])
def test_a_stray_malformed_scenario_is_a_rejection_naming_the_file(tmp_path, content):
    root = copy_set(LIFECYCLE, tmp_path / "set")
    (root / "scenarios" / "zz-stray.json").write_text(content)
    code, out = cli("verify", root)
    assert code == 1 and "REJECTED" in out and "scenarios/zz-stray.json" in out, out
    assert "not a saved scenario" in out
    code, out = cli("verify", "--json", root)
    findings = {(f["ground"], f["file"]) for f in json.loads(out)["findings"]}
    assert code == 1 and ("evidence-extra", "scenarios/zz-stray.json") in findings, out
    assert ("row-not-derivable", "scenarios/zz-stray.json") in findings, out
    code, out = cli("gate", "--fail-on", "partial", root)
    assert code == 2 and "zz-stray.json" in out, out  # undecided: the set does not verify
    code, out = cli("site", "--out", tmp_path / "site", "--sweeps", tmp_path / "no-sweeps", root)
    assert code == 1 and "zz-stray.json" in out and not (tmp_path / "site" / "index.html").exists(), out


def test_a_pinned_scenario_made_malformed_is_a_rejection_naming_it(tmp_path):
    root = copy_set(LIFECYCLE, tmp_path / "set")
    pinned = sorted((root / "scenarios").glob("*.json"))[0]
    edit_json(pinned, lambda d: d.pop("steps"))
    code, out = cli("verify", "--json", root)
    findings = {(f["ground"], f["file"]) for f in json.loads(out)["findings"]}
    assert code == 1 and ("row-not-derivable", f"scenarios/{pinned.name}") in findings, out


def test_a_scenario_that_is_a_dangling_link_or_a_folder_is_named(tmp_path):
    root = copy_set(LIFECYCLE, tmp_path / "set")
    (root / "scenarios" / "zz-link.json").symlink_to(tmp_path / "nothing")
    (root / "scenarios" / "zz-folder.json").mkdir()
    code, out = cli("verify", root)
    assert code == 1 and "zz-link.json" in out and "zz-folder.json" in out, out


# 2. a run.json of another kind, or of another shape


@pytest.mark.parametrize("kind", ["lifecycle", 42, None], ids=["lifecycle", "number", "null"])
def test_an_at_rest_run_json_with_its_kind_flipped_is_a_rejection(tmp_path, kind):
    root = copy_set(AT_REST, tmp_path / "set")
    edit_json(root / "run.json", lambda d: d.update(kind=kind))
    for args in (("verify", root), ("verify", "--json", root)):
        code, out = cli(*args)
        assert code == 1 and "run.json" in out, out
    code, out = cli("gate", "--fail-on", "partial", root)
    assert code == 2 and "does not verify" in out, out


@pytest.mark.parametrize("change", [lambda d: d.clear() or d.update(rows=[{"row": 5}]),
                                    lambda d: d.update(fail_on=42), lambda d: d.update(seeds="two", rows=["x"])],
                         ids=["row-not-a-name", "fail-on-number", "rows-of-strings"])
def test_a_lifecycle_run_json_of_another_shape_is_run_malformed(tmp_path, change):
    root = copy_set(LIFECYCLE, tmp_path / "set")
    edit_json(root / "run.json", change)
    code, out = cli("verify", "--json", root)
    assert code in (1, 3) and "run.json" in out, out


def test_a_lifecycle_run_json_that_is_no_object_is_run_malformed(tmp_path):
    root = copy_set(LIFECYCLE, tmp_path / "set")
    (root / "run.json").write_text("[]")
    code, out = cli("verify", "--json", root)
    assert code == 1 and "run-malformed" in out, out


# 3. an output encoding that cannot write every character


def run_in(encoding: str, *args, cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONIOENCODING": encoding, "MEMLAB_CACHE": str(cache)}
    return subprocess.run([sys.executable, "-m", "lab.cli", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, timeout=300)


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_a_passing_lifecycle_run_passes_whatever_the_output_encoding(tmp_path, cache, encoding):
    out = tmp_path / "set"
    done = run_in(encoding, "lifecycle", "run", "--sut", "lifecycle-strict", "--runtime", "local", "--out", out,
                  cache=cache)
    assert b"Traceback" not in done.stderr and done.returncode == 0, done.stderr.decode(errors="replace")
    for args in (("verify", out), ("show", out)):
        done = run_in(encoding, *args, cache=cache)
        assert b"Traceback" not in done.stderr and done.returncode == 0, done.stderr.decode(errors="replace")
    assert b"VERIFIED" in run_in(encoding, "verify", out, cache=cache).stdout


def test_an_at_rest_run_completes_on_an_ascii_terminal(tmp_path, cache):
    out = tmp_path / "set"
    done = run_in("ascii", "run", "--profiles", ROOT / "tests" / "fixtures" / "faulty", "--sut", "reference-naive",
                  "--runtime", "local", "--out", out, cache=cache)
    err = done.stderr.decode(errors="replace")
    assert done.returncode == 0 and "Traceback" not in err and "PARTIAL" not in err, err
    assert b"VERIFIED" in run_in("ascii", "verify", out, cache=cache).stdout


def test_a_fault_after_the_set_is_complete_never_calls_it_partial(tmp_path, capsys, monkeypatch):
    from lab.cli import run_failures

    monkeypatch.setenv("MEMLAB_CACHE", str(tmp_path / "cache"))
    with pytest.raises(SystemExit) as ended:
        run_failures.harness(RuntimeError("printing failed"), tmp_path / "set", measured=True)
    said = capsys.readouterr().err
    assert ended.value.code == 2 and "PARTIAL" not in said and "is complete" in said, said


# 4. a driver answer nested deeper than any result set is read


DEEP = '''
import json, sys
rid = json.loads(sys.stdin.readline())["id"]
sys.stdout.write('{"id": %d, "ok": true, "records": [{"text": "a", "x": ' % rid + "[" * 100000 + "]" * 100000
                 + '}], "signals": []}\\n')
sys.stdout.flush(); sys.stdin.read()
'''


def test_a_100k_deep_driver_answer_is_a_harness_error_naming_the_limit(tmp_path):
    script = tmp_path / "driver.py"
    script.write_text(textwrap.dedent(DEEP))
    drv = DriverClient([sys.executable, "-u", str(script)], {"PATH": "/usr/bin:/bin"}, tmp_path,
                       tmp_path / "sut.log").start()
    try:
        with pytest.raises(DriverError, match=f"nested more than {MAX_ANSWER_DEPTH} levels") as caught:
            drv.call("read", 10, context="A")
    finally:
        drv.stop()
    assert "MAX_ANSWER_DEPTH" in str(caught.value) and "SUT log" in str(caught.value)


def test_the_driver_and_the_http_shim_take_answers_equally_deep():
    from lab.lifecycle.adapters.http_json import MAX_ANSWER_DEPTH as HTTP_DEPTH

    assert MAX_ANSWER_DEPTH == HTTP_DEPTH
    at_limit = "[" * MAX_ANSWER_DEPTH + "]" * MAX_ANSWER_DEPTH
    assert json_depth(parse_answer(at_limit.encode())) == MAX_ANSWER_DEPTH
    with pytest.raises(ValueError, match="MAX_ANSWER_DEPTH"):
        parse_answer(("[" + at_limit + "]").encode())


def test_a_lone_surrogate_a_driver_serves_is_taken_as_text_never_a_harness_error():
    """Served text: kept as its escape (lab.resultset.surrogates; tests/adversarial/test_hostile_text.py), so a SUT
    cannot turn a cell into an uncounted harness error by appending one."""
    answer = parse_answer(b'{"id": 1, "ok": true, "records": [{"text": "a\\ud800"}], "signals": []}')
    assert answer["records"][0]["text"] == "a\ud800"
