"""The command line's standard error console, its exit with one error line (text, never markup, its
control characters shown: lab.report.inert), and output a reader may stop reading early
(``memlab show DIR | head``)."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Iterator, NoReturn

from rich.console import Console

from lab.report.inert import inert

console = Console(stderr=True, emoji=False)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print ``memlab: MESSAGE`` (as text: a path like ``[/vol]`` stays itself, an escape character
    shows as ``\\x1b``; its lines stay lines) and exit ``code``."""
    console.print(f"[bold red]memlab:[/] {inert(message, lines=True)}", soft_wrap=True, highlight=False)
    sys.exit(code)


@contextlib.contextmanager
def reader_may_leave() -> Iterator[None]:
    """Around output to standard output (or as a command's decorator): a reader that closed the pipe
    (``| head``) ends the output quietly, not as an error; what follows still runs, its own exit code
    kept. Standard output then points at /dev/null, so nothing fails on it at exit."""
    try:
        yield
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
