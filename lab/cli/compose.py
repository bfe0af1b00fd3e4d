"""``memlab compose``: sequences of moves around each at-rest edit (docs/composition.md).

The at-rest run of the selected rows (``memlab run``: the edits alone, the controls, the same result
set), plus on the same seed every sequence of ``--length`` moves holding one edit, or a pair of edits
(``--edits 2``, the default), and the SUT's own moves (a genuine write, a restart, its erase, its
audit), and each SUT move alone. Exit codes: 0 no
finding, every row cleanly measured; 1 a finding (a sequence lands where none of its moves lands
alone); 2 bad input, a harness failure, a row not evaluable or a trial with a harness error (unless
--allow-errors) or the --evidence-budget passed (--resume DIR with a bigger one completes it); 130
interrupted (--resume DIR completes it).
"""

from __future__ import annotations

from pathlib import Path

import click

from lab import RUNTIME_NAMES
from lab.cli.options import (evidence_budget_option, no_fork_server_option, profiles_option, reports_option,
                             sign_key_option)
from lab.compose.moves import MAX_LENGTH


@click.command("compose")
@click.option("--sut", "patterns", multiple=True, metavar="NAME_OR_GLOB",
              help="Rows to compose (repeatable; globs allowed). Default: 'reference-*', the calibration rows.")
@click.option("--length", type=click.IntRange(2, MAX_LENGTH), default=2, show_default=True,
              help=f"Moves per sequence (2, or {MAX_LENGTH}: many more sequences).")
@click.option("--edits", type=click.IntRange(1, 2), default=2, show_default=True,
              help="Edits a sequence may hold: 2 also searches pairs of edits (those where neither lands alone at "
                   "some detection point), 1 one edit per sequence.")
@click.option("--restores/--no-restores", default=True, show_default=True,
              help="Offer the restore cases (T9 rollback, T10 resurrection) as moves; --no-restores leaves them "
                   "out, as every composition before them did.")
@click.option("--runtime", "runtime_name", type=click.Choice(RUNTIME_NAMES), default="auto", show_default=True,
              help="Where SUTs run, as for `memlab run` (the first line says which and why).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Result-set folder (new or empty). Default: results/<UTC timestamp>/.")
@click.option("--jobs", type=click.IntRange(1, 32), default=2, show_default=True,
              help="Trials run side by side (each case's sequences run one after another).")
@click.option("--nonce", default=None, help="Fix the seed plan's nonce (reproducible seeded texts).")
@profiles_option
@click.option("--allow-errors", is_flag=True,
              help="Exit 0 or 1 by the findings even when a row is not evaluable or a trial hit a harness error.")
@no_fork_server_option
@click.option("--resume", "resume", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Continue the killed composition in DIR with the options its run.json recorded.")
@evidence_budget_option
@sign_key_option
@reports_option
def compose(patterns: tuple[str, ...], length: int, edits: int, restores: bool, runtime_name: str, out: Path | None,
            jobs: int, nonce: str | None, profiles_dir: Path, allow_errors: bool, no_fork_server: bool, resume: Path | None,
            sign_key, reports: bool, evidence_budget: int) -> None:
    """Sequences of moves that land where no single move does: an edit, a pair of edits, or a restore case's
    rollback or resurrection, with the SUT's own activity around it.

    Exit 0 no finding; 1 a finding; 2 bad input, a harness failure, a row not evaluable or a trial with a
    harness error (--allow-errors: 0 or 1 by the findings), or the --evidence-budget passed; 130 interrupted
    (--resume DIR completes it)."""
    from lab.cli.console import fail
    from lab.cli.run import run
    from lab.resultset.files import read_json

    if resume is not None:
        try:
            recorded = read_json(resume / "run.json")
        except (OSError, ValueError) as exc:
            fail(f"--resume {resume}: run.json cannot be read: {exc}")
        if not (isinstance(recorded, dict) and recorded.get("compose")):
            fail(f"--resume {resume}: not a composition (its run.json names no compose); resume it with "
                 "`memlab run --resume`")
    click.get_current_context().invoke(
        run, patterns=patterns, runtime_name=runtime_name, out=out, jobs=jobs, nonce=nonce, records=5,
        profiles_dir=profiles_dir, allow_errors=allow_errors, sign_key=sign_key, reports=reports, fail_on=None,
        min_level=None, no_fork_server=no_fork_server, resume=resume,
        compose={"length": length, **({"edits": edits} if edits != 1 else {}),
                 **({"restores": True} if restores else {})},
        evidence_budget=evidence_budget)
