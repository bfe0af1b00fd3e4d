"""The command line's standard error console, and its exit with one error line (text, never markup)."""

from __future__ import annotations

import sys

from rich.console import Console
from rich.markup import escape

console = Console(stderr=True)


def fail(message: str, code: int = 2) -> None:
    """Print ``memlab: MESSAGE`` (as text: a path like ``[/vol]`` stays itself) and exit ``code``."""
    console.print(f"[bold red]memlab:[/] {escape(message)}")  # error text, not markup
    sys.exit(code)
