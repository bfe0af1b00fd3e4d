"""Kills at named moments: memlab run killed (-9) at each, then gc, then --resume: tried / resumed to a verifying set.

Each moment (lab/moments.py) is reached deterministically: the run pauses there and says so in
its moments file, and is killed then. An attempt *resumed* when: `memlab verify` called the
killed set PARTIAL (exit 3), `memlab gc` exited 0 leaving no process that carries the run's mark,
`memlab run --resume` exited 0, the set verifies, and every trial was saved exactly once over
both runs. tests/system/test_kill_resume.py asserts the same per moment, and more (docs/resume.md).

    python bench/kills.py              # the reference rows reference-naive and reference-naive-postgres

Leave the checkout alone while it runs: a resume refuses a lab commit or tree other than the
killed run's, as it should.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lab.judge.derive import TRIALS  # noqa: E402

ROWS = ("reference-naive", "reference-naive-postgres")
#: name -> MEMLAB_PAUSE_AT.
KILLS = {
    "during seeding": "seeding",
    "during a service start": "service-start",
    "between trials": "saved:C2",
    "mid-trial, after the edit, before the read": "edited:T3",
    "while writing the rows": "rows",
    "while writing the manifest": "manifest",
}


def memlab(*args, env: dict) -> subprocess.CompletedProcess:
    """One ``memlab`` command (quiet), from the repository's root."""
    return subprocess.run([sys.executable, "-m", "lab.cli", "-q", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


def start_paused(out: Path, env: dict, events: Path, rows: tuple[str, ...] = ROWS,
                 profiles: Path | None = None, command: str = "run") -> subprocess.Popen:
    """``memlab run`` (or ``command``: ``compose``) of ``rows`` on the local runtime, once it is paused at
    its moment."""
    argv = [sys.executable, "-m", "lab.cli", "-q", command, "--runtime", "local", "--out", str(out),
            "--no-reports", "--jobs", "2", *(("--profiles", str(profiles)) if profiles else ())]
    for row in rows:
        argv += ["--sut", row]
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while "paused " not in (events.read_text() if events.exists() else ""):
        if proc.poll() is not None:
            raise RuntimeError(f"the run ended before its moment: {proc.communicate()}")
        if time.monotonic() > deadline:
            raise RuntimeError("the run never reached its moment")
        time.sleep(0.05)
    return proc


def kill9(proc: subprocess.Popen) -> None:
    """What a crash does: SIGKILL to memlab alone (its SUTs and servers are left to gc)."""
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)


def saves(events: Path) -> list[tuple[str, str]]:
    """(row, trial) of every trial observation saved, by every run that wrote ``events``."""
    found = []
    for line in events.read_text().splitlines():
        moment, row, trial, _pid = line.split()[-4:]
        if line.startswith("saved ") and trial in TRIALS:
            found.append((row, trial))
    return found


def marked(run_id: str) -> list[int]:
    """Processes carrying ``MEMLAB_RUN_ID=run_id`` (the lab's mark, never a name)."""
    from lab.runtime.reaper import marked as find

    return find(run_id)


def observation_digests(out: Path) -> dict[str, str]:
    """Each observation file's SHA-256, by its path in the set."""
    return {str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in (out / "observations").rglob("*.json")}


@dataclass
class Attempt:
    """One kill, and what gc and the resume made of it."""

    moment: str
    partial: bool = False
    left_after_gc: int = -1
    resumed: bool = False
    verified: bool = False
    twice: int = -1

    @property
    def held(self) -> bool:
        return (self.partial and self.left_after_gc == 0 and self.resumed and self.verified
                and self.twice == 0)


def attempt(moment: str, work: Path, env: dict) -> Attempt:
    """Kill a run at ``moment``, gc, resume; what happened."""
    import json

    from lab.resultset.loading import Unreadable
    from lab.resultset.verify import verify

    out, events = work / "out", work / "moments"
    env = {**env, "MEMLAB_MOMENTS": str(events)}
    result = Attempt(moment)
    proc = start_paused(out, {**env, "MEMLAB_PAUSE_AT": KILLS[moment]}, events)
    run_id = json.loads((out / "run.json").read_text())["run_id"]
    kill9(proc)
    result.partial = memlab("verify", out, env=env).returncode == 3
    gc = memlab("gc", env=env)
    result.left_after_gc = len(marked(run_id)) if gc.returncode == 0 else -1
    resumed = memlab("run", "--resume", out, "--runtime", "local", "--no-reports", env=env)
    result.resumed = resumed.returncode == 0
    if not result.resumed:
        print(f"{moment}: the resume exited {resumed.returncode}: {resumed.stderr.strip()[-600:]}", file=sys.stderr)
    try:
        result.verified = verify(out).ok
    except Unreadable as exc:
        print(f"{moment}: {exc}", file=sys.stderr)
    done = saves(events)
    result.twice = len({s for s in done if done.count(s) > 1}) + len(set((r, t) for r in ROWS for t in TRIALS) - set(done))
    return result


def main() -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    with tempfile.TemporaryDirectory(prefix="memlab-kills-") as tmp:
        os.chmod(tmp, 0o755)  # PostgreSQL runs as its own user and must reach its data directory
        env = {**os.environ, "MEMLAB_CACHE": f"{tmp}/cache", "MEMLAB_SCRATCH": f"{tmp}/scratch"}
        print(f"{'moment':<46} {'verify':<8} {'gc left':>7} {'resume':>7} {'verified':>9} {'twice/missing':>14}")
        attempts = []
        for n, moment in enumerate(KILLS):
            work = Path(tmp) / f"kill-{n}"
            work.mkdir()
            a = attempt(moment, work, env)
            attempts.append(a)
            print(f"{moment:<46} {'PARTIAL' if a.partial else 'not 3':<8} {a.left_after_gc:>7} "
                  f"{'exit 0' if a.resumed else 'failed':>7} {str(a.verified):>9} {a.twice:>14}")
    held = sum(a.held for a in attempts)
    print(f"kills at named moments: {len(attempts)} tried, {held} resumed to a verifying set "
          f"(rows {', '.join(ROWS)}, local runtime)")
    return 0 if held == len(attempts) else 1


if __name__ == "__main__":
    sys.exit(main())
