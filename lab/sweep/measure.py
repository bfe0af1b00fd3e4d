"""One release measured: its row through ``memlab run`` (at rest) and ``memlab lifecycle run`` (when
the row takes the lifecycle gate), each a subprocess writing a result set, then both sets verified.

The at-rest set is written to the release's folder, the lifecycle set to ``lifecycle/`` inside it, as
under ``results/published/<row>/``. A run's own progress bar shows on standard error; what it prints
on standard output (its matrix) is kept for the message of a run that fails. A set that is already
complete there is kept (a sweep run again measures only what it lacks); one a killed run left partial
is completed with ``--resume``. Ctrl-C (or SIGTERM) ends the run with what it measured kept and
raises :class:`Interrupted`. A release whose environment could not be built (pip failed where the
resolution had not: a source build, a wheel pip could not fetch) is reported as not installed, with
pip's message from the set's ``environment.json``.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from lab.resultset.loading import Unreadable, read_strict
from lab.sweep.lineup import set_cells, set_variants


class Interrupted(KeyboardInterrupt):
    """The run of a release was interrupted (its set is kept, partial); ``code`` is its exit code."""

    def __init__(self, code: int):
        super().__init__(code)
        self.code = code


@dataclass
class Options:
    """How each release is run (as ``memlab run`` and ``memlab lifecycle run`` take them)."""

    runtime: str = "auto"
    jobs: int = 2
    fail_on: str = "p2"              # the lifecycle gate's (the published set's, so that the gates compare)
    fork_server: bool = True
    quiet: bool = False
    reports: bool = True


@dataclass
class Measured:
    """A release's outcome: ``measured`` (its cells), ``not-installed`` (pip's message), ``failed``."""

    version: str
    status: str
    cells: dict[str, str] | None = None
    variants: dict[str, str] | None = None
    message: str = ""
    sets: dict[str, str] = field(default_factory=dict)     # kind -> folder, relative to the sweep
    kept: bool = False                                      # measured by an earlier run of the sweep


def memlab(*args: str, quiet: bool = False) -> list[str]:
    """The ``memlab`` command line of this lab (this interpreter, this checkout)."""
    return [sys.executable, "-m", "lab.cli", *(["-q"] if quiet else []), *args]


Runner = Callable[[list[str]], subprocess.CompletedProcess]


def _run(argv: list[str]) -> subprocess.CompletedProcess:
    """Run a memlab command, its standard output kept. Ctrl-C reaches it from the terminal as it reaches
    the sweep, and the sweep waits for it to pin what it measured; a SIGTERM to the sweep alone (raised
    here as an interrupt carrying ``signal``) is passed on to it, and waited for the same way."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    try:
        out, _ = proc.communicate()
    except KeyboardInterrupt as exc:
        if getattr(exc, "signal", None) == "SIGTERM":
            proc.send_signal(signal.SIGTERM)
        try:
            proc.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
        raise Interrupted(143 if getattr(exc, "signal", None) == "SIGTERM" else 130) from None
    return subprocess.CompletedProcess(argv, proc.returncode, out)


def status_of(root: Path) -> str | None:
    """``completed``, ``partial`` (a run left it unfinished) or None (no set there)."""
    run = root / "run.json"
    if not run.is_file():
        return "partial" if root.exists() and any(root.iterdir()) else None
    try:
        recorded = read_strict(run)
    except (OSError, Unreadable, ValueError):
        return "partial"
    return "completed" if recorded.get("status") == "completed" and (root / "manifest.json").is_file() else "partial"


def _complete(root: Path, fresh: list[str], resume: list[str], what: str, options: Options,
              run: Runner) -> str | None:
    """Make the set at ``root`` complete: nothing when it is, ``resume`` when a run left it partial,
    else ``fresh``; None when it is complete after, else why not. An interrupted run raises."""
    state = status_of(root)
    args = resume if state == "partial" else fresh
    args += [] if options.fork_server or state == "partial" else ["--no-fork-server"]
    proc = run(memlab(*args, quiet=options.quiet))
    if proc.returncode in (130, 143):
        raise Interrupted(proc.returncode)
    return None if status_of(root) == "completed" else _failure(what, proc)


def measure_release(version: str, row: str, profiles: Path, out: Path, at_rest: bool, lifecycle: bool,
                    options: Options, run: Runner = _run) -> Measured:
    """Measure the release's row ``row`` (its profile in ``profiles``) into ``out``."""
    kept = True
    sets: dict[str, str] = {}
    if at_rest:
        if status_of(out) != "completed":
            kept = False
            tail = ["--profiles", str(profiles), "--allow-errors"] + ([] if options.reports else ["--no-reports"])
            failure = _complete(out, ["run", "--sut", row, "--out", str(out), "--runtime", options.runtime,
                                      "--jobs", str(options.jobs), *tail], ["run", "--resume", str(out), *tail],
                                "memlab run", options, run)
            if failure:
                return Measured(version, "failed", message=failure, sets=sets)
        sets["at_rest"] = str(out)
        problem = _not_installed(out, row)
        if problem:
            return Measured(version, "not-installed", message=problem, sets=sets, kept=kept)
    if lifecycle:
        life = out / "lifecycle"
        if status_of(life) != "completed":
            kept = False
            failure = _complete(life, ["lifecycle", "run", "--sut", row, "--profiles", str(profiles), "--position",
                                       "both", "--fail-on", options.fail_on, "--runtime", options.runtime,
                                       "--out", str(life)], ["lifecycle", "run", "--resume", str(life)],
                                "memlab lifecycle run", options, run)
            if failure:
                return Measured(version, "failed", message=failure, sets=sets)
        sets["lifecycle"] = str(life)
    problems = verify_sets(sets)
    if problems:
        return Measured(version, "failed", message="; ".join(problems), sets=sets, kept=kept)
    return Measured(version, "measured", cells=set_cells(out), variants=set_variants(out), sets=sets, kept=kept)


def verify_sets(sets: dict[str, str]) -> list[str]:
    """What keeps each set from verifying (empty when every one verifies)."""
    from lab.lifecycle.verify import verify_lifecycle
    from lab.resultset.verify import verify

    problems = []
    for kind, folder in sets.items():
        try:
            result = verify_lifecycle(Path(folder)) if kind == "lifecycle" else verify(Path(folder))
        except Unreadable as exc:
            problems.append(f"{folder} cannot be read: {exc}")
            continue
        if not result.ok:
            grounds = ", ".join(sorted({f.ground for f in result.findings}))
            problems.append(f"{folder} does not verify ({grounds}; `memlab verify {folder}` lists them)")
    return problems


def _not_installed(out: Path, row: str) -> str | None:
    """pip's message when the run could not build the release's environment (the prepare stage)."""
    path = out / "observations" / row / "environment.json"
    try:
        env = read_strict(path) if path.is_file() else {}
    except (Unreadable, ValueError, OSError):
        return None
    error = env.get("error") if isinstance(env, dict) else None  # lab.method.rowwork: a row not prepared
    return str(error) if error else None


def _failure(what: str, proc: subprocess.CompletedProcess) -> str:
    tail = "\n".join((proc.stdout or "").strip().splitlines()[-8:])
    return f"{what} exited {proc.returncode} without a complete set" + (f":\n{tail}" if tail else "")


def published_options(published: Path | None) -> dict[str, Any]:
    """What the published set of a row was run with, where it says: ``runtime`` (the at-rest set's) and
    ``fail_on`` (its lifecycle set's), so that a release is measured as the published row was."""
    out: dict[str, Any] = {}
    if published is None:
        return out
    for path, key, field_name in ((published / "run.json", "runtime", "runtime"),
                                  (published / "lifecycle" / "run.json", "fail_on", "fail_on")):
        try:
            recorded = read_strict(path) if path.is_file() else {}
        except (Unreadable, ValueError, OSError):
            continue
        if isinstance(recorded, dict) and recorded.get(field_name):
            out[key] = str(recorded[field_name])
    return out
