"""The one way the table scripts write a generated table between two marker comments of a page, or check
that the page holds it (``--check``: exit 1 when it does not)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path


def main(doc: Path, begin: str, end: str, table: Callable[[], str], description: str) -> int:
    """Rewrite the text between ``begin`` and ``end`` in ``doc`` with ``table()`` (or check it with --check)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--check", action="store_true", help=f"exit 1 when {doc.name}'s table is not the sets'")
    text = doc.read_text()
    start, stop = text.index(begin) + len(begin), text.index(end)
    wanted = f"\n{table()}\n"
    if parser.parse_args().check:
        return 0 if text[start:stop] == wanted else 1
    doc.write_text(text[:start] + wanted + text[stop:])
    return 0
