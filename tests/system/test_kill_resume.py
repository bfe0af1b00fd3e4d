"""kill -9 of ``memlab run`` at named moments, then ``memlab gc``, then ``memlab run --resume``.

Each moment is reached deterministically: the run pauses there (lab.moments, ``MEMLAB_PAUSE_AT``)
and says so in its moments file, and the test kills it then. Checked after each kill: verify calls
the set partial (exit 3), gc leaves no process of the run (by the run's mark and by the process
groups the registry recorded, never by name), the resume exits 0 into a set that verifies, no
trial was saved twice (the moments file names every save) and no trial saved before the kill
changed by a byte.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lab.judge.derive import TRIALS
from lab.resultset.verify import verify
from lab.runtime.reaper import running
from processes import run_processes

ROOT = Path(__file__).resolve().parents[2]
FAULTY = ROOT / "tests" / "fixtures" / "faulty"
sys.path.insert(0, str(ROOT / "bench"))
from kills import KILLS, ROWS, kill9, observation_digests, saves, start_paused  # noqa: E402
from kills import memlab as memlab_cmd  # noqa: E402


def memlab(*args, env: dict, check_code: int | None = None) -> subprocess.CompletedProcess:
    proc = memlab_cmd(*args, env=env)
    if check_code is not None:
        assert proc.returncode == check_code, (args, proc.returncode, proc.stdout[-3000:], proc.stderr[-3000:])
    return proc


def registry_pids(cache: Path) -> dict[str, list[int]]:
    """Run id -> the process (group) ids the run registry recorded."""
    runs = cache / "runs"
    return {entry.name: [int(p.name) for p in (entry / "pids").glob("*")] for entry in runs.iterdir()} \
        if runs.is_dir() else {}


def identity(pid: int) -> tuple[int, str] | None:
    """(pid, start time): a pid the machine reuses later is another process."""
    try:
        return pid, Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def in_groups(pgids: list[int]) -> set[tuple[int, str]]:
    """Every live process (by identity) in one of the process groups ``pgids``."""
    found = set()
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if os.getpgid(int(proc.name)) in pgids and (ident := identity(int(proc.name))):
                found.add(ident)
        except OSError:
            continue
    return found


def alive(identities: set[tuple[int, str]]) -> list[tuple[int, str]]:
    """Those still running (a zombie has ended: it waits only for its parent, or init, to reap it)."""
    return sorted(i for i in identities if identity(i[0]) == i and running(i[0]))


@pytest.fixture
def env(cache, tmp_path):
    return {**os.environ, "MEMLAB_MOMENTS": str(tmp_path / "moments")}


#: The moments a run of the service row (PostgreSQL, its data directory kept for the resume) is killed
#: at; at the others the file row alone is killed, which exercises the same code in a third of the time.
WITH_SERVICE = ("during a service start", "between trials")


@pytest.mark.parametrize("moment", list(KILLS), ids=[KILLS[k].split(":")[0] for k in KILLS])
def test_a_run_killed_at_a_moment_resumes_to_a_verifying_set(moment, env, cache, tmp_path):
    out, events = tmp_path / "out", tmp_path / "moments"
    rows = ROWS if moment in WITH_SERVICE else ROWS[:1]
    proc = start_paused(out, {**env, "MEMLAB_PAUSE_AT": KILLS[moment]}, events, rows)
    run_id = json.loads((out / "run.json").read_text())["run_id"]
    ours = set(run_processes(run_id))  # a recorded pid the machine gave to another process since is not ours
    recorded = in_groups([pid for pids in registry_pids(cache).values() for pid in pids if pid in ours])
    kill9(proc)
    before = observation_digests(out)

    code = memlab("verify", out, env=env)
    assert code.returncode == 3 and "PARTIAL" in code.stdout, code.stdout + code.stderr
    assert "trials without an observation" in code.stdout

    memlab("gc", env=env, check_code=0)
    assert run_processes(run_id) == []
    assert alive(recorded) == []  # no process of the process groups the registry recorded
    assert not (cache / "runs" / run_id).exists()

    memlab("run", "--resume", out, "--runtime", "local", "--no-reports", env=env, check_code=0)
    result = verify(out)
    assert result.ok, result.findings
    assert json.loads((out / "run.json").read_text())["run_id"] == run_id  # one run, continued
    done = saves(events)
    twice = sorted({s for s in done if done.count(s) > 1})
    assert twice == [], f"measured twice: {twice}"
    assert sorted(done) == sorted((row, t) for row in rows for t in TRIALS)  # and every trial once
    after = observation_digests(out)
    changed = [f for f, d in before.items() if f.rsplit("/", 1)[-1][:-5] in TRIALS and after.get(f) != d]
    assert changed == [], f"saved before the kill, changed by the resume: {changed}"
    assert not (out / "seeded").exists()
    assert [pid for pids in registry_pids(cache).values() for pid in pids] == []


def test_a_service_killed_while_starting_is_stopped_by_gc_before_its_data_directory_goes(env, cache, tmp_path):
    out, events = tmp_path / "out", tmp_path / "moments"
    proc = start_paused(out, {**env, "MEMLAB_PAUSE_AT": "service-start"}, events, ("reference-naive-postgres",))
    run_id = json.loads((out / "run.json").read_text())["run_id"]
    kill9(proc)
    servers = run_processes(run_id)
    assert servers, "the paused PostgreSQL should be running"
    gc = memlab("gc", env=env, check_code=0)
    assert run_processes(run_id) == [], gc.stderr
    assert "scratch" in gc.stderr and "left " not in gc.stderr


def test_a_resume_with_another_option_or_profile_is_refused_with_the_fix(env, cache, tmp_path):
    out, events = tmp_path / "out", tmp_path / "moments"
    kill9(start_paused(out, {**env, "MEMLAB_PAUSE_AT": "saved:C1"}, events, ("reference-naive",)))
    memlab("gc", env=env, check_code=0)
    before = observation_digests(out)
    refused = memlab("run", "--resume", out, "--runtime", "local", "--records", "7", env=env, check_code=2)
    assert "option records 5, now 7: give --records 5" in refused.stderr, refused.stderr
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    text = (ROOT / "sut_profiles" / "reference-naive.yaml").read_text()
    assert "timeouts: {start: 30, op: 30}" in text
    (profiles / "reference-naive.yaml").write_text(text.replace("op: 30}", "op: 29}"))
    refused = memlab("run", "--resume", out, "--runtime", "local", "--profiles", profiles, env=env, check_code=2)
    assert "reference-naive: its profile" in refused.stderr and "differs from the one the run started with" in refused.stderr
    assert observation_digests(out) == before  # a refused resume writes nothing


def test_a_sut_child_that_left_its_session_does_not_outlive_the_run_or_gc(env, cache, tmp_path):
    out, events = tmp_path / "out", tmp_path / "moments"
    proc = start_paused(out, {**env, "MEMLAB_PAUSE_AT": "edited:T3"}, events, ("faulty-orphan",), profiles=FAULTY)
    run_id = json.loads((out / "run.json").read_text())["run_id"]
    orphans = [pid for pid in run_processes(run_id) if os.getsid(pid) == pid and "sleep" in
               Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")]
    assert orphans, "the driver should have left children in sessions of their own"
    kill9(proc)
    memlab("gc", env=env, check_code=0)
    assert run_processes(run_id) == []
    memlab("run", "--resume", out, "--runtime", "local", "--profiles", FAULTY, "--no-reports", env=env,
           check_code=0)
    resumed = json.loads((out / "run.json").read_text())["resumed"][-1]["process_run"]
    assert run_processes(resumed) == []  # the resumed run's own orphans end with it
    assert verify(out).ok
