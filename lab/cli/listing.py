"""``memlab list``: every profile, and whether it can run here on the runtime ``--runtime`` selects (or
why not).

Exit 0, or 2 when a profile is invalid (the others are still listed) or the runtime asked for cannot
run here. ``profiles_in`` reads a profile
folder for ``list`` and ``run`` alike, naming each invalid profile on stderr.
"""

from __future__ import annotations

from pathlib import Path

import click

from lab import RUNTIME_NAMES
from lab.cli.console import console, fail
from lab.cli.options import profiles_option
from lab.report.inert import inert


def profiles_in(directory: Path) -> tuple[list, list]:
    """The valid profiles of ``directory`` and its invalid ones (each printed with its fix); exit 2 when
    there is no such folder."""
    from lab.profile import scan_profiles
    if not directory.is_dir():
        fail(f"no profile folder at {directory}")
    profiles, errors = scan_profiles(directory)
    for err in errors:
        console.print(f"[bold red]invalid profile[/] {inert(err, lines=True)}")
    return profiles, errors


@click.command("list")
@profiles_option
@click.option("--runtime", "runtime_name", type=click.Choice(RUNTIME_NAMES), default="auto", show_default=True,
              help="Say whether each row can run on this runtime (as `memlab run --runtime` selects it).")
def list_cmd(profiles_dir: Path, runtime_name: str) -> None:
    """Every profile, and whether it can run here (or why not). Exit 0, or 2 when a profile is invalid."""
    from rich.table import Table

    from lab.profile import file_row
    from lab.report.terminal import stdout_console
    from lab.runtime import RuntimeUnavailable, get_runtime, own_image
    from lab.runtime import runnable as runnable_here

    table = Table(header_style="bold")
    for col in ("row", "SUT", "version", "status"):
        table.add_column(col)
    try:
        runtime = get_runtime(runtime_name)
    except RuntimeUnavailable as exc:
        fail(str(exc))
    profiles, errors = profiles_in(profiles_dir)
    for err in errors:
        what = inert(f"{err.field}: {err.message}")  # the profile's own text, never markup
        table.add_row(inert(file_row(err.path)), "", "", f"[red]invalid profile[/]: {what}")
    for prof in profiles:
        if prof.status == "unavailable":
            status = f"[yellow]unavailable[/]: {inert(prof.unavailable_reason)}"
        else:
            ok, why = runnable_here(runtime, prof)
            status = f"[green]runnable here[/] ({runtime.name})" if ok else f"[red]not runnable[/]: {inert(why)}"
            if ok and prof.image and runtime.name == "docker" and (absent := own_image.missing(prof)):
                status += f"; {inert(absent)}"
        table.add_row(inert(prof.row), inert(prof.sut.get("package", "")), inert(prof.sut.get("version", "")), status)
    stdout_console().print(table)
    if errors:
        fail(f"{len(errors)} invalid profile(s) in {profiles_dir} (each named above with its fix)")
