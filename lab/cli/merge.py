"""``memlab merge SHARD... --out DIR``: the shard sets of one sharded run as one result set
(lab.resultset.merge). Exit 0 merged (and verified), 2 refused or unreadable, nothing written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from lab.cli.options import reports_option, sign_key_option
from lab.cli.console import fail
from lab.cli.results import err, finish
from lab.report.inert import inert


@click.command("merge")
@click.argument("shards", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="The merged result set's folder (new).")
@sign_key_option
@reports_option
def merge_cmd(shards: tuple[Path, ...], out: Path, sign_key: Any, reports: bool) -> None:
    """Merge the result sets of a sharded run (`memlab run --shard K/N --run-id ID`) into one set.

    Every shard must verify and be of the same run (run id, lab commit, runtime, selection, options),
    shards 1..N each given once, each with exactly its rows. Exit 0 merged (the new set verifies),
    2 refused or unreadable (nothing written)."""
    from lab.judge.row import read_row
    from lab.report.terminal import print_matrix, stdout_console
    from lab.resultset.loading import Unreadable
    from lab.resultset.lock import OutRefused
    from lab.resultset.merge import merge
    from lab.resultset.verify import verify

    try:
        _, rows = merge(list(shards), out)
    except (Unreadable, OutRefused) as exc:
        fail(str(exc))
    result = verify(out)
    if not result.ok:  # a merge this lab wrote must verify; say so loudly if it does not
        fail(f"the merged set {out} does not verify: {result.findings[0].ground} {result.findings[0].file}: "
             f"{result.findings[0].detail}")
    print_matrix([read_row(row) for row in rows], stdout_console())
    finish(out, sign_key, reports, None, None)
    err.print(f"merged {len(shards)} shard(s) into {inert(str(out))}: {result.rows} row(s), verified", highlight=False)
