"""The result-set commands of ``memlab``: verify, sign, keygen, analyze, compare, report, gate.

Exit codes: ``verify`` 0 verified, 1 rejected, 2 unreadable input, 3 partial (lab.resultset.partial); ``gate`` (and
``run`` with gate options) 0 met, 1 failed, 2 undecided or unreadable; the others 0
done, 2 bad input. Errors are one message, never a traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Callable, NoReturn

import click
from rich.console import Console

from lab.resultset import signing
from lab.resultset.analyze import analyze as analyze_set
from lab.resultset.analyze import default_out
from lab.resultset.compare import compare as compare_rows
from lab.resultset.gate import FAIL_ON, LEVELS, evaluate
from lab.resultset.loading import Unreadable, load_rows, load_run
from lab.resultset.results import read_json
from lab.report.comparison import render as render_comparison
from lab.report.files import DEFAULT_FILES, LIFECYCLE_RENDERERS, RENDERERS, write_reports
from lab.report.files import render as render_report
from lab.report import lifecycle as lifecycle_report
from lab.report.terminal import print_matrix, stdout_console
from lab.cli.verification import print_verification, verify_partial
from lab.resultset.partial import partial
from lab.resultset.verify import GROUNDS, Verification, verify
from lab.lifecycle.verify import LIFECYCLE_GROUNDS, is_lifecycle, verify_lifecycle

err = Console(stderr=True, soft_wrap=True)
SIGNATURE_GROUNDS = ("bad-signature", "signature-key-mismatch", "signature-missing")


def fail(message: str, code: int = 2) -> NoReturn:
    """Print one error line and exit (2: bad input)."""
    err.print(f"[bold red]memlab:[/] {message}", markup=True, highlight=False)
    sys.exit(code)


def _key_callback(load: Callable[[Path], Any]) -> Callable[[click.Context, click.Parameter, Path | None], Any]:
    """A click callback loading a key option's PEM with ``load``; an unusable key is a bad parameter."""
    def callback(ctx: click.Context, param: click.Parameter, value: Path | None) -> Any:
        if value is None:
            return None
        try:
            return load(value)
        except signing.SigningKeyError as exc:
            raise click.BadParameter(str(exc)) from None
    return callback


_private_key = _key_callback(signing.load_private_key)
_public_key = _key_callback(signing.load_public_key)


def sign_key_option(f):
    """``--sign-key KEY.pem``: sign the manifest once written."""
    return click.option("--sign-key", "sign_key", type=click.Path(dir_okay=False, path_type=Path),
                        callback=_private_key, help="Ed25519 private key (PEM): sign manifest.json "
                                                    "into manifest.sig (`memlab keygen` makes one).")(f)


def reports_option(f):
    """``--reports/--no-reports``: write report.md, junit.xml, report.html into the set."""
    return click.option("--reports/--no-reports", default=True, show_default=True,
                        help=f"Write {', '.join(DEFAULT_FILES.values())} into the result set.")(f)


def gate_options(f):
    """``--fail-on`` and ``--min-level``: the CI gate."""
    f = click.option("--min-level", type=click.Choice(LEVELS), default=None,
                     help="Fail unless every row reaches this level (REJECTED on the read path).")(f)
    return click.option("--fail-on", type=click.Choice(FAIL_ON), default=None,
                        help="Fail on any ACCEPTED cell (accepted), or also on audit-only detection (partial).")(f)


def load_set(root: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The rows and run.json of an at-rest set, read strictly and shape-checked (else exit 2 with why)."""
    try:
        return load_rows(root), load_run(root)
    except Unreadable as exc:
        fail(str(exc))


def run_gate(rows: list[dict[str, Any]], fail_on: str | None, min_level: str | None) -> int:
    """Judge rows against the gate, print why it failed, return the exit code."""
    if not (fail_on or min_level):
        return 0
    result = evaluate(rows, fail_on, min_level)
    for line in result.failures:
        err.print(f"[bold red]gate failed[/] {line}", highlight=False)
    for line in result.undecided:
        err.print(f"[magenta]gate undecided[/] {line}", highlight=False)
    verdict = {0: "[green]gate met[/]", 1: "[bold red]gate failed[/]", 2: "[magenta]gate undecided[/]"}
    err.print(f"{verdict[result.exit_code]} (--fail-on {fail_on or '-'}, --min-level {min_level or '-'}); "
              f"exit {result.exit_code}", highlight=False)
    return result.exit_code


def finish(out: Path, sign_key: Any, reports: bool, fail_on: str | None, min_level: str | None) -> int:
    """After a run or analyze: reports, signature, gate; returns the exit code."""
    rows, run = load_set(out)
    if reports:
        for path in write_reports(out, rows, run):
            err.print(f"report: {path}", highlight=False)
    if sign_key is not None:
        record = signing.sign(out, sign_key)
        err.print(f"signed manifest.json with {record['key_id']} -> {out / signing.SIGNATURE_FILE}", highlight=False)
    return run_gate(rows, fail_on, min_level)


def verify_any(root: Path, pubkey: Any = None) -> Verification:
    """Verify an at-rest or a lifecycle result set (told apart by the manifest's schema)."""
    return verify_lifecycle(root, pubkey) if is_lifecycle(root) else verify(root, pubkey)


@click.command("verify", help="Recompute a result set from its pinned bytes. Exit 0 verified, 1 rejected, "
                               "2 unreadable input, 3 partial (a run that did not complete: which rows and trials "
                               "are missing is said; what a manifest pins is verified).\n\nRejection grounds: " + ", ".join(GROUNDS) + "; of a lifecycle set: "
                               + ", ".join(sorted(set(LIFECYCLE_GROUNDS) - set(GROUNDS))) + ".")
@click.argument("result_dir", type=click.Path(path_type=Path))
@click.option("--pubkey", type=click.Path(dir_okay=False, path_type=Path), callback=_public_key,
              help="Ed25519 public key (PEM) the manifest must be signed by.")
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
def verify_cmd(result_dir: Path, pubkey: Any, as_json: bool) -> None:
    """Verify a result set: digests, signature, recount, re-derivation; name each rejection ground."""
    part = None if is_lifecycle(result_dir) else partial(result_dir)
    if part is not None:
        sys.exit(verify_partial(part, pubkey, as_json))
    try:
        result = verify_any(result_dir, pubkey)
    except Unreadable as exc:
        fail(str(exc))
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2))
    else:
        print_verification(result)
    sys.exit(0 if result.ok else 1)


@click.command("sign")
@click.argument("result_dir", type=click.Path(path_type=Path))
@click.option("--key", "key", type=click.Path(dir_okay=False, path_type=Path), callback=_private_key,
              required=True, help="Ed25519 private key (PEM).")
def sign_cmd(result_dir: Path, key: Any) -> None:
    """Sign a result set's manifest (manifest.sig), once it verifies. Exit 0 signed, 1 not verified, 2 bad input."""
    try:
        result = verify_any(result_dir)
    except Unreadable as exc:
        fail(str(exc))
    blocking = [f for f in result.findings if f.ground not in SIGNATURE_GROUNDS]
    if blocking:
        result.findings = blocking
        print_verification(result)
        fail("not signed: the result set does not verify", code=1)
    record = signing.sign(result_dir, key)
    click.echo(f"signed {result_dir / 'manifest.json'} with {record['key_id']} -> {signing.SIGNATURE_FILE}")


@click.command("keygen")
@click.argument("key_path", type=click.Path(dir_okay=False, path_type=Path))
def keygen_cmd(key_path: Path) -> None:
    """Make an Ed25519 key pair: KEY.pem (private, mode 0600) and KEY.pub.pem."""
    try:
        private, public, kid = signing.keygen(key_path)
    except (signing.SigningKeyError, OSError) as exc:
        fail(str(exc))
    click.echo(f"private key {private} (keep it secret), public key {public}, key id {kid}")


@click.command("analyze")
@click.argument("result_dir", type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="New result-set folder. Default: <RESULT_DIR>-analyzed-<UTC timestamp>.")
@sign_key_option
@reports_option
def analyze_cmd(result_dir: Path, out: Path | None, sign_key: Any, reports: bool) -> None:
    """Re-derive every row from RESULT_DIR's saved observations into a new result set."""
    out = out or default_out(result_dir)
    if out.resolve() == result_dir.resolve():
        fail("--out must be a new folder: analyze never rewrites the result set it reads")
    try:
        _, rows = analyze_set(result_dir, out)
    except Unreadable as exc:
        fail(str(exc))
    before, _ = load_set(result_dir)
    changed = [(p.key, c, a, b) for p in compare_rows(before, rows).pairs for c, a, b in p.changed]
    print_matrix(load_set(out)[0], stdout_console())
    for key, cid, a, b in changed:
        err.print(f"changed {key} {cid}: {a} -> {b}", highlight=False)
    err.print(f"analyzed {result_dir} -> {out}: {len(changed)} cell(s) differ from the source", highlight=False)
    sys.exit(finish(out, sign_key, reports, None, None))


@click.command("compare")
@click.argument("a", type=click.Path(path_type=Path))
@click.argument("b", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
def compare_cmd(a: Path, b: Path, as_json: bool) -> None:
    """Cell for cell, where the conditions of METHOD.md "Reporting" match; other rows side by side."""
    result = compare_rows(load_set(a)[0], load_set(b)[0])
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2, default=str))
    else:
        render_comparison(result, (str(a), str(b)), stdout_console())


@click.command("report")
@click.argument("result_dir", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["terminal", *RENDERERS]), default="terminal",
              show_default=True, help="Report format.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write to this file instead of standard output.")
def report_cmd(result_dir: Path, fmt: str, out: Path | None) -> None:
    """Render a result set: terminal matrix, Markdown, JUnit XML or one static HTML page."""
    if is_lifecycle(result_dir):
        return _report_lifecycle(result_dir, fmt, out)
    rows, run = load_set(result_dir)
    if fmt == "terminal":
        if out is None:
            print_matrix(rows, stdout_console())
            return
        with open(out, "w", encoding="utf-8") as fh:
            print_matrix(rows, Console(file=fh, width=170, color_system=None))
        return
    _emit(render_report(fmt, rows, run, result_dir), out)


def _emit(text: str, out: Path | None) -> None:
    """A rendered report to ``out`` (saying so on stderr), or to standard output when none is given."""
    if out is None:
        click.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")
        err.print(f"report: {out}", highlight=False)




def load_lifecycle(root: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The rows and run.json of a lifecycle result set."""
    try:  # strictly read (lab.resultset.loading): a NaN, a duplicate key or a 100k-deep file is an error
        rows = [read_json(p) for p in sorted((root / "rows").glob("*.json"))]
        run = read_json(root / "run.json")
    except (OSError, ValueError) as exc:
        fail(f"{root}: the lifecycle result set cannot be read: {exc}")
    return rows, run


def _report_lifecycle(root: Path, fmt: str, out: Path | None) -> None:
    rows, run = load_lifecycle(root)
    if fmt == "terminal":
        console = stdout_console() if out is None else Console(file=open(out, "w", encoding="utf-8"), width=170,
                                                               color_system=None)
        lifecycle_report.print_report(rows, run, console)
        return
    _emit(LIFECYCLE_RENDERERS[fmt](rows, run), out)


@click.command("gate")
@click.argument("result_dir", type=click.Path(path_type=Path))
@gate_options
@click.option("--pubkey", type=click.Path(dir_okay=False, path_type=Path), callback=_public_key,
              help="Ed25519 public key (PEM) the manifest must be signed by.")
def gate_cmd(result_dir: Path, fail_on: str | None, min_level: str | None, pubkey: Any) -> None:
    """Gate a saved result set for CI, after verifying it. Exit 0 met, 1 failed, 2 undecided or not verified."""
    if not (fail_on or min_level):
        fail("give --fail-on and/or --min-level")
    try:
        result = verify_any(result_dir, pubkey)
    except Unreadable as exc:
        fail(str(exc))
    if not result.ok:
        print_verification(result)
        fail("gate undecided: the result set does not verify")
    rows, _ = load_set(result_dir)
    sys.exit(run_gate(rows, fail_on, min_level))


COMMANDS = (verify_cmd, sign_cmd, keygen_cmd, analyze_cmd, compare_cmd, report_cmd, gate_cmd)
