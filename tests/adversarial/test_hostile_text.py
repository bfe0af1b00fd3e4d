"""Text from outside is inert: what a SUT serves, or a set holds, with an escape sequence (OSC 52 writes
a terminal's clipboard), a forged CR/LF line, rich markup ('[/x]' crashed show, report and compare) or a
lone surrogate (which no canonical encoding holds: the run's manifest could not be written) is printed,
reported and pinned as text, never interpreted; the set memlab writes verifies."""

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner
from resultsets import cache, copy_set, make_result_set, memlab  # noqa: F401 (cache: a fixture)

from lab.cli import main
from lab.report.inert import inert
from lab.resultset.verify import verify

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "fixtures" / "hostile"
RAW = ("\x1b", "\x07", "\r", "\ud800")  # none of these may reach a terminal or a report as itself
PROFILE = (ROOT / "sut_profiles" / "reference-naive-jsonl.yaml").read_text()


def _raw(text: str) -> list[str]:
    return [repr(c) for c in RAW if c in text]


def test_inert_shows_controls_and_escapes_markup():
    assert inert("a\x1b]52;c;aGk=\x07\r\nB [/x]") == "a\\x1b]52;c;aGk=\\x07\\r\\nB \\[/x]"
    assert inert("\u202egnp.exe \u200b \ud800", markup=False) == "\\u202egnp.exe \\u200b \\ud800"
    assert inert("one\ntwo\r", markup=False, lines=True) == "one\ntwo\\r"
    assert inert("plain [ok] text", markup=False) == "plain [ok] text" and inert(3) == "3"


@pytest.fixture(scope="module")
def hostile_set(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile-text")
    profile = PROFILE.replace("row: reference-naive-jsonl", "row: hostile-text").replace(
        "driver: reference", f"driver: {HOSTILE}").replace("  seal: none\n", "  seal: none\n  hostile: {kind: text}\n")
    (folder / "hostile-text.yaml").write_text(profile)
    out = folder / "out"
    done = memlab("run", "--runtime", "local", "--profiles", folder, "--sut", "hostile-text", "--out", out,
                  cache=tmp_path_factory.getbasetemp() / "memlab-cache")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr  # not evaluable: C1 differs
    return out


def test_a_sut_serving_hostile_text_gives_a_set_that_verifies_with_inert_reports(hostile_set):
    assert verify(hostile_set).ok, verify(hostile_set).findings
    for name in ("report.md", "junit.xml", "report.html"):
        text = (hostile_set / name).read_text(encoding="utf-8")
        assert _raw(text) == [], name
    assert "\\x1b]52;c;aGk=\\x07\\r\nFAKE  PASS  everything [/x]" in (hostile_set / "report.html").read_text()
    ET.parse(hostile_set / "junit.xml")  # valid XML: an ESC is none
    served = json.dumps(json.loads((hostile_set / "observations" / "hostile-text" / "C1.json").read_text()))
    assert "\\\\ud800" in served and "\\ud800" not in served.replace("\\\\ud800", "")  # written as text


def _tampered(pristine: Path, tmp_path: Path, name: str) -> Path:
    root = copy_set(pristine, tmp_path / "rs")
    path = next((root / "rows").glob("*.json"))
    row = json.loads(path.read_text())
    row.update(row=name, level="L0 \x1b[2J", title="[link=http://127.0.0.1/]t[/link]")
    row["cells"]["T1"].update(verdict="error", reason="boom [/z]\x1b]52;c;aGk=\x07\r\nFAKE PASS")
    path.write_text(json.dumps(row))
    return root


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    return make_result_set(tmp_path_factory, "reference-naive", extra=("--no-reports",), name="text")


@pytest.mark.parametrize("name", ["evil[/x]\x1b]52;c;aGk=\x07\r\nFAKE  PASS", "twin\u202e\u200b[bold]", "lone\ud800"])
def test_no_reader_prints_a_sets_text_raw_or_crashes_on_it(pristine, tmp_path, name):
    root = _tampered(pristine, tmp_path, name)
    runner = CliRunner()
    for args in (["show", root], ["report", root], ["report", root, "--format", "markdown"],
                 ["report", root, "--format", "junit"], ["report", root, "--format", "html"],
                 ["compare", pristine, root], ["verify", root], ["site", root, "--out", tmp_path / "site", "--no-verify", "--sweeps", tmp_path],
                 ["gate", root, "--fail-on", "accepted"]):
        result = runner.invoke(main, [str(a) for a in args])
        assert result.exception is None or isinstance(result.exception, SystemExit), (args, repr(result.exception))
        assert result.exit_code in (0, 1, 2) and _raw(result.output) == [], (args, result.output)
        if args[0] == "report" and "junit" in args and result.exit_code == 0:
            ET.fromstring(result.output)
    for page in (tmp_path / "site").glob("*.html"):
        assert _raw(page.read_text(encoding="utf-8")) == [], page
    findings = {f.ground for f in verify(root).findings}
    assert ("row-malformed" if "\ud800" in name else "digest-mismatch") in findings, findings
