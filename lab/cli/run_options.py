"""What ``memlab run`` makes of its sharding and resume options before anything runs: the run id
checked, this shard's block of run.json, the rows and options a killed run recorded. A refusal is an
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


#: A killed run's recorded option (run.json ``options`` or the run's own key) -> the parameter of
#: ``memlab run`` it fills when a resume does not give it, and how the recorded value becomes it.
RESUMED = {"nonce": ("nonce", lambda v: v), "records": ("records", int),
           "fork_server": ("no_fork_server", lambda v: not v), "runtime": ("runtime_name", str)}


def resumed_options(folder: Path, given: set[str]) -> dict[str, object]:
    """The options of the killed run in ``folder`` that this resume did not give (parameter -> value),
    from its run.json; one given is kept as given (the resume refuses it if it differs)."""
    from lab.method.resume import ResumeRefused, recorded as recorded_run
    try:
        run = recorded_run(folder)
    except ResumeRefused as exc:
        raise OptionRefused(str(exc)) from None
    was = {**(run.get("options") or {}), "runtime": run.get("runtime")}
    taken: dict[str, object] = {}
    for key, (param, convert) in RESUMED.items():
        if param in given or key not in was or (was[key] is None and key != "nonce"):
            continue
        taken[param] = None if was[key] is None else convert(was[key])
    return taken


def recorded_rows(folder: Path) -> list[str]:
    """The rows the killed run in ``folder`` recorded (a resume's default selection)."""
    from lab.method.resume import ResumeRefused, recorded as recorded_run
    try:
        return [str(name) for name in recorded_run(folder)["rows"]]
    except ResumeRefused as exc:
        raise OptionRefused(str(exc)) from None
