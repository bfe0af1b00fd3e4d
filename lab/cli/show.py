"""``memlab show DIR``: the verdict matrix (or the lifecycle table) of a saved result set. Exit 0, or 2
when the set cannot be read."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.argument("result_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
def show(result_dir: Path) -> None:
    """Print the verdict matrix (or the lifecycle table) of a saved result set."""
    from lab.cli.results import load_lifecycle, load_set
    from lab.lifecycle.verify import is_lifecycle
    from lab.report.lifecycle import print_report as print_lifecycle
    from lab.report.terminal import print_matrix, stdout_console

    if is_lifecycle(result_dir):
        rows, run = load_lifecycle(result_dir)
        print_lifecycle(rows, run, stdout_console())
        return
    print_matrix(load_set(result_dir)[0], stdout_console())  # strictly read and shape-checked, else exit 2
