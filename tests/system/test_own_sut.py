"""The tutorial docs/own-sut.md, followed as written: a SUT of one's own, outside images/, to a
verified row, with no Python inside the lab.

The page is the source: every code block after an ``<!-- file: PATH -->`` marker is a file of
the tutorial (and must equal ``tests/fixtures/own-sut/PATH``), the block after
``<!-- commands -->`` is run line by line as subprocesses on the local runtime, and the block
after ``<!-- verdicts -->`` is the matrix the run must give. Then the kit's helpers and the
harness errors the page describes. Real SUT processes; no Docker.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from lab.driver import DriverClient, DriverError
from lab.profile import load_profile
from lab.runtime.local import LocalRuntime

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "own-sut.md"
FIXTURE = ROOT / "tests" / "fixtures" / "own-sut"
KIT = ROOT / "images" / "driverkit"
FOLDER = "my-sut"  # the tutorial's folder
_BLOCK = re.compile(r"^<!-- (\w+)(?:: (\S+))? -->\n```[^\n]*\n(.*?)^```$", re.S | re.M)


def marked_blocks() -> list[tuple[str, str | None, str]]:
    """(marker, argument, text) of every fenced block right after a marker comment of the page."""
    return [(m[1], m[2], m[3]) for m in _BLOCK.finditer(DOC.read_text(encoding="utf-8"))]


def listings() -> dict[str, str]:
    """The tutorial's files: path inside the tutorial folder -> content."""
    return {arg: text for marker, arg, text in marked_blocks() if marker == "file"}


def block(name: str) -> str:
    """The one block after ``<!-- name -->``."""
    found = [text for marker, _, text in marked_blocks() if marker == name]
    assert len(found) == 1, f"docs/own-sut.md has {len(found)} blocks marked {name!r}"
    return found[0]


def write_tutorial(root: Path) -> Path:
    """The tutorial's folder under ``root``, written from the page's listings."""
    for rel, text in listings().items():
        path = root / FOLDER / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / FOLDER


def memlab(line: str, cwd: Path) -> subprocess.CompletedProcess:
    """One ``memlab ...`` command line of the page, run as the CLI (``python -m lab.cli``) in ``cwd``."""
    argv = shlex.split(line)
    assert argv[0] == "memlab", line
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "lab.cli", *argv[1:]], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def expected_matrix() -> dict[str, dict[str, str]]:
    """The page's matrix: row -> {case or control: label}."""
    header, *lines = block("verdicts").splitlines()
    names = header.split()[1:]
    return {cols[0]: dict(zip(names, cols[1:])) for cols in (ln.split() for ln in lines)}


# ---- the listing ---------------------------------------------------------------------

def test_the_fixture_is_the_tutorials_listing():
    files = listings()
    assert {"toynotes-driver/driver.py", "toynotes-driver/requirements.txt", "toynotes.yaml"} <= set(files)
    on_disk = {str(p.relative_to(FIXTURE)): p.read_text(encoding="utf-8") for p in FIXTURE.rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    assert on_disk == files, "tests/fixtures/own-sut/ must hold exactly the files docs/own-sut.md lists"
    driver = files["toynotes-driver/driver.py"]
    assert "driverkit" not in driver and "sys.path" not in driver  # the kit is found with no path tricks


def test_the_profiles_validate_and_name_the_driver_outside_images(tmp_path):
    folder = write_tutorial(tmp_path)
    for name in ("toynotes.yaml", "toynotes-checked.yaml"):
        profile = load_profile(folder / name)
        assert profile.driver_dir == (folder / "toynotes-driver").resolve()
        assert (ROOT / "images") not in profile.driver_dir.parents


# ---- the run -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tutorial(tmp_path_factory, cache):
    """The tutorial's folder and the outcome of each of its commands, in order."""
    root = tmp_path_factory.mktemp("tutorial")
    folder = write_tutorial(root)
    done = []
    for line in block("commands").splitlines():
        done.append((line, memlab(line, root)))
    return root, folder, done


def test_every_command_of_the_tutorial_exits_0(tutorial):
    _, _, done = tutorial
    assert [line.split()[1] for line, _ in done] == ["run", "verify"]
    for line, proc in done:
        assert proc.returncode == 0, f"{line}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"


def test_the_run_gives_the_matrix_the_tutorial_shows(tutorial):
    _, folder, _ = tutorial
    rows = {r["row"]: r for r in (json.loads(p.read_text()) for p in (folder / "results" / "rows").glob("*.json"))}
    expected = expected_matrix()
    assert set(rows) == set(expected) == {"toynotes", "toynotes-checked"}
    short = {"ACCEPTED": "ACC", "REJECTED": "REJ", "REPORTED": "REP", "n/a": "n/a", "error": "ERR"}
    for name, want in expected.items():
        row = rows[name]
        got = {cid: short[cell["verdict"]] for cid, cell in row["cells"].items()}
        got.update({c: "ok" if row["controls"][c]["ok"] else "FAIL" for c in ("C1", "C2")})
        assert got == want, (name, {c: row["cells"][c]["reason"] for c in row["cells"]})
    naive = rows["toynotes"]
    assert naive["evaluable"] and naive["controls"]["C3"]["ok"]
    assert {c["verdict"] for c in naive["cells"].values()} == {"ACCEPTED"}  # every applicable case


def test_the_result_set_verifies_and_keeps_logs_where_the_tutorial_says(tutorial):
    _, folder, done = tutorial
    verify = dict(done)[next(line for line, _ in done if line.startswith("memlab verify"))]
    assert verify.stdout.startswith(f"VERIFIED {FOLDER}/results: 2 row(s)"), verify.stdout
    results = folder / "results"
    seed = json.loads((results / "observations" / "toynotes" / "seed.json").read_text())
    assert seed["logs"] == ["seed-0.log"] and (results / "logs" / "toynotes" / "seed-0.log").is_file()
    t9 = json.loads((results / "observations" / "toynotes" / "T9.json").read_text())
    assert t9["logs"] == ["T9-op-0.log", "T9-1.log"]
    env = json.loads((results / "observations" / "toynotes" / "environment.json").read_text())
    assert env["runtime"] == "local" and len(env["detail"]["driverkit"]) == 12
    assert env["packages"] == {}  # the kit is on the path, not a package of the SUT's environment


def test_a_failing_trial_names_its_log_and_quotes_its_last_lines(tutorial):
    root, folder, done = tutorial
    broken = root / "broken"
    broken.mkdir()
    for rel, text in listings().items():
        if rel != "toynotes-driver/toynotes.py":  # the SUT is missing: the driver's import fails
            (broken / rel).parent.mkdir(parents=True, exist_ok=True)
            (broken / rel).write_text(text)
    run_line = next(line for line, _ in done if line.startswith("memlab run"))
    line = run_line.replace(f"--profiles {FOLDER}", "--profiles broken").replace(
        f"--out {FOLDER}/results", "--out broken/results").replace("'toynotes*'", "toynotes")
    proc = memlab(line, root)
    assert proc.returncode == 2, proc.stderr[-3000:]  # a row not evaluable: exit 2 (README, memlab run --help)
    error = json.loads((broken / "results" / "observations" / "toynotes" / "seed.json").read_text())["error"]
    assert error["stage"] == "driver"
    message = error["message"]
    assert message.startswith("open: the SUT process exited with code 1 before answering"), message
    assert "SUT log: broken/results/logs/toynotes/seed-0.log, last " in message
    assert "  | ModuleNotFoundError: No module named 'toynotes'" in message
    assert "ModuleNotFoundError: No module named 'toynotes'" in error["log_tail"]
    assert "SUT log: broken/results/logs/toynotes/seed-0.log" in proc.stdout  # the terminal report
    assert "memlab_driver" not in message  # the kit itself was found


# ---- the kit's helpers, through the local runtime ---------------------------------------

@pytest.fixture
def launch(tmp_path, cache):
    """Start the tutorial's driver with the local runtime (the kit reaches it on the path)."""
    folder = write_tutorial(tmp_path)
    prepared = LocalRuntime().prepare(load_profile(folder / "toynotes.yaml"))
    started = []

    def start(n: int = 0) -> DriverClient:
        (tmp_path / "store").mkdir(exist_ok=True)
        client = LocalRuntime().launch(prepared, {"store": tmp_path / "store"}, tmp_path / f"scratch-{n}",
                                       tmp_path / "logs" / f"t-{n}.log", "kit-test")
        started.append(client.start())
        return client

    yield start
    for client in started:
        client.stop()


def test_need_volumes_and_choice_answer_faults_naming_the_volume_and_the_choices(launch):
    cases = [({}, {}, "needs volume(s) store; the profile declares none: add volumes: {store: {adversary: ...}}"),
             (None, {"checksums": "md5"}, "config.checksums 'md5': use one of ['none', 'sha256']"),
             (None, {"checksums": False}, "quote the value")]
    for n, (volumes, config, expected) in enumerate(cases):
        client = launch(n)
        with pytest.raises(DriverError) as err:
            client.call("open", 10, volumes=client.volume_paths if volumes is None else volumes, config=config)
        assert "driver fault" in str(err.value) and expected in str(err.value), str(err.value)
        assert f"SUT log: {client.log_path}" in str(err.value)


def test_erase_record_and_erase_context_serve_the_erase_op(launch):
    client = launch()
    assert client.call("open", 10, volumes=client.volume_paths, config={"checksums": "sha256"})["ok"]
    ids = [client.call("write", 10, context="A", text=f"note {i}", meta={"role": "user"})["record"]["id"]
           for i in range(3)]
    client.call("write", 10, context="B", text="other", meta={})
    assert client.call("erase", 10, context="A", record=ids[0])["erased"] == [ids[0]]
    assert client.call("erase", 10, context="A", record=None)["erased"] == ids[1:]
    assert client.call("read", 10, context="A")["records"] == []
    assert [r["text"] for r in client.call("read", 10, context="B")["records"]] == ["other"]
    assert client.call("describe", 10)["result"]["configuration"] == {"checksums": "sha256"}


ONE_KIND = """
import memlab_driver as kit

class RecordsOnly(kit.Driver):
    def open(self, volumes, config):
        pass
    def erase_record(self, context, record_id):
        return None

kit.serve(RecordsOnly)
"""


def test_an_erase_the_driver_does_not_offer_says_which_kind_it_does(tmp_path):
    script = tmp_path / "driver.py"
    script.write_text(ONE_KIND)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(KIT), "PYTHONDONTWRITEBYTECODE": "1"}
    requests = [{"id": 1, "op": "open", "volumes": {}}, {"id": 2, "op": "erase", "context": "A", "record": "7"},
                {"id": 3, "op": "erase", "context": "A", "record": None}]
    lines = "".join(json.dumps(r) + "\n" for r in requests)
    proc = subprocess.run([sys.executable, "-u", str(script)], input=lines, capture_output=True, text=True,
                          env=env, timeout=30)
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert answers[1]["erased"] == ["7"]  # erase_record returned None: just that id
    assert answers[2]["ok"] is False and answers[2]["refused"] is False
    says = "this driver erases single records only (the profile's capabilities.erasure: record)"
    assert answers[2]["error"] == {"type": "Unsupported", "message": says}


# ---- harness errors name the log ---------------------------------------------------------

def _client(tmp_path: Path, code: str) -> DriverClient:
    argv = [sys.executable, "-u", "-c", code]
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    return DriverClient(argv, env, tmp_path, tmp_path / "logs" / "x-0.log")


@pytest.mark.parametrize("code, says", [
    ("import sys; print('starting', file=sys.stderr); print('boom: the last line', file=sys.stderr); sys.exit(1)",
     "the SUT process exited with code 1 before answering"),
    ("import sys; print('boom: the last line', file=sys.stderr, flush=True); print('not json', flush=True); "
     "sys.stdin.read()", "the driver answered garbage, not JSON"),
    ("import sys, time; print('boom: the last line', file=sys.stderr, flush=True); time.sleep(30)",
     "no answer within 1 s"),
])
def test_every_driver_fault_names_the_log_file_and_quotes_its_last_lines(tmp_path, code, says):
    client = _client(tmp_path, code).start()
    try:
        with pytest.raises(DriverError) as err:
            client.call("open", 1, volumes={}, config={})
    finally:
        client.stop(grace=1)
    message = str(err.value)
    assert message.startswith(f"open: {says}"), message
    assert f"\n  SUT log: {client.log_path}, last " in message and "\n  | boom: the last line" in message
    assert "boom: the last line" in err.value.log_tail


def test_an_empty_log_is_said_to_be_empty(tmp_path):
    client = _client(tmp_path, "import sys; sys.exit(2)").start()
    with pytest.raises(DriverError) as err:
        client.call("open", 5, volumes={}, config={})
    client.stop(grace=1)
    assert str(err.value).endswith(f"exited with code 2 before answering\n  SUT log: {client.log_path} (empty)")


def test_the_sut_image_puts_the_kit_on_the_path_as_the_local_runtime_does():
    recipe = (ROOT / "images" / "sut.Dockerfile").read_text()
    assert "COPY driverkit/ /opt/memlab/images/driverkit/" in recipe
    assert "PYTHONPATH=/opt/memlab/images/driverkit" in recipe
    assert "pip install" not in recipe.split("COPY driverkit/")[1]  # a module on the path, not a package
