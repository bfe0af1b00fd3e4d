"""The result-set commands of ``memlab``: verify, sign, keygen, gate, and what the commands that read a
saved set share (loading it, the gate, reports and signature after a run). analyze, compare and report
are in lab.cli.reports.

Exit codes: ``verify`` 0 verified, 1 rejected, 2 unreadable input, 3 partial (lab.resultset.partial); ``gate`` (and
``run`` with gate options) 0 met, 1 failed, 2 undecided or unreadable; the others 0
done, 2 bad input. Errors are one message, never a traceback. Each command imports the result set's
code when it runs, so that its ``--help`` loads none of it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click
from rich.console import Console
from rich.errors import MarkupError

from lab.cli.console import fail as fail_text
from lab.cli.options import gate_options, json_first, private_key, public_key, unreadable_as_json
from lab.frontdoor.grounds import FRONTDOOR_GROUNDS
from lab.lifecycle.grounds import LIFECYCLE_GROUNDS
from lab.report.inert import inert
from lab.resultset.grounds import GROUNDS

if TYPE_CHECKING:
    from lab.judge.row import AtRestRow
    from lab.resultset.run_record import RunRecord

err = Console(stderr=True, soft_wrap=True, emoji=False)
SIGNATURE_GROUNDS = ("bad-signature", "signature-key-mismatch", "signature-missing")


def fail(message: str, code: int = 2) -> NoReturn:
    """Print one error line and exit (2: bad input). ``message`` is rich markup (text its caller
    escaped stays text); its control characters are shown (lab.report.inert), and markup that does
    not parse prints as text, never a traceback. Text from outside goes to :func:`fail_text`."""
    text = inert(message, markup=False, lines=True)
    try:
        err.print(f"[bold red]memlab:[/] {text}", markup=True, highlight=False)
    except MarkupError:
        err.print(f"memlab: {text}", markup=False, highlight=False)
    sys.exit(code)


def load_set(root: Path) -> tuple[list[AtRestRow], RunRecord]:
    """The rows and run.json of an at-rest set, each read by its record, strictly (else exit 2 with why)."""
    from lab.resultset.loading import Unreadable, load_row_records, load_run
    try:
        return load_row_records(root), load_run(root)
    except Unreadable as exc:
        fail_text(str(exc))


def load_records(root: Path) -> list[AtRestRow]:
    """The rows of an at-rest set read by their record (lab.judge.row), strictly (else exit 2 with why)."""
    from lab.resultset.loading import Unreadable, load_row_records
    try:
        return load_row_records(root)
    except Unreadable as exc:
        fail_text(str(exc))


def run_gate(rows: list[AtRestRow], fail_on: str | None, min_level: str | None) -> int:
    """Judge rows against the gate, print why it failed, return the exit code."""
    if not (fail_on or min_level):
        return 0
    from lab.resultset.gate import evaluate
    result = evaluate(rows, fail_on, min_level)
    for line in result.failures:
        err.print(f"[bold red]gate failed[/] {inert(line)}", highlight=False)
    for line in result.undecided:
        err.print(f"[magenta]gate undecided[/] {inert(line)}", highlight=False)
    verdict = {0: "[green]gate met[/]", 1: "[bold red]gate failed[/]", 2: "[magenta]gate undecided[/]"}
    err.print(f"{verdict[result.exit_code]} (--fail-on {fail_on or '-'}, --min-level {min_level or '-'}); "
              f"exit {result.exit_code}", highlight=False)
    return result.exit_code


def finish(out: Path, sign_key: Any, reports: bool, fail_on: str | None, min_level: str | None) -> int:
    """After a run or analyze: reports, signature, gate; returns the exit code."""
    from lab.report.files import write_reports
    from lab.resultset import signing
    rows, run = load_set(out)
    if reports:
        for path in write_reports(out, rows, run):
            err.print(f"report: {inert(path)}", highlight=False)
    if sign_key is not None:
        record = signing.sign(out, sign_key)
        err.print(f"signed manifest.json with {record['key_id']} -> {inert(out / signing.SIGNATURE_FILE)}",
                  highlight=False)
    return run_gate(rows, fail_on, min_level)


@click.command("verify", help="Recompute a result set from its pinned bytes. Exit 0 verified, 1 rejected, "
                               "2 unreadable input, 3 partial (a run that did not complete: which rows and trials "
                               "are missing is said; what a manifest pins is verified). A folder that is no set but holds "
                               "sets below it (up to 4 levels; no link followed): each set verified, a line each "
                               "and a total, exit the worst (1, 2, 3, then 0).\n\nRejection grounds: " + ", ".join(GROUNDS) + "; of a lifecycle set: "
                               + ", ".join(sorted(set(LIFECYCLE_GROUNDS) - set(GROUNDS))) + "; of a front-door set: "
                               + ", ".join(sorted(set(FRONTDOOR_GROUNDS) - set(LIFECYCLE_GROUNDS))) + ".")
@click.argument("result_dir", type=click.Path(path_type=Path))
@click.option("--pubkey", type=click.Path(dir_okay=False, path_type=Path), callback=public_key,
              help="Ed25519 public key (PEM) the manifest must be signed by.")
@click.option("--json", "as_json", is_flag=True, is_eager=True, callback=json_first,
              help="Print the findings as JSON (an unreadable set too: its error as JSON, exit 2).")
@unreadable_as_json
def verify_cmd(result_dir: Path, pubkey: Any, as_json: bool) -> None:
    """Verify a result set: digests, signature, recount, re-derivation; name each rejection ground."""
    from lab.cli.verification import print_verification, verify_any, verify_partial
    from lab.lifecycle.partial import lifecycle_partial
    from lab.lifecycle.verify import is_lifecycle, verify_lifecycle
    from lab.resultset.loading import Unreadable
    from lab.resultset.partial import partial

    _below(result_dir, pubkey, as_json)  # a folder of sets (no set itself): each set below, and the total
    part = lifecycle_partial(result_dir)
    if part is not None:
        sys.exit(verify_partial(part, pubkey, as_json, verify_lifecycle))
    part = None if is_lifecycle(result_dir) else partial(result_dir)
    if part is not None:
        sys.exit(verify_partial(part, pubkey, as_json))
    result = verify_any(result_dir, pubkey)  # Unreadable: exit 2 with why (as JSON with --json)
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2))
    else:
        print_verification(result)
    sys.exit(0 if result.ok else 1)


def _below(result_dir: Path, pubkey: Any, as_json: bool) -> None:
    """``verify`` of a folder that is no set: every set below it verified and exit as the worst
    (lab.cli.verify_below), or the error that nothing below is a set either; of a set that holds sets
    below it (a published row's lifecycle/), a note naming them. Returns for a set."""
    from lab.cli.verify_below import note_sets_below, nothing_below, sets_below, verify_below
    from lab.resultset.loading import holds_set
    from lab.resultset.loading import Unreadable

    if not result_dir.is_dir():
        return
    if holds_set(result_dir):
        if not as_json:
            note_sets_below(result_dir)
        return
    found = sets_below(result_dir)
    if not found.sets:
        raise Unreadable(nothing_below(result_dir))
    sys.exit(verify_below(result_dir, found, pubkey, as_json))


@click.command("sign")
@click.argument("result_dir", type=click.Path(path_type=Path))
@click.option("--key", "key", type=click.Path(dir_okay=False, path_type=Path), callback=private_key,
              required=True, help="Ed25519 private key (PEM).")
def sign_cmd(result_dir: Path, key: Any) -> None:
    """Sign a result set's manifest (manifest.sig), once it verifies. Exit 0 signed, 1 not verified, 2 bad input."""
    from lab.cli.verification import print_verification, verify_any
    from lab.resultset import signing
    from lab.resultset.loading import Unreadable

    try:
        result = verify_any(result_dir)
    except Unreadable as exc:
        fail_text(str(exc))
    blocking = [f for f in result.findings if f.ground not in SIGNATURE_GROUNDS]
    if blocking:
        result.findings = blocking
        print_verification(result)
        fail_text("not signed: the result set does not verify", code=1)
    record = signing.sign(result_dir, key)
    click.echo(f"signed {inert(result_dir / 'manifest.json', markup=False)} with {record['key_id']} -> "
               f"{signing.SIGNATURE_FILE}")


@click.command("keygen")
@click.argument("key_path", type=click.Path(dir_okay=False, path_type=Path))
def keygen_cmd(key_path: Path) -> None:
    """Make an Ed25519 key pair: KEY.pem (private, mode 0600) and KEY.pub.pem."""
    from lab.resultset import signing

    try:
        private, public, kid = signing.keygen(key_path)
    except signing.SigningKeyError as exc:  # an error of the machine is said by the group (lab.cli.oserrors)
        fail_text(str(exc))
    click.echo(f"private key {inert(private, markup=False)} (keep it secret), public key "
               f"{inert(public, markup=False)}, key id {kid}")


def load_lifecycle(root: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The rows and run.json of a lifecycle result set."""
    from lab.resultset.results import read_json
    try:  # strictly read (lab.resultset.loading): a NaN, a duplicate key or a 100k-deep file is an error
        rows = [read_json(p) for p in sorted((root / "rows").glob("*.json"))]
        run = read_json(root / "run.json")
    except (OSError, ValueError) as exc:
        fail_text(f"{root}: the lifecycle result set cannot be read: {exc}")
    return rows, run


@click.command("gate")
@click.argument("result_dir", type=click.Path(path_type=Path))
@gate_options
@click.option("--pubkey", type=click.Path(dir_okay=False, path_type=Path), callback=public_key,
              help="Ed25519 public key (PEM) the manifest must be signed by.")
def gate_cmd(result_dir: Path, fail_on: str | None, min_level: str | None, pubkey: Any) -> None:
    """Gate a saved result set for CI, after verifying it. Exit 0 met, 1 failed, 2 undecided or not verified."""
    from lab.cli.verification import print_verification, verify_any
    from lab.resultset.loading import Unreadable

    if not (fail_on or min_level):
        fail_text("give --fail-on and/or --min-level")
    try:
        result = verify_any(result_dir, pubkey)
    except Unreadable as exc:
        fail_text(str(exc))
    if not result.ok:
        print_verification(result)
        fail_text("gate undecided: the result set does not verify")
    rows, _ = load_set(result_dir)
    sys.exit(run_gate(rows, fail_on, min_level))
