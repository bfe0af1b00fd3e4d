"""memlab sweep and memlab run --latest (issue 27) on a SUT package made in the test.

``memlab-sweeptoy`` is a tiny JSON-lines memory whose wheels are written here on the fly into a folder
pip is pointed at alone (``PIP_NO_INDEX``, ``PIP_FIND_LINKS``): 1.0.0 serves whatever the file holds;
1.1.0 keeps a SHA-256 of every note and refuses a note whose text no longer fits (T1 and T5 then
REJECTED), and needs ``memlab-sweepdep==2.0`` where the row pins 1.0 (a pin the release contradicts:
released, with pip's reason); 1.2.0 needs a package no index serves (its install fails). One sweep
over the three releases is made per module (two environments, two runs of one row: seconds) and the
tests read it; ``--latest`` is then asked with the registry serving 1.0.0 only, up to 1.1.0, and up
to 1.2.0.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from lab.sweep import summary
from lab.sweep.halving import halve
from lab.sweep.registry import SelectionError, select

ROOT = Path(__file__).resolve().parents[2]
ROW = "sweeptoy"

#: The toy's module: the tutorial's toynotes (tests/fixtures/own-sut), then SUT: its Notes with the
#: checksums on where ``checked``.
TOYNOTES = ROOT / "tests" / "fixtures" / "own-sut" / "toynotes-driver" / "toynotes.py"
SUT = '''

__version__ = "{version}"
_Notes = Notes


class Notes(_Notes):
    """sweeptoy {version}: notes of many threads as JSON lines{doc}."""

    def __init__(self, folder):
        super().__init__(folder, checksums={checked})
'''

DRIVER = '''import memlab_driver as kit
import sweeptoy


class ToyDriver(kit.Driver):
    def open(self, volumes, config):
        [store] = self.need_volumes("store")
        self.notes = sweeptoy.Notes(store)

    def describe(self):
        return {"sut": "sweeptoy", "version": kit.dist_version("memlab-sweeptoy"),
                "capabilities": {"erasure": "record", "order": True, "metadata": True, "snapshot": True}}

    def write(self, context, text, meta):
        return {"id": self.notes.add(context, text, role=meta.get("role", "user"), source=meta.get("source"))["id"]}

    def read(self, context):
        return [{"id": n["id"], "text": n["text"], "meta": {"role": n["role"], "source": n["source"],
                                                            "timestamp": n["at"]}} for n in self.notes.list(context)]

    def erase_record(self, context, record_id):
        return self.notes.forget(context, record_id)


if __name__ == "__main__":
    kit.serve(ToyDriver)
'''

PROFILE = f'''row: {ROW}
title: sweeptoy 1.0.0, JSON lines (the sweep test's SUT)
sut: {{package: memlab-sweeptoy, version: 1.0.0}}
driver: ./toy-driver
volumes:
  store: {{adversary: true}}
store:
  backend: jsonl
  volume: store
  file: notes.jsonl
  context: thread
  identity: [id]
  order: "@position"
  payload: text
  metadata: {{role: role, source: source, timestamp: at}}
capabilities: {{erasure: record, order: true, metadata: true, snapshot: true}}
detection_points: [read]
dut_boundary: sweeptoy 1.0.0 and its driver; notes.jsonl in volume store
timeouts: {{start: 30, op: 30}}
'''


def wheel(folder: Path, name: str, version: str, files: dict[str, str], requires: tuple[str, ...] = ()) -> Path:
    """A pure-Python wheel of ``name`` ``version`` holding ``files``, written by hand (no build backend)."""
    dist = name.replace("-", "_")
    info = f"{dist}-{version}.dist-info"
    entries = dict(files)
    entries[f"{info}/METADATA"] = (f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
                                   + "".join(f"Requires-Dist: {r}\n" for r in requires))
    entries[f"{info}/WHEEL"] = "Wheel-Version: 1.0\nGenerator: memlab-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = [f"{n},sha256={base64.urlsafe_b64encode(hashlib.sha256(t.encode()).digest()).rstrip(b'=').decode()},"
              f"{len(t.encode())}" for n, t in entries.items()]
    entries[f"{info}/RECORD"] = "\n".join([*record, f"{info}/RECORD,,"]) + "\n"
    path = folder / f"{dist}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for entry, text in entries.items():
            archive.writestr(entry, text)
    return path


def toy_wheel(folder: Path, version: str) -> Path:
    checked = version != "1.0.0"
    requires = {"1.0.0": (), "1.1.0": ("memlab-sweepdep==2.0",), "1.2.0": ("memlab-sweeptoy-absent>=1",)}[version]
    source = TOYNOTES.read_text(encoding="utf-8") + SUT.format(
        version=version, checked=checked, doc=", a checksum per note" if checked else "")
    return wheel(folder, "memlab-sweeptoy", version, {"sweeptoy.py": source}, requires)


def registry(folder: Path, versions: tuple[str, ...]) -> Path:
    """A folder of wheels pip serves from: the toy's ``versions`` and both releases of its dependency."""
    folder.mkdir(parents=True, exist_ok=True)
    for version in versions:
        toy_wheel(folder, version)
    for version in ("1.0", "2.0"):
        wheel(folder, "memlab-sweepdep", version, {"sweepdep.py": f"VERSION = {version!r}\n"})
    return folder


def memlab(*args: object, wheels: Path, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200", "PIP_CONFIG_FILE": os.devnull,
           "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels)}
    env.pop("PIP_INDEX_URL", None)
    env.pop("PIP_EXTRA_INDEX_URL", None)
    return subprocess.run([sys.executable, "-m", "lab.cli", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def toy(tmp_path_factory, cache):
    """The toy row's profile folder, and the registries of the tests."""
    root = tmp_path_factory.mktemp("sweep")
    profiles = root / "profiles"
    (profiles / "toy-driver").mkdir(parents=True)
    (profiles / "toy-driver" / "driver.py").write_text(DRIVER)
    (profiles / "toy-driver" / "requirements.txt").write_text(
        "# sweeptoy 1.0.0 and the helper the row pins (pip freeze)\nmemlab-sweepdep==1.0\nmemlab-sweeptoy==1.0.0\n")
    (profiles / f"{ROW}.yaml").write_text(PROFILE)
    return {"root": root, "profiles": profiles,
            "all": registry(root / "wheels-all", ("1.0.0", "1.1.0", "1.2.0")),
            "first": registry(root / "wheels-first", ("1.0.0",)),
            "second": registry(root / "wheels-second", ("1.0.0", "1.1.0"))}


@pytest.fixture(scope="module")
def swept(toy):
    """One sweep over the three releases."""
    out = toy["root"] / "sweep"
    proc = memlab("sweep", "--sut", ROW, "--profiles", toy["profiles"], "--versions", "1.0.0", "1.1.0", "1.2.0",
                  "--out", out, "--no-reports", "--runtime", "local", wheels=toy["all"], cwd=toy["root"])
    return proc, out


def test_a_sweep_finds_the_release_that_changed_a_verdict(swept):
    proc, out = swept
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = json.loads((out / "sweep.json").read_text())
    status = {r["version"]: r["status"] for r in doc["releases"]}
    assert status == {"1.0.0": "measured", "1.1.0": "measured", "1.2.0": "not-installed"}
    assert doc["status"] == "completed"
    moved = {c["cell"]: c for c in doc["changes"]}
    assert set(moved) == {"read T1", "read T5"}, doc["changes"]
    for cell in ("read T1", "read T5"):
        assert (moved[cell]["old"], moved[cell]["new"]) == ("ACCEPTED", "REJECTED")
        assert (moved[cell]["last_old"], moved[cell]["first_new"]) == ("1.0.0", "1.1.0")
        assert moved[cell]["unmeasured_between"] == []
    assert doc["cells"]["1.0.0"]["read T3"] == doc["cells"]["1.1.0"]["read T3"] == "ACCEPTED"
    assert "changed read T1: ACCEPTED -> REJECTED, first in 1.1.0 (last with ACCEPTED: 1.0.0)" in proc.stdout


def test_each_release_is_a_row_of_its_own_in_a_set_that_verifies(swept):
    _, out = swept
    for version in ("1.0.0", "1.1.0"):
        rows = json.loads((out / version / "manifest.json").read_text())["rows"]
        assert [r["row"] for r in rows] == [f"{ROW}_v{version}"]
        served = json.loads((out / version / "observations" / f"{ROW}_v{version}" / "environment.json").read_text())
        assert served["packages"]["memlab-sweeptoy"] == version
    assert summary.check_sweep(out) == []


def test_a_pin_the_release_contradicts_is_released_with_pips_reason(swept):
    _, out = swept
    doc = json.loads((out / "sweep.json").read_text())
    second = next(r for r in doc["releases"] if r["version"] == "1.1.0")
    [released] = second["resolution"]["released"]
    assert (released["package"], released["pinned"], released["resolved"]) == ("memlab-sweepdep", "1.0", "2.0")
    assert "memlab-sweeptoy 1.1.0 depends on memlab-sweepdep==2.0" in released["because"]
    pins = (out / "requirements" / "1.1.0.txt").read_text()
    assert "memlab-sweepdep==2.0" in pins and "memlab-sweeptoy==1.1.0" in pins
    first = next(r for r in doc["releases"] if r["version"] == "1.0.0")
    assert first["resolution"]["released"] == [] and "memlab-sweepdep==1.0" in (out / "requirements" / "1.0.0.txt").read_text()


def test_a_release_that_fails_to_install_is_reported_with_the_resolvers_message(swept):
    proc, out = swept
    doc = json.loads((out / "sweep.json").read_text())
    third = next(r for r in doc["releases"] if r["version"] == "1.2.0")
    assert "memlab-sweeptoy-absent" in third["message"], third
    assert "sets" not in third and "1.2.0" not in doc["cells"]
    assert "1.2.0: could not be installed" in proc.stdout
    assert "could not be installed" in (out / "summary.md").read_text()


def test_check_verifies_a_sweep_and_refuses_an_edited_record(swept, toy, tmp_path):
    _, out = swept
    ok = memlab("sweep", "--check", out, wheels=toy["all"], cwd=toy["root"])
    assert ok.returncode == 0 and "VERIFIED" in ok.stdout, ok.stdout + ok.stderr
    edited = tmp_path / "edited"
    shutil.copytree(out, edited)
    doc = json.loads((edited / "sweep.json").read_text())
    doc["cells"]["1.1.0"]["read T1"] = "ACCEPTED"
    (edited / "sweep.json").write_text(json.dumps(doc))
    bad = memlab("sweep", "--check", edited, wheels=toy["all"], cwd=toy["root"])
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "1.1.0: the record's cells differ from its sets' (read T1)" in bad.stdout


@pytest.fixture(scope="module")
def published(swept, toy):
    """The 1.0.0 set of the sweep as the row's published set (a folder of published sets)."""
    _, out = swept
    folder = toy["root"] / "published"
    shutil.copytree(out / "1.0.0", folder / ROW)
    return folder


@pytest.mark.parametrize("served, code, says", [
    ("first", 0, "memlab-sweeptoy 1.0.0: same as the published set"),
    ("second", 1, "memlab-sweeptoy 1.1.0: CHANGED; 2 cell(s) changed: read T1, read T5"),
    ("all", 2, "memlab-sweeptoy 1.2.0: NOT MEASURED"),
])
def test_latest_exit_codes(toy, published, served, code, says):
    proc = memlab("run", "--sut", ROW, "--latest", "--profiles", toy["profiles"], "--published", published,
                  "--runtime", "local", "--out", toy["root"] / f"latest-{served}", wheels=toy[served], cwd=toy["root"])
    assert proc.returncode == code, proc.stdout + proc.stderr
    assert says in proc.stdout, proc.stdout
    if code == 1:
        line = next(ln for ln in proc.stdout.splitlines() if ln.strip().startswith("read T1"))
        assert line.split() == ["read", "T1", "ACCEPTED", "REJECTED", "changed"]
    if code == 2:
        assert "memlab-sweeptoy-absent" in proc.stdout


def test_bad_input_says_the_fix_and_exits_2(toy):
    cases = [
        (("sweep", "--sut", "no-such-row", "--last", "1"), "no row 'no-such-row'"),
        (("sweep", "--sut", ROW, "--versions", "9.9.9"), "the registry serves no release 9.9.9"),
        (("run", "--sut", ROW, "--latest", "--published", toy["root"] / "nowhere"), "holds no published set of this row"),
    ]
    for args, says in cases:
        proc = memlab(*args, "--profiles", toy["profiles"], wheels=toy["all"], cwd=toy["root"])
        assert proc.returncode == 2, (args, proc.stdout + proc.stderr)
        assert says in proc.stderr, (args, proc.stderr)
        assert "Traceback" not in proc.stderr


def test_an_interrupted_sweep_keeps_every_finished_release(toy, monkeypatch, tmp_path):
    """A sweep stopped in its second release: the first release's entry, cells and set are kept, the
    second is said to be cut short, the third not reached."""
    from lab.profile import load_profile
    from lab.sweep import runner
    from lab.sweep.measure import Interrupted, Measured
    from lab.sweep.resolve import Resolution

    calls = []

    def measured(version, row, profiles, out, at_rest, lifecycle, options):
        calls.append(version)
        if len(calls) == 2:
            raise Interrupted(130)
        out.mkdir(parents=True)
        return Measured(version, "measured", cells={"read T1": "ACCEPTED"}, sets={"at_rest": str(out)})

    monkeypatch.setattr(runner, "measure_release", measured)
    monkeypatch.setattr(runner, "resolve", lambda text, package, version: Resolution(version, True, requirements=text))
    request = runner.Request(load_profile(toy["profiles"] / f"{ROW}.yaml"), ["1.0.0", "1.1.0", "1.2.0"],
                             tmp_path / "sweep", {"versions": ["1.0.0", "1.1.0", "1.2.0"], "last": None,
                                                  "since": None, "bisect": False})
    with pytest.raises(Interrupted):
        runner.run_sweep(request)
    doc = json.loads((tmp_path / "sweep" / "sweep.json").read_text())
    assert doc["status"] == "interrupted"
    assert [r["status"] for r in doc["releases"]] == ["measured", "interrupted", "pending"]
    assert doc["cells"] == {"1.0.0": {"read T1": "ACCEPTED"}}
    assert (tmp_path / "sweep" / "1.0.0").is_dir()


def test_halving_measures_about_log2_and_passes_over_a_release_that_does_not_install():
    versions = [f"1.{i}" for i in range(33)]
    verdict = {v: "ACCEPTED" if i < 21 else "REJECTED" for i, v in enumerate(versions)}
    broken = {"1.16"}
    tried = []

    def measure(version):
        tried.append(version)
        return None if version in broken else {"read T1": verdict[version]}

    done = halve(versions, measure)
    assert len(tried) <= 2 + 6 + 1
    measured = sorted((v for v, c in done.measured.items() if c), key=lambda v: int(v.split(".")[1]))
    assert "1.20" in measured and "1.21" in measured  # the change is bounded by neighbours
    assert "1.17" in done.measured  # the middle did not install: its neighbour was measured instead
    assert set(done.skipped) | set(done.measured) == set(versions)
    low, high = done.skipped["1.2"]
    assert verdict[low] == verdict[high]


def test_selection():
    served = ["2.0.0", "1.0.0", "1.1.0", "1.2.0rc1", "1.2.0"]
    assert select(served, versions=["1.0.0..1.2.0"]) == ["1.0.0", "1.1.0", "1.2.0"]
    assert select(served, versions=["..1.1.0", "2.0.0"]) == ["1.0.0", "1.1.0", "2.0.0"]
    assert select(served, versions=["1.2.0rc1"]) == ["1.2.0rc1"]
    assert select(served, last=2) == ["1.2.0", "2.0.0"]
    assert select(served, since="1.1") == ["1.1.0", "1.2.0", "2.0.0"]
    with pytest.raises(SelectionError, match="fix: give a served release"):
        select(served, versions=["3.0.0"])
    with pytest.raises(SelectionError, match="not a version"):
        select(served, since="latest")
    with pytest.raises(SelectionError, match="give exactly one of --versions, --last, --since"):
        select(served, versions=["1.0.0"], last=2)
    with pytest.raises(SelectionError, match="write it oldest first: 1.0.0..1.1.0"):
        select(served, versions=["1.1.0..1.0.0"])


def test_the_site_shows_a_rows_history_when_sweeps_exist(swept, toy):
    _, out = swept
    site = toy["root"] / "site"
    proc = memlab("site", out / "1.0.0", "--sweeps", out.parent, "--out", site, wheels=toy["all"], cwd=toy["root"])
    assert proc.returncode == 0, proc.stderr
    page = (site / f"{ROW}.html").read_text()
    assert "History: memlab-sweeptoy releases" in page
    line = re.search(r'<ol class="hist">(.*?)</ol>', page).group(1)
    assert re.findall(r'<li class="([a-z-]+)"[^>]*>([0-9.]+)', line) == [
        ("measured", "1.0.0"), ("moved", "1.1.0"), ("not-installed", "1.2.0")]
    assert "<small>read T1, read T5</small>" in line
    assert "<b>read T1</b>: ACCEPTED → REJECTED, first in 1.1.0 (last with the old: 1.0.0)" in page
    assert f'href="{ROW}.html#history"' in (site / "index.html").read_text()
