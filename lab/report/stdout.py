"""Standard output as the results' console: a reader may stop reading it, and a pipe or a file gets the
whole width. Apart from the verdict matrix (:mod:`lab.report.terminal`), so that a lifecycle run loads
no case to print its table."""

from __future__ import annotations

import os
import sys

from rich.console import Console


class _Stdout(Console):
    """Standard output, which its reader may stop reading (``memlab show DIR | head``): the rest of the
    output then goes nowhere, quietly, and the command ends with its own exit code (rich's is 1)."""

    def on_broken_pipe(self) -> None:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        self.quiet = True


def stdout_console() -> Console:
    """The console for results: a pipe or a file gets the whole matrix width, not 80 columns."""
    return _Stdout() if sys.stdout.isatty() else _Stdout(width=170)
