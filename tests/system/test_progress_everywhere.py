"""Every long step says so as it runs, and the line that says it keeps its end (issue 41, item 5).

``memlab site`` shows a bar from its start, a step per set verified, and ends naming what it wrote;
the bar's line fits an 80-column terminal with its count, its time and the end of its description
(``fit`` elides the middle, never the end: a property over any text); a sweep's release ends with its
time; the image table of ``memlab images build`` lines up whatever the names; the set-up's Chromium
step prints its version and nothing on standard error; scripts/test says how much pytest's temporary
folders hold and keeps only the last run's failed tests'. No Docker.
"""

from __future__ import annotations

import getpass
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.console import Console

from lab.cli import progress
from lab.runtime.image_build import ImageRecord, records_table

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = ROOT / "results" / "published"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
BAR_LINE = re.compile(r"^(?P<description>.*?) (?P<bar>[━╸╺ ]+) +(?P<done>\d+)/(?P<total>\d+) (?P<time>\d+:\d\d:\d\d)$")


def memlab(*args: object, terminal: bool = False, columns: int = 80) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("TTY_COMPATIBLE", "TTY_INTERACTIVE", "NO_COLOR")}
    env["COLUMNS"] = str(columns)
    if terminal:  # rich takes standard error for an interactive terminal: every refresh of the bar is kept
        env.update(TTY_COMPATIBLE="1", TTY_INTERACTIVE="1")
    return subprocess.run([sys.executable, "-m", "lab.cli", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def screen_lines(stderr: str) -> list[str]:
    """Every line the terminal showed, each refresh of the bar one (escape sequences removed)."""
    return [ANSI.sub("", part).rstrip() for line in stderr.split("\n") for part in line.split("\r")
            if ANSI.sub("", part).strip()]


# ---- memlab site ---------------------------------------------------------------------------------------
SETS = ("inspeximus-default", "agno-sqlite-sessions")  # four sets each (at rest, lifecycle, front door, composition)


def test_site_shows_its_bar_from_the_start_and_ends_naming_what_it_wrote(tmp_path):
    (tmp_path / "no-sweeps").mkdir()
    done = memlab("site", *(f"results/published/{name}" for name in SETS), "--out", tmp_path / "site",
                  "--sweeps", tmp_path / "no-sweeps", terminal=True)
    assert done.returncode == 0, done.stderr
    lines = screen_lines(done.stderr)
    end = f"site: {tmp_path / 'site' / 'index.html'} and 2 SUT page(s), from 8 result set(s)"
    assert lines[-1] == end, lines[-3:]
    bars = [m for m in map(BAR_LINE.match, lines[:-1]) if m]
    assert bars and len(bars) == len(lines) - 1, lines  # before the end line, only the bar's refreshes
    # each set (two at rest, their two lifecycle sets, two front-door sets, two compositions) named as it is
    # verified, the pages counted last
    assert bars[0]["description"] == "site: 8 result set(s)" and bars[0]["done"] == "0", lines  # from its start
    assert bars[-1]["done"] == bars[-1]["total"] == "9"
    assert bars[-1]["description"] == progress.fit(f"wrote {tmp_path / 'site'}", progress.room_for_description(80, 9))
    assert bars[-1]["description"].endswith("/site"), lines
    assert all(cell_len(line) <= 80 for line in lines[:-1]), [ln for ln in lines if cell_len(ln) > 80]
    assert (tmp_path / "site" / "index.html").is_file()


def test_site_names_every_set_on_the_bar_as_it_is_verified_then_the_folder_it_writes(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from lab.cli import main

    said: list[tuple[str, str, int]] = []
    step = progress.RunProgress.step
    monkeypatch.setattr(progress.RunProgress, "step",
                        lambda self, row, what, advance=1: (said.append((row, what, advance)), step(self, row, what, advance)))
    (tmp_path / "no-sweeps").mkdir()
    folders = [f"results/published/{name}" for name in SETS]
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(main, ["site", *folders, "--out", str(tmp_path / "site"), "--sweeps",
                                       str(tmp_path / "no-sweeps")])
    assert result.exit_code == 0, result.output
    sets = [f for name in folders for f in (name, f"{name}/lifecycle", f"{name}/frontdoor", f"{name}/compose")
            if (ROOT / f / "manifest.json").is_file()]
    assert len(sets) == 8
    assert said == [*((word, f, n) for f in sets for word, n in (("verifying", 0), ("verified", 1))),
                    ("reading", "8 result set(s)", 0),
                    ("writing", f"{tmp_path / 'site'}: the index and 2 SUT page(s)", 0),
                    ("wrote", str(tmp_path / "site"), 1)]


def test_site_in_a_log_shows_the_bar_once_before_its_end_line_and_quiet_only_the_end(tmp_path):
    (tmp_path / "no-sweeps").mkdir()
    args = ("site", PUBLISHED / SETS[0], "--out", tmp_path / "site", "--sweeps", tmp_path / "no-sweeps")
    logged = memlab(*args)
    assert logged.returncode == 0, logged.stderr
    lines = screen_lines(logged.stderr)
    assert len(lines) == 2 and BAR_LINE.match(lines[0]) and "5/5" in lines[0], lines
    assert lines[1].startswith(f"site: {tmp_path / 'site' / 'index.html'} and 1 SUT page(s)"), lines
    quiet = memlab("-q", *args)
    assert quiet.returncode == 0 and screen_lines(quiet.stderr) == lines[1:], quiet.stderr


def test_a_set_that_does_not_verify_is_said_after_the_bar(tmp_path):
    copy = tmp_path / "langgraph-sqlite"
    shutil.copytree(PUBLISHED / "langgraph-sqlite", copy)
    path = copy / "rows" / "langgraph-sqlite@read.json"
    path.write_text(path.read_text().replace('"ACCEPTED"', '"REJECTED"', 1))
    (tmp_path / "no-sweeps").mkdir()
    done = memlab("site", copy, "--out", tmp_path / "out", "--sweeps", tmp_path / "no-sweeps")
    lines = screen_lines(done.stderr)
    assert done.returncode == 1 and not (tmp_path / "out").exists()
    assert BAR_LINE.match(lines[0]) and lines[1].startswith("REJECTED ") and "nothing written" in lines[-1], lines


# ---- the bar's line at 80 columns ------------------------------------------------------------------------
def bar_lines(width: int, where: str, text: str, total: int = 26) -> list[str]:
    out = io.StringIO()
    with progress.RunProgress(Console(file=out, width=width, force_terminal=False), total=total) as bar:
        bar.step(where.split(" ")[0], where.split(" ")[1])
        bar.doing(text)
    return [line for line in out.getvalue().splitlines() if line.strip()]


@pytest.mark.parametrize("width", [80, 100, 120, 200])
def test_the_bar_keeps_the_end_of_what_it_waits_for_and_its_count_and_time(width):
    progress.configure(verbose=0)
    text = progress.ACTIVITIES["venv.build"]({"venv": "/cache/venvs/reference-3f2a9c"})
    [line] = bar_lines(width, "reference-naive seed", text)
    match = BAR_LINE.match(line)
    assert match and cell_len(line) <= width, line
    assert match["done"] == "1" and match["total"] == "26", line
    shown = match["description"]
    assert shown.startswith("reference-naive seed · driver reference:") and shown.endswith("cached)"), shown
    if width >= 200:
        assert shown == f"reference-naive seed · {text}"


def test_at_80_columns_the_bar_says_what_the_issue_saw_cut(capsys):
    """Issue 41: ``building the environment of driver reference (pip; o…`` lost its end."""
    progress.configure(verbose=0)
    [line] = bar_lines(80, "reference-naive seed",
                       progress.ACTIVITIES["venv.build"]({"venv": "/cache/venvs/reference-3f2a9c"}))
    assert line.startswith("reference-naive seed · driver reference: build…cached) "), line
    [image] = bar_lines(80, "inspeximus-default T3", progress.ACTIVITIES["image.build"](
        {"step": "Step 7/17 : RUN pip install --no-cache-dir -r /tmp/requirements.txt  (at 12 s)"}))
    assert BAR_LINE.match(image)["description"] == "inspeximus-default T3 · image: Step 7/17 :…(at 12 s)"


def test_a_long_path_keeps_its_end_and_a_markup_like_name_shows_as_itself():
    progress.configure(verbose=0)
    out = io.StringIO()
    with progress.RunProgress(Console(file=out, width=80), total=89) as bar:
        bar.step("verifying", "results/published/memory-blackbox-md+restart+anchor-off/lifecycle", advance=0)
    line = out.getvalue().strip()
    assert BAR_LINE.match(line)["description"].endswith("-md+restart+anchor-off/lifecycle"), line
    assert cell_len(line) <= 80, line
    out = io.StringIO()
    with progress.RunProgress(Console(file=out, width=80), total=1) as bar:
        bar.step("evil[/x]", "[bold]T1")
    assert "evil[/x] [bold]T1" in out.getvalue() and "\\[" not in out.getvalue(), out.getvalue()


@pytest.mark.parametrize("text, width, fitted", [
    ("short", 20, "short"),
    ("reference-naive seed · driver reference: building its environment (pip; once, then cached)", 54,
     "reference-naive seed · driver reference: build…cached)"),
    ("verifying results/published/memory-blackbox-md+restart+anchor-off", 54,
     "verifying results…emory-blackbox-md+restart+anchor-off"),
    ("reading results/published/memory-blackbox-md+restart", 45, "…results/published/memory-blackbox-md+restart"),
    ("ok results/published/memory-blackbox-md+restart+anchor-off/lifecycle", 30, "ok result…anchor-off/lifecycle"),
    ("trailing spaces only          ", 20, "trailing spaces only"),
    ("x" * 50, 1, "…"),
])
def test_fit(text, width, fitted):
    assert progress.fit(text, width) == fitted


WORDS = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp", "Zs")), min_size=1, max_size=30)


@settings(max_examples=300, deadline=None)
@given(st.lists(WORDS, min_size=1, max_size=20), st.integers(min_value=20, max_value=200))
def test_fit_fits_and_ends_with_the_last_word(words, width):
    text = " ".join(words)
    fitted = progress.fit(text, width)
    assert cell_len(fitted) <= width
    if cell_len(text) <= width:
        assert fitted == text
    elif cell_len(words[-1]) < width:
        assert fitted.endswith(words[-1]) and "…" in fitted
    else:  # a last word wider than the line: its end
        assert fitted.split("…")[-1] and words[-1].endswith(fitted.split("…")[-1])


# ---- memlab sweep: a release's last line says how long it took ---------------------------------------------
def test_a_sweeps_release_ends_with_its_time(tmp_path, monkeypatch):
    from lab.sweep import runner
    from lab.sweep.measure import Measured
    from lab.sweep.resolve import Resolution

    clock = iter([100.0, 227.4])  # the release starts, then ends: 127 s
    monkeypatch.setattr(runner, "time", SimpleNamespace(monotonic=lambda: next(clock)))
    monkeypatch.setattr(runner, "resolve", lambda pins, package, version: Resolution(version, True, requirements=pins))
    monkeypatch.setattr(runner, "write_version_row", lambda profile, version, requirements, scratch: "toy@1.1.0")
    monkeypatch.setattr(runner, "cache_dir", lambda: tmp_path / "cache")
    monkeypatch.setattr(runner, "measure_release", lambda *args: Measured(
        "1.1.0", "measured", cells={"read T1": "ACCEPTED"}, sets={"at_rest": str(tmp_path / "out" / "1.1.0")}))
    (tmp_path / "driver").mkdir()
    (tmp_path / "driver" / "requirements.txt").write_text("toy==1.0.0\n")
    profile = SimpleNamespace(driver_dir=tmp_path / "driver", sut={"package": "toy"}, measurements=["at_rest"])
    said: list[str] = []
    request = runner.Request(profile, ["1.1.0"], tmp_path / "out", {})
    runner._measure(request, "1.1.0", {}, said.append)
    assert said[0].startswith("resolving its environment") and said[1] == "measuring toy@1.1.0"
    assert said[-1] == "measured and verified: 1 cells (2 min 7 s)"


# ---- the set-up: the image table, Chromium, pytest's temporary folders --------------------------------------
def test_the_image_table_lines_up_whatever_the_names():
    records = [ImageRecord("base", "memlab/base:bookworm", "sha256:390e55edc5f0aaaa"),
               ImageRecord("postgres-pgvector", "memlab/postgres-pgvector:18", "sha256:2d76c5153b9ebbbb"),
               ImageRecord("sut-lifecycle-reference", "memlab/sut-lifecycle-reference:2a32f98699f8",
                           "sha256:e4709faaa962cccc", built=True, seconds=312.44),
               ImageRecord("sut-openclaw-memory-md", "memlab/sut-openclaw-memory-md:8f368fac702d",
                           "sha256:d36e9f29d0f2dddd")]
    lines = records_table(records)
    assert len(lines) == 4
    for i, column in enumerate(("memlab/", "sha256:")):
        starts = {line.index(column) for line in lines}
        assert len(starts) == 1, (column, lines)
    ends = {line.index("sha256:") + len("sha256:390e55edc5f0") for line in lines}
    assert len(ends) == 1 and all(line[min(ends):min(ends) + 2] == "  " for line in lines), lines
    assert lines[2].endswith("built in 312.4 s") and lines[0].endswith("  present")
    assert records_table([]) == []


def test_the_chromium_step_prints_its_version_and_nothing_on_standard_error():
    """Debian's launcher sources /etc/chromium.d/dev-shm, whose test breaks where findmnt lists /dev/shm
    twice (``[: 25276203008: unexpected operator``); the step asks the browser itself."""
    if not shutil.which("chromium"):
        pytest.fail("chromium is not installed (bash scripts/test installs it)")
    done = subprocess.run(["bash", "scripts/test.d/20-chromium.sh"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("Chromium "), done.stdout + done.stderr
    assert done.stderr == ""


SAMPLE_TESTS = """
def test_passes(tmp_path):
    (tmp_path / "kept-only-if-failed").write_bytes(b"x" * 300000)

def test_fails_when_asked(tmp_path):
    import os
    (tmp_path / "evidence").write_bytes(b"x" * 200000)
    assert not os.environ.get("FAIL")
"""


def test_scripts_test_keeps_the_last_runs_failed_tests_folders_and_says_their_size(tmp_path):
    """scripts/test's pytest step, as written, on two tests of its own with pytest's temporary folders in
    tmp_path: a failing run keeps that test's folder (said with its size), the next run removes it, a
    folder a live pytest holds (its .lock) is left alone."""
    script = (ROOT / "scripts" / "test").read_text()
    step = script[script.index('echo "== tests"'):script.index('if [ "$engine_before"')]
    work = tmp_path / "work"
    work.mkdir()
    (work / ".venv").symlink_to(ROOT / ".venv")
    (work / "test_sample.py").write_text(SAMPLE_TESTS)
    (work / "step.sh").write_text("set -euo pipefail\n" + step + 'exit "$code"\n')
    temps = tmp_path / "temps" / f"pytest-of-{getpass.getuser()}"
    (tmp_path / "temps").mkdir()

    def run(**env: str) -> subprocess.CompletedProcess:
        clean = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
        return subprocess.run(["bash", "step.sh", "-p", "no:cacheprovider", "test_sample.py"], cwd=work,
                              env={**clean, "PYTEST_DEBUG_TEMPROOT": str(tmp_path / "temps"), **env},
                              capture_output=True, text=True, timeout=300)

    failed = run(FAIL="1")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    said = failed.stdout.strip().splitlines()[-1]
    assert re.fullmatch(rf"== pytest's temporary folders: \S+ left in {re.escape(str(temps.resolve()))} .*", said), said
    kept = [p.relative_to(temps) for p in temps.glob("pytest-[0-9]*/*/*") if not p.parent.is_symlink()]
    assert [p.name for p in kept] == ["evidence"], kept
    live = temps / "pytest-90"
    live.mkdir()
    (live / ".lock").write_text(str(os.getpid()))
    passed = run()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert sorted(p.name for p in temps.iterdir()) == ["pytest-90"], list(temps.iterdir())
    assert "left in" in passed.stdout.strip().splitlines()[-1]
    shutil.rmtree(live)
    again = run()
    assert again.stdout.strip().splitlines()[-1] == f"== pytest's temporary folders: none left ({temps.resolve()})"


def test_an_image_builds_steps_say_when_each_began(monkeypatch):
    """``memlab images build`` (and a run's bar, through lab.runtime.docker) shows each step of a build with
    the time into the build it began at: a step's length is the gap to the next."""
    from lab.runtime import image_build

    clock = iter([50.0, 50.4, 62.0])
    monkeypatch.setattr(image_build, "time", SimpleNamespace(monotonic=lambda: next(clock)))
    monkeypatch.setattr(image_build, "stream", lambda cmd, each: [each(line) for line in (
        "Step 1/2 : FROM memlab/base:bookworm", " ---> 390e55edc5f0", "Step 2/2 : RUN pip install -r requirements.txt")])
    said: list[str] = []
    image_build.docker_build(Path("sut.Dockerfile"), Path("ctx"), "memlab/sut-x:1", {}, {}, said.append)
    assert said == ["  Step 1/2 : FROM memlab/base:bookworm  (at 0 s)",
                    "  Step 2/2 : RUN pip install -r requirements.txt  (at 12 s)"]


def test_a_long_run_in_a_log_says_its_progress_in_lines_every_so_often(monkeypatch, capsys):
    """Where stderr is no terminal the bar draws nothing while it runs; a line says how far it is, at most
    every PLAIN_EVERY seconds, and a run shorter than that prints none (so short runs' logs are as before)."""
    ticks = iter([0.0, 10.0, 31.0, 40.0, 75.0, 80.0])
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(ticks))
    with progress.RunProgress(Console(file=io.StringIO(), width=80, force_terminal=False), total=4) as bar:
        bar.step("row-a@live", "case 1/3")  # 10 s: too soon
        bar.step("row-a@live", "case 2/3")  # 31 s: a line
        bar.doing("starting postgres server")  # 40 s: too soon after the last
        bar.step("row-a@live", "case 3/3")  # 75 s: a line
        bar.step("row-b@live", "case 1/1")  # 80 s: too soon
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("progress:")]
    assert lines == ["progress: 2/4 · row-a@live case 2/3 · 31 s", "progress: 3/4 · row-a@live case 3/3 · 75 s"]
