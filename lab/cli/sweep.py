"""``memlab sweep``: one row re-measured against releases of its SUT package (lab.sweep), and
``memlab run --sut ROW --latest`` (the newest release beside the published set), whose body is here so
that ``lab.cli.run`` only hands over to it.

``memlab sweep`` exit codes: 0 the sweep completed (every release chosen measured and verified, skipped
by the halving, or reported as not installable with pip's message); 2 bad input (an unknown row, a
version the registry does not serve, an --out holding something else, ...: said with the fix), a
registry that cannot be asked, or a release that could not be measured; 130 interrupted, 143
terminated (every finished release's set kept, the record says which release was cut short: the same
command completes it). ``--check DIR`` verifies a sweep's sets and its record against them: 0 verified,
1 not, 2 unreadable.

``memlab run --latest`` exit codes, per row and for the command (the highest): 0 every cell and check
the same as the published set, 1 a verdict or a check changed, 2 the newest release could not be
measured (or the published set cannot be compared). A row whose package no registry serves is named
as skipped and does not change the code.
"""

from __future__ import annotations

import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

import click

from lab import RUNTIME_NAMES
from lab.cli.console import console, fail
from lab.cli.options import no_fork_server_option, profiles_option, reports_option
from lab.report.inert import inert

PUBLISHED = Path("results") / "published"


class VersionsOption(click.Option):
    """A ``multiple`` option that takes every value up to the next option (``--versions 3.0.0 3.1.0
    3.2.0..3.4.0``, as ``--versions 3.0.0 --versions 3.1.0 ...`` would)."""

    def add_to_parser(self, parser: Any, ctx: click.Context) -> None:
        super().add_to_parser(parser, ctx)
        for name in self.opts:
            option = parser._long_opt.get(name) or parser._short_opt.get(name)
            if option is None:
                continue
            process = option.process

            def greedy(value: Any, state: Any, process: Any = process) -> None:
                process(value, state)  # a multiple option: each value appended
                while state.rargs and not state.rargs[0].startswith("-"):
                    process(state.rargs.pop(0), state)
            option.process = greedy


def _say(text: str) -> None:
    from lab.cli.progress import settings
    if not settings.quiet:
        console.print(f"[cyan]sweep[/] {inert(text)}", soft_wrap=True, highlight=False)


def one_profile(profiles_dir: Path, row: str) -> Any:
    """The row's profile (its own file read when there is one, else the folder scanned), or exit 2 with
    the fix: the row's error, or the rows there are."""
    from lab.profile import scan_named, scan_profiles, select

    if not Path(profiles_dir).is_dir():
        fail(f"no profile folder at {profiles_dir}\n  fix: give --profiles DIR, a folder of profiles")
    if any(ch in row for ch in "*?["):
        fail(f"--sut {row}: a sweep measures one row\n  fix: give its exact name (`memlab list` shows them)")
    profiles, errors = scan_named(profiles_dir, [row]) or scan_profiles(profiles_dir)
    match = select(profiles, [row])
    if match:
        return match[0]
    mine = [e for e in errors if Path(e.path).stem == row]
    if mine:
        fail(str(mine[0]))
    from lab.profile import no_row_matches

    fail(no_row_matches([row], [p.row for p in profiles], profiles_dir))


@click.command("sweep")
@click.option("--sut", "row", required=False, metavar="ROW", help="The row to sweep (its exact name).")
@click.option("--versions", cls=VersionsOption, multiple=True, metavar="V... | A..B",
              help="Releases to measure: versions, and ranges A..B (every release served from A to B; ..B, A.. "
                   "open; pre-releases only when named).")
@click.option("--last", type=int, default=None, metavar="N", help="The N newest releases the registry serves.")
@click.option("--since", default=None, metavar="V", help="Every release the registry serves from V on.")
@click.option("--bisect", is_flag=True,
              help="Halve: measure the ends, then the middle of every part whose ends differ; the releases inside "
                   "a part with the same cells at both ends are skipped, and listed.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The sweep's folder (a new one, or the --out of this sweep to continue it). "
                   "Default: results/sweep-<row>-<UTC timestamp>/.")
@click.option("--runtime", "runtime_name", type=click.Choice(RUNTIME_NAMES), default=None,
              help="Where SUTs run. Default: the published set's runtime, else auto.")
@click.option("--jobs", type=click.IntRange(1, 32), default=2, show_default=True,
              help="Trials side by side in each release's at-rest run.")
@click.option("--published", type=click.Path(file_okay=False, path_type=Path), default=PUBLISHED, show_default=True,
              help="Folder of the published sets: the row's there gives the default runtime and the lifecycle "
                   "gate's --fail-on.")
@click.option("--check", "check_dir", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Verify the sweep in DIR instead (every set, and its record against them): exit 0, 1 or 2.")
@profiles_option
@no_fork_server_option
@reports_option
def sweep_cmd(row: str | None, versions: Sequence[str] | None, last: int | None, since: str | None, bisect: bool,
              out: Path | None, runtime_name: str | None, jobs: int, published: Path, check_dir: Path | None,
              profiles_dir: Path, no_fork_server: bool, reports: bool) -> None:
    """Measure a row against releases of its SUT package the registry serves: one verified result set per
    release, each its own row, and the releases lined up cell by cell with the release where each cell
    changed. Exit 0 completed, 2 bad input or a release not measured, 130 interrupted."""
    if check_dir is not None:
        if row or versions or last is not None or since:
            fail("--check DIR verifies a sweep already made: give it alone")
        _check(check_dir)
        return
    if not row:
        fail("give the row to sweep: --sut ROW\n  fix: e.g. memlab sweep --sut inspeximus-default --last 3")
    from lab.sweep.registry import RegistryError, SelectionError, select, served_versions
    from lab.sweep.measure import Interrupted, Options, published_options
    from lab.sweep.runner import Request, SweepRefused, run_sweep
    from lab.sweep.resolve import NotPinned
    from lab.sweep.versionrow import VersionRowError, check_sweepable
    from lab.cli.signals import exit_code, terminate_as_interrupt

    profile = one_profile(profiles_dir, row)
    try:
        check_sweepable(profile)
    except VersionRowError as exc:
        fail(str(exc))
    package = str(profile.sut["package"])
    _say(f"asking the registry for the releases of {package}")
    try:
        served = served_versions(package)
        chosen = select(served, versions=list(versions or ()), last=last, since=since)
    except (RegistryError, SelectionError) as exc:
        fail(str(exc))
    recorded = published_options(published / profile.row if (published / profile.row).is_dir() else None)
    options = Options(runtime=runtime_name or recorded.get("runtime", "auto"), jobs=jobs,
                      fail_on=recorded.get("fail_on", "p2"), fork_server=not no_fork_server,
                      quiet=_quiet(), reports=reports)
    out = out or Path("results") / f"sweep-{profile.row}-{datetime.now(timezone.utc).strftime('%Y%m%dT%H%M%SZ')}"
    selection = {"versions": list(versions or ()), "last": last, "since": since, "bisect": bisect}
    request = Request(profile, chosen, out, selection, bisect, options)
    _say(f"{profile.row}: {len(chosen)} release(s) of {package} ({chosen[0]} .. {chosen[-1]})"
         f"{', halving' if bisect else ''} -> {out}")
    doc = None
    with terminate_as_interrupt():
        try:
            doc = run_sweep(request, _say)
        except (SweepRefused, NotPinned, VersionRowError) as exc:
            fail(str(exc))
        except (Interrupted, KeyboardInterrupt) as exc:
            code = exc.code if isinstance(exc, Interrupted) else exit_code(exc)
            console.print(f"[yellow]interrupted[/]: every finished release's set is kept in {inert(out)}; "
                          f"{inert(out)}/sweep.json says which release was cut short. The same command completes it.")
            sys.exit(code)
    _print_sweep(doc, out)
    unmeasured = [r for r in doc["releases"] if r["status"] == "failed"]
    if unmeasured:
        fail(f"{len(unmeasured)} release(s) could not be measured: "
             + "; ".join(f"{r['version']}: {(r.get('message') or '').splitlines()[0] if r.get('message') else ''}"
                         for r in unmeasured))


def _quiet() -> bool:
    from lab.cli.progress import settings
    return settings.quiet


def _print_sweep(doc: dict[str, Any], out: Path) -> None:
    """The end of a sweep on standard output: the cells that moved, release by release, and the changes."""
    from lab.sweep.summary import lineup, summary_lines

    header, lines = lineup(doc)
    if lines:
        widths = [max(len(str(x)) for x in col) for col in zip(header, *lines)]
        for line in [header, *lines]:
            click.echo("  ".join(inert(str(x), markup=False).ljust(w) for x, w in zip(line, widths)).rstrip())
    for line in summary_lines(doc):
        click.echo(inert(line, markup=False))
    click.echo(f"sweep: {inert(out, markup=False)} (sweep.json, summary.md; `memlab sweep --check {inert(out, markup=False)}` "
               "verifies it)")


def _check(folder: Path) -> None:
    from lab.sweep.summary import check_sweep, headline, load
    from lab.resultset.loading import Unreadable

    try:
        doc = load(folder)
    except (Unreadable, ValueError) as exc:
        fail(str(exc))
    problems = check_sweep(folder)
    if problems:
        for line in problems:
            click.echo(inert(f"  {line}", markup=False))
        fail(f"REJECTED {folder}: {len(problems)} problem(s)", 1)
    sets = sum(len(r.get("sets") or {}) for r in doc["releases"] if r["status"] == "measured")
    click.echo(inert(f"VERIFIED {folder}: {sets} set(s); {headline(doc)}", markup=False))


def run_latest(patterns: Sequence[str], profiles_dir: Path, published: Path, out: Path | None,
               runtime_name: str | None, jobs: int, no_fork_server: bool) -> None:
    """``memlab run --sut ROW ... --latest``: each row's newest release beside its published set; exits."""
    from lab.profile import select
    from lab.cli.listing import profiles_in
    from lab.cli.signals import exit_code, terminate_as_interrupt
    from lab.resultset.loading import Unreadable
    from lab.sweep.latest import NOT_MEASURED, run_latest as measure_latest
    from lab.sweep.measure import Interrupted, Options, published_options
    from lab.sweep.registry import RegistryError
    from lab.sweep.resolve import NotPinned
    from lab.sweep.versionrow import VersionRowError

    if not patterns:
        fail("--latest needs the rows: --sut ROW (repeatable; globs select the rows with a published set)")
    profiles, _ = profiles_in(profiles_dir)
    chosen = select(profiles, list(patterns))
    named = [p for p in patterns if not any(ch in p for ch in "*?[")]
    chosen = [p for p in chosen if p.row in named or (published / p.row).is_dir()]
    if not chosen:
        from lab.profile import no_row_matches

        near = no_row_matches(patterns, [p.row for p in profiles if (published / p.row).is_dir()], profiles_dir)
        fail(f"{near}\n  (only rows with a published set under {published} are measured; --published DIR names "
             "another folder of published sets)")
    out = out or Path("results") / f"latest-{datetime.now(timezone.utc).strftime('%Y%m%dT%H%M%SZ')}"
    codes = []
    with terminate_as_interrupt():
        for profile in chosen:
            recorded = published_options(published / profile.row)
            options = Options(runtime=runtime_name or recorded.get("runtime", "auto"), jobs=jobs,
                              fail_on=recorded.get("fail_on", "p2"), fork_server=not no_fork_server, quiet=_quiet())
            _say(f"{profile.row}: the newest release of {profile.sut.get('package')} beside {published / profile.row}")
            try:
                result = measure_latest(profile, published / profile.row, out / profile.row, options)
            except RegistryError as exc:
                if exc.served_none:
                    console.print(f"[yellow]skipped[/] {inert(profile.row)}: {inert(exc)}", soft_wrap=True)
                    continue
                console.print(f"[bold red]{inert(profile.row)}[/]: {inert(exc)}", soft_wrap=True)
                codes.append(NOT_MEASURED)
                continue
            except (Unreadable, VersionRowError, NotPinned) as exc:
                console.print(f"[bold red]{inert(profile.row)}[/]: {inert(exc)}", soft_wrap=True)
                codes.append(NOT_MEASURED)
                continue
            except (Interrupted, KeyboardInterrupt) as exc:
                console.print(f"[yellow]interrupted[/]: what was measured is kept in {inert(out)}")
                sys.exit(exc.code if isinstance(exc, Interrupted) else exit_code(exc))
            _print_latest(result)
            codes.append(result.code)
    if not codes:
        fail("no selected row's package is served by a registry here: nothing newer to measure")
    sys.exit(max(codes))


def _print_latest(result: Any) -> None:
    """A row's newest release beside its published set, cell by cell, and the verdict of the gate."""
    words = {0: "same as the published set", 1: "CHANGED", 2: "NOT MEASURED"}
    head = [f"cell", f"published {result.package} {result.pinned}", f"newest {result.newest or '?'}", ""]
    lines = result.table() if result.cells else []
    if lines:
        widths = [max(len(str(x)) for x in col) for col in zip(head, *lines)]
        click.echo(inert(result.row, markup=False))
        for line in [head, *lines]:
            click.echo("  " + "  ".join(inert(str(x), markup=False).ljust(w) for x, w in zip(line, widths)).rstrip())
    for item in result.released:
        click.echo(inert(f"  pin released for {result.newest}: {item['package']} {item['pinned']} -> "
                         f"{item['resolved']} ({item['because']})", markup=False))
    tail = f"; {len(result.changed)} cell(s) changed: {', '.join(result.changed)}" if result.changed else ""
    if result.changed_variants:
        tail += f"; {len(result.changed_variants)} variant(s) changed"
    click.echo(inert(f"{result.row}: {result.package} {result.newest or '(no release)'}: {words[result.code]}{tail}"
                     + (f" -> {result.out}" if result.cells else ""), markup=False))
    if result.message:
        click.echo(inert(result.message, markup=False, lines=True))
