"""``memlab run``: the matrix on the selected rows, written as a verifiable result set.

Exit codes: 0 completed with every row evaluable and no harness error (with a gate, --fail-on or
--min-level: the gate met); 1 the gate failed (2 when it cannot be decided); 2 bad input, a harness
failure, a selected profile invalid, a row not evaluable or a trial with a harness error
(``--allow-errors``: those last three exit 0; an error of the machine, a full disk or a read-only
--out, is said with its path and the fix; so is the ``--evidence-budget`` passed, which stops the run as
Ctrl-C does); 130 interrupted, 143 terminated (SIGTERM): what was measured is kept, run.json says
interrupted, ``--resume`` completes it.
"""

from __future__ import annotations

import fnmatch
import sys
from pathlib import Path

import click

from lab import RECORDS_PER_CONTEXT, RUNTIME_NAMES, __version__
from lab.cli.console import console, fail
from lab.cli.listing import profiles_in
from lab.cli.options import (EVIDENCE_BUDGET, default_out, evidence_budget_option, gate_options,
                             no_fork_server_option, profiles_option, reports_option, sign_key_option)
from lab.cli.run_options import run_id_option
from lab.logs import get_logger
from lab.report.inert import inert

DEFAULT_SUT = "reference-*"
log = get_logger(__name__)


@click.command()
@click.option("--sut", "patterns", multiple=True, metavar="NAME_OR_GLOB",
              help=f"Rows to run (repeatable; globs allowed). Default: {DEFAULT_SUT!r}, the calibration rows.")
@click.option("--runtime", "runtime_name", type=click.Choice(RUNTIME_NAMES), default="auto", show_default=True,
              help="Where SUTs run (auto: the lab's own pure-Python SUTs locally; other SUTs in containers where an engine answers, else locally; the first line says which and why).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Result-set folder. Default: results/<UTC timestamp>/ (-2, -3, ... added when a run started "
                   "in the same second took it).")
@click.option("--jobs", type=click.IntRange(1, 32), default=2, show_default=True,
              help="Trials run side by side: of one row once it is seeded, and of several rows.")
@click.option("--nonce", default=None, help="Fix the seed plan's nonce (reproducible seeded texts).")
@click.option("--records", type=click.IntRange(RECORDS_PER_CONTEXT, 100_000), default=RECORDS_PER_CONTEXT,
              show_default=True, metavar="N",
              help="Records seeded per context (the method's minimum is 5; more measure the lab at scale).")
@profiles_option
@click.option("--allow-errors", is_flag=True,
              help="Exit 0 (or the gate's code) even when a selected profile is invalid, a row is not evaluable "
                   "or a trial hit a harness error; without it those exit 2.")
@no_fork_server_option
@click.option("--shard", "shard_spec", default=None, metavar="K/N",
              help="Measure shard K of N: the selected rows, sorted, dealt out round-robin (row i to shard "
                   "i mod N + 1); `memlab merge` joins the shards' sets (docs/sharding.md). Needs --run-id.")
@click.option("--run-id", "run_id", default=None, callback=run_id_option, metavar="ID",
              help="Name the run in run.json (default: a new id); the shards of one run share it.")
@click.option("--resume", "resume", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Continue the killed run in DIR (its --out; a shard's too, as it was recorded) with the options "
                   "its run.json recorded (--nonce, --records, --no-fork-server, --runtime): saved trials are kept, "
                   "the rest measured; refused when the lab, a profile, a driver or an option given differs from "
                   "the killed run's (docs/resume.md).")
@evidence_budget_option
@sign_key_option
@reports_option
@gate_options
@click.option("--latest", is_flag=True,
              help="Measure each row with the newest release of its SUT package the registry serves (the row's other "
                   "pins kept, but those the release contradicts) and print it beside the row's published set, cell by "
                   "cell: exit 0 the same, 1 a verdict or check changed, 2 the newest release could not be measured "
                   "(lab.cli.sweep). With --sut, --profiles, --published, --out, --runtime, --jobs, --no-fork-server.")
@click.option("--published", type=click.Path(file_okay=False, path_type=Path), default=Path("results") / "published",
              show_default=True, help="With --latest: the folder of the published sets (<row>/, its lifecycle/ inside).")
def run(patterns: tuple[str, ...], runtime_name: str, out: Path | None, jobs: int, nonce: str | None, records: int,
        profiles_dir: Path, allow_errors: bool, sign_key, reports: bool, fail_on: str | None,
        min_level: str | None, no_fork_server: bool = False, shard_spec: str | None = None,
        run_id: str | None = None, resume: Path | None = None, latest: bool = False,
        published: Path = Path("results") / "published", compose: dict[str, int] | None = None,
        evidence_budget: int = EVIDENCE_BUDGET) -> None:
    """Run the matrix: every selected row, ten edits, three controls; write a result set.

    Exit 0 completed with every row evaluable and no harness error (gate met, with --fail-on or
    --min-level); 1 the gate failed; 2 bad input, a harness failure, a selected profile invalid, a row
    not evaluable or a trial with a harness error (0 for those last three with --allow-errors), or an
    error of the machine (a full disk, a read-only --out: the path and the fix) or the --evidence-budget
    passed (what was measured is kept; --resume DIR with a bigger budget completes it); 130 interrupted, 143
    terminated by SIGTERM (what was measured is kept; --resume DIR completes it). A row skipped before
    the run (unavailable, lifecycle-only, or not runnable on this runtime, e.g. its server is not
    installed) is named on stderr, is not in the result set and does not change the code; when no
    selected row can run, the exit is 2."""
    from lab.cli import progress
    from lab.cli import run_failures as ended
    from lab.cli.oserrors import describe
    from lab.cli.signals import terminate_as_interrupt
    from lab.cli.results import finish
    from lab.cli.run_options import OptionRefused, recorded_rows, resumed_options, shard_of
    from lab.method.engine import TRIALS_PER_ROW, Interrupted, run_matrix
    from lab.method.resume import ResumeRefused
    from lab.resultset.evidence_budget import EvidenceOverBudget
    from lab.profile import file_row, no_row_matches, select
    from lab.judge.row import read_row
    from lab.report.terminal import print_matrix, stdout_console
    from lab.resultset.lock import OutRefused
    from lab.runtime import RuntimeUnavailable, enabling_command
    from lab.runtime.choice import choose
    from lab.runtime import runnable as runnable_here
    from lab.runtime.shell import memlab as memlab_command

    if latest:
        from lab.cli.sweep import run_latest
        given = _given(click.get_current_context()) - {"patterns", "profiles_dir", "published", "out", "runtime_name",
                                                         "jobs", "no_fork_server", "latest"}
        if given:
            fail(f"--latest measures the newest release as the published row was measured; it takes no "
                 f"{', '.join(sorted('--' + g.replace('_', '-') for g in given))}\n  fix: give --latest with --sut, "
                 "--profiles, --published, --out, --runtime, --jobs or --no-fork-server")
        run_latest(patterns, profiles_dir, published, out, None if "runtime_name" not in _given(
            click.get_current_context()) else runtime_name, jobs, no_fork_server)
    shard = None
    if resume is not None:
        if out is not None and out.resolve() != resume.resolve():
            fail(f"--out {out} and --resume {resume} name two folders: a resume writes into the folder it continues")
        if shard_spec or run_id:
            fail("--resume continues the run (or shard) as its run.json recorded it: give --resume DIR without "
                  "--shard or --run-id")
        try:
            out, patterns = resume, patterns or tuple(recorded_rows(resume))
            taken = resumed_options(resume, _given(click.get_current_context()))
        except OptionRefused as exc:
            fail(str(exc))
        nonce = taken.get("nonce", nonce)  # the killed run's options, where this resume gives none
        records = int(taken.get("records", records))
        no_fork_server = bool(taken.get("no_fork_server", no_fork_server))
        runtime_name = str(taken.get("runtime_name", runtime_name))
    profiles, errors = profiles_in(profiles_dir)
    wanted = list(patterns) or [DEFAULT_SUT]
    chosen = select(profiles, wanted)
    invalid = [e for e in errors if any(fnmatch.fnmatchcase(file_row(e.path), pat) for pat in wanted)]
    if not chosen and not invalid:
        fail(no_row_matches(wanted, [p.row for p in profiles] + [file_row(e.path) for e in errors], profiles_dir))
    not_at_rest = [p for p in chosen if "at_rest" not in p.measurements]
    if not_at_rest and len(not_at_rest) == len(chosen) and not invalid:
        fail(f"{', '.join(p.row for p in not_at_rest)}: not measured at rest; run "
             + " or ".join(f"`{cmd}`" for cmd in _commands(not_at_rest[0])))
    for prof in not_at_rest:
        console.print(f"[yellow]skipped[/] {inert(prof.row)}: not measured at rest ("
                      + ", ".join(f"`{inert(cmd)}`" for cmd in _commands(prof)) + ")")
    chosen = [p for p in chosen if p not in not_at_rest]
    if shard_spec:
        try:
            shard = shard_of(shard_spec, run_id, [p.row for p in chosen if p.status == "runnable"]
                             + [file_row(e.path) for e in invalid], nonce, records, no_fork_server)
        except OptionRefused as exc:
            fail(str(exc))
        chosen = [p for p in chosen if p.status != "runnable" or p.row in shard["assigned"]]
        invalid = [e for e in invalid if file_row(e.path) in shard["assigned"]]
    runnable = [p for p in chosen if p.status == "runnable"]
    try:
        choice = choose(runtime_name, runnable)
    except RuntimeUnavailable as exc:
        fail(str(exc))
    runtime = choice.runtime
    console.print(inert(choice.line()), soft_wrap=True)
    for prof in (p for p in chosen if p.status != "runnable"):
        console.print(f"[yellow]skipped[/] {inert(prof.row)}: unavailable: {inert(prof.unavailable_reason)}")
    if not runnable and not invalid:
        fail("none of the selected rows can run here")
    if no_fork_server and hasattr(runtime, "use_fork_server"):
        runtime.use_fork_server = False
    cannot: dict[str, list[str]] = {}  # what enables them -> the rows the runtime cannot run here
    for prof in list(runnable):
        ok, why = runnable_here(runtime, prof)
        if not ok:
            log.info("row.skipped", row=prof.row, runtime=runtime.name, reason=why)  # -v: the whole reason
            cannot.setdefault(enabling_command(runtime, prof), []).append(prof.row)
            runnable.remove(prof)
            if shard:  # merge refuses a shard that did not measure a row it was given, and says why
                shard["skipped"][prof.row] = f"not runnable on the {runtime.name} runtime there: {why}"
    if cannot:  # one line, whatever their number: each group of rows with what enables it
        groups = "; ".join(f"{inert(', '.join(rows))} ({inert(fix)})" for fix, rows in cannot.items())
        console.print(f"[yellow]skipped[/] (not runnable on the {runtime.name} runtime here; "
                      f"{inert(memlab_command())} list --runtime {runtime.name} says why): {groups}", soft_wrap=True)
    if not runnable and not invalid:
        fail("none of the selected rows can run here")
    out = out or default_out()  # a new folder of its own, even for a run started in the same second
    console.print(f"memlab {__version__}: {len(runnable)} row(s) on the {runtime.name} runtime -> {inert(out)}")
    measured = False
    with terminate_as_interrupt():  # SIGTERM as Ctrl-C: the SUTs killed, what was measured kept
        try:
            with progress.RunProgress(console, total=len(runnable) * TRIALS_PER_ROW) as bar:
                summary = run_matrix(runnable, runtime, out, jobs=jobs, nonce=nonce, records=records,
                                     invalid=invalid, progress=bar.step, run_id=run_id, shard=shard,
                                     resume=resume is not None, compose=compose, evidence_budget=evidence_budget)
            measured = True
            print_matrix([read_row(row) for row in summary.rows], stdout_console())
            problems = summary.problems()
            summary.rows.clear()  # finish reads the rows from the set: never two copies (26 MB a row at 10,000 records)
            console.print(f"result set: {inert(out)}")
            code = finish(out, sign_key, reports, fail_on, min_level)
            if compose or summary.run.get("compose"):  # memlab compose (or a resumed one): its findings decide too
                from lab.cli.composed import report_composition
                code = max(code, report_composition(out, reports))
        except (Interrupted, KeyboardInterrupt) as exc:
            ended.interrupted(exc, out, measured)
        except EvidenceOverBudget as exc:  # a harness error, never a verdict: what was measured is kept
            fail(exc.describe(f"memlab {'compose' if compose else 'run'} --resume"))
        except (OutRefused, ResumeRefused) as exc:  # another run writes --out, it holds a set, or not this run's
            fail(str(exc))
        except OSError as exc:  # a full disk, a read-only --out, ...: the user's to fix
            if describe(exc) is None:
                ended.harness(exc, out, measured)
            ended.machine(exc, out, "after" if measured else "during" if (out / "run.json").is_file() else "before")
        except Exception as exc:  # a fault of the lab itself: a clear message, the traceback kept
            ended.harness(exc, out, measured)
    sys.exit(_outcome(code, problems, allow_errors))


def _given(ctx: click.Context) -> set[str]:
    """The parameters given on the command line (or by the environment), not left at their default."""
    from click.core import ParameterSource
    return {name for name in ctx.params
            if ctx.get_parameter_source(name) not in (None, ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP)}


def _outcome(code: int, problems: list[str], allow_errors: bool) -> int:
    """The run's exit code: the gate's, or 2 when a row was not cleanly measured (unless allowed)."""
    if not problems:
        return code
    console.print(f"[bold red]memlab:[/] {len(problems)} row(s) not cleanly measured:")
    for line in problems:
        console.print(f"  {inert(line.splitlines()[0])}")
    if allow_errors:
        console.print("exit code as if measured cleanly (--allow-errors)")
        return code
    console.print("exit 2 (--allow-errors exits 0 for these)")
    return 2


#: measurement -> the command that takes a row of it (the at-rest one is this command).
COMMANDS = {"lifecycle": "memlab lifecycle run --sut {row}", "frontdoor": "memlab frontdoor run --sut {row}"}


def _commands(profile) -> list[str]:
    """The commands measuring a row that ``memlab run`` does not."""
    return [COMMANDS[m].format(row=profile.row) for m in profile.measurements if m in COMMANDS]
