"""The commands that render or re-derive a saved result set: analyze, compare, report.

Exit codes: 0 done (report and compare also when the reader closes the pipe early: ``| head``), 2 bad
input (a set that cannot be read, an ``--out`` that is not new). Each imports
what it reads and renders with when it runs, so that its ``--help`` loads none of it.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from lab.cli.console import fail, reader_may_leave
from lab.cli.options import reports_option, sign_key_option
from lab.cli.results import err, finish, load_lifecycle, load_records, load_set
from lab.report.formats import DEFAULT_FILES
from lab.report.inert import inert


@click.command("analyze")
@click.argument("result_dir", type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="New result-set folder. Default: <RESULT_DIR>-analyzed-<UTC timestamp>.")
@sign_key_option
@reports_option
def analyze_cmd(result_dir: Path, out: Path | None, sign_key: Any, reports: bool) -> None:
    """Re-derive every row from RESULT_DIR's saved observations into a new result set."""
    from lab.report.terminal import print_matrix, stdout_console
    from lab.resultset.analyze import analyze as analyze_set
    from lab.resultset.analyze import default_out
    from lab.resultset.compare import compare as compare_rows
    from lab.resultset.loading import Unreadable

    out = out or default_out(result_dir)
    if out.resolve() == result_dir.resolve():
        fail("--out must be a new folder: analyze never rewrites the result set it reads")
    try:
        _, rows = analyze_set(result_dir, out)
    except Unreadable as exc:
        fail(str(exc))
    from lab.judge.row import read_row
    changed = [(p.key, c, a, b) for p in compare_rows(load_records(result_dir), [read_row(r) for r in rows]).pairs
               for c, a, b in p.changed]
    print_matrix(load_set(out)[0], stdout_console())
    for key, cid, a, b in changed:
        err.print(inert(f"changed {key} {cid}: {a} -> {b}"), highlight=False)
    err.print(inert(f"analyzed {result_dir} -> {out}: {len(changed)} cell(s) differ from the source"), highlight=False)
    sys.exit(finish(out, sign_key, reports, None, None))


@click.command("compare")
@click.argument("a", type=click.Path(path_type=Path))
@click.argument("b", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
@reader_may_leave()
def compare_cmd(a: Path, b: Path, as_json: bool) -> None:
    """Cell for cell, where the conditions of docs/method.md "Reporting" match; other rows side by side."""
    from lab.report.comparison import render as render_comparison
    from lab.report.terminal import stdout_console
    from lab.resultset.compare import compare as compare_rows

    _comparable_kinds(a, b)
    result = compare_rows(load_records(a), load_records(b))
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2, default=str))
    else:
        render_comparison(result, (str(a), str(b)), stdout_console())


def _comparable_kinds(a: Path, b: Path) -> None:
    """Exit 2 with what each set is unless both are at-rest sets (lab.resultset.kinds), the only kind
    compared cell for cell; a folder that is no set is left to the reader, which says why."""
    from lab.resultset.kinds import AT_REST, LIFECYCLE, described
    from lab.resultset.loading import set_kind

    kinds = {a: set_kind(a), b: set_kind(b)}
    other = [k for k in kinds.values() if k not in (None, AT_REST)]
    if not other:
        return
    said = "; ".join(f"{p} is {described(k)}" for p, k in kinds.items() if k is not None)
    show = "; `memlab show DIR` prints a lifecycle set's gate table" if LIFECYCLE in other else ""
    if kinds[a] is not None and kinds[b] is not None and kinds[a] != kinds[b]:
        fail(f"{said}: {_bare(kinds[a])} and {_bare(kinds[b])} cannot be compared cell for cell\n"
             f"  fix: give two at-rest sets (`memlab compare` compares at-rest sets only){show}")
    fail(f"{said}: `memlab compare` compares at-rest sets only; {', '.join(sorted(set(other)))} sets are not "
         f"compared cell for cell (yet)\n  fix: give two at-rest sets (the --out of `memlab run`; a published "
         f"row's folder){show}")


def _bare(kind: str | None) -> str:
    """``an at-rest set``: lab.resultset.kinds.described without the command that writes it."""
    from lab.resultset.kinds import described
    return described(kind).split(" (", 1)[0]


@click.command("report")
@click.argument("result_dir", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["terminal", *DEFAULT_FILES]), default="terminal",
              show_default=True, help="Report format.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write to this file instead of standard output.")
@reader_may_leave()
def report_cmd(result_dir: Path, fmt: str, out: Path | None) -> None:
    """Render a result set: terminal matrix, Markdown, JUnit XML or one static HTML page."""
    from lab.lifecycle.verify import is_lifecycle
    from lab.report.files import render as render_report
    from lab.report.terminal import print_matrix, stdout_console

    if is_lifecycle(result_dir):
        return _report_lifecycle(result_dir, fmt, out)
    rows, run = load_set(result_dir)
    if fmt == "terminal":
        target = stdout_console() if out is None else _file_console()
        print_matrix(rows, target)
        _print_composition(result_dir, target)  # as `memlab compose` printed it, after the matrix
        return None if out is None else _emit(target.file.getvalue(), out)
    try:
        text = render_report(fmt, rows, run, result_dir)
    except ValueError as exc:  # a compose row that cannot be read (lab.resultset.composition)
        fail(str(exc))
    _emit(text, out)


def _print_composition(root: Path, target: Console) -> None:
    """The composition's lines (per row and point: sequences tried, outcomes, each finding), when the set
    holds one; a compose row that cannot be read exits 2 naming it."""
    from lab.report.compose import text_lines
    from lab.resultset.composition import load_rows as load_compose_rows

    try:
        lines = text_lines(load_compose_rows(root))
    except ValueError as exc:
        fail(str(exc))
    for line in lines:
        target.print(line, highlight=False, markup=False, soft_wrap=True)


def _file_console() -> Console:
    """A console rendering into text, as a file gets it (170 columns, no colour)."""
    return Console(file=io.StringIO(), width=170, color_system=None)


def _emit(text: str, out: Path | None) -> None:
    """A rendered report to ``out`` (written whole, never through a link: lab.safewrite; saying so on
    stderr), or to standard output when none is given."""
    from lab import safewrite

    if out is None:
        click.echo(text, nl=False)
    else:
        safewrite.write_text(out, text)
        err.print(f"report: {inert(str(out))}", highlight=False)


def _report_lifecycle(root: Path, fmt: str, out: Path | None) -> None:
    from lab.report import lifecycle as lifecycle_report
    from lab.report.lifecycle_files import LIFECYCLE_RENDERERS
    from lab.report.terminal import stdout_console

    rows, run = load_lifecycle(root)
    if fmt == "terminal":
        console = stdout_console() if out is None else _file_console()
        lifecycle_report.print_report(rows, run, console)
        return None if out is None else _emit(console.file.getvalue(), out)
    _emit(LIFECYCLE_RENDERERS[fmt](rows, run), out)
