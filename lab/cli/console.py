"""The command line's standard error console, its exit with one error line (text, never markup), and
output a reader may stop reading early (``memlab show DIR | head``)."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Iterator

from rich.console import Console
from rich.markup import escape

console = Console(stderr=True)


def fail(message: str, code: int = 2) -> None:
    """Print ``memlab: MESSAGE`` (as text: a path like ``[/vol]`` stays itself) and exit ``code``."""
    console.print(f"[bold red]memlab:[/] {escape(message)}")  # error text, not markup
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
