"""What ``memlab run`` makes of its sharding and resume options before anything runs: the run id
checked, this shard's block of run.json, the rows a killed run recorded. A refusal is an
:class:`OptionRefused` whose text is the fix; the command prints it and exits 2. What each needs is
imported when it runs, so that ``memlab run --help`` loads none of it."""

from __future__ import annotations

from pathlib import Path

import click


class OptionRefused(Exception):
    """An option of ``memlab run`` that cannot be taken, with the fix."""


def run_id_option(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """click's check of ``--run-id``."""
    if value is None:
        return None
    from lab.resultset.shards import ShardSpecError, check_run_id
    try:
        return check_run_id(value)
    except ShardSpecError as exc:
        raise click.BadParameter(str(exc)) from None


def shard_of(spec: str, run_id: str | None, selection: list[str], nonce: str | None, records: int,
             no_fork_server: bool) -> dict:
    """The ``shard`` block of this shard's run.json (lab.resultset.shards)."""
    from lab.resultset.shards import ShardSpecError, parse_spec, shard_record
    try:
        index, count = parse_spec(spec)
    except ShardSpecError as exc:
        raise OptionRefused(str(exc)) from None
    if run_id is None:
        raise OptionRefused(f"--shard {spec} needs --run-id ID, the same on every shard (e.g. the CI run's id), so "
                            "that `memlab merge` can tell the shards of one run from those of another")
    shard = shard_record(index, count, selection, {"nonce": nonce, "records": records,
                                                   "fork_server": not no_fork_server})
    if not shard["assigned"]:
        raise OptionRefused(f"--shard {spec}: shard {index} has no rows: {count} shards for "
                            f"{len(shard['selection'])} selected row(s); use at most {len(shard['selection'])} shards")
    return shard


def recorded_rows(folder: Path) -> list[str]:
    """The rows the killed run in ``folder`` recorded (a resume's default selection)."""
    from lab.method.resume import ResumeRefused, recorded as recorded_run
    try:
        return [str(name) for name in recorded_run(folder)["rows"]]
    except ResumeRefused as exc:
        raise OptionRefused(str(exc)) from None
