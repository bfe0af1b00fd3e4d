"""The profile fuzz table of tests/adversarial/test_profile_fuzz.py, measured as a user meets it (issue 14).

For every malformed profile of the table: is it rejected with the file, the field and a fix
(and the line, where the edit has one), how long the check takes, and what ``memlab run --sut``
on it exits with (a new process each, local runtime, ``--out`` in a temp folder; ``--no-run``
skips that part). Prints one line per case that did not hold, then the figures:

    python bench/profile_fuzz.py            # tried N: rejected N ..., memlab run exited non-zero on N of N
    python bench/profile_fuzz.py --no-run   # the checks only (a second)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "adversarial")]

from lab.profile import ProfileError, load_profile  # noqa: E402
from test_profile_fuzz import CASES, write  # noqa: E402  (the table is the test's)


def check(case, folder: Path) -> tuple[bool, float, str]:
    """(held, seconds, what happened) of one case's profile check."""
    path = write(folder, case)
    started = time.monotonic()
    try:
        load_profile(path)
    except ProfileError as err:
        seconds = time.monotonic() - started
        held = err.field == case.field and bool(err.fix) and str(path) in str(err) and (
            not case.at_edit or err.line == case.edit_line())
        return held, seconds, str(err).splitlines()[0]
    except Exception as exc:  # noqa: BLE001 -- a crash is a case that did not hold, and is counted
        return False, time.monotonic() - started, f"crashed: {type(exc).__name__}: {exc}"
    return False, time.monotonic() - started, "accepted"


def run_exit(case, folder: Path) -> int:
    """What ``memlab run --sut fuzz`` exits with on the case's profile."""
    write(folder / "p", case)
    env = {**os.environ, "MEMLAB_CACHE": str(folder / "cache")}
    done = subprocess.run([sys.executable, "-m", "lab.cli", "run", "--sut", "fuzz", "--runtime", "local",
                           "--no-reports", "--profiles", str(folder / "p"), "--out", str(folder / "out")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    return done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-run", action="store_true", help="check the profiles only, do not run memlab run")
    args = parser.parse_args()
    held = nonzero = 0
    slowest = (0.0, "")
    for case in CASES:
        with tempfile.TemporaryDirectory(prefix="memlab-fuzz-") as tmp:
            ok, seconds, what = check(case, Path(tmp) / "check")
            held += ok
            slowest = max(slowest, (seconds, case.id))
            code = None if args.no_run else run_exit(case, Path(tmp) / "run")
            nonzero += bool(code)
            if not ok or code == 0:
                print(f"NOT HELD {case.id}: {what}" + ("" if code is None else f" (memlab run exit {code})"))
    print(f"tried {len(CASES)} malformed profiles: rejected {held} with file, field and fix "
          f"(slowest check {slowest[0] * 1000:.0f} ms, {slowest[1]})"
          + ("" if args.no_run else f"; memlab run exited non-zero on {nonzero} of {len(CASES)}"))
    return 0 if held == len(CASES) and (args.no_run or nonzero == len(CASES)) else 1


if __name__ == "__main__":
    sys.exit(main())
