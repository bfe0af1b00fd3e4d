"""The stdio guard: the protocol's private copies of fd 0 and 1, taken at the kit's import.

It runs when the package is imported, before the kit's other modules (``__init__`` imports it
first) and before the SUT (the driver imports the kit first): fd 1 and ``sys.stdout`` then
point at stderr and fd 0 (and ``sys.stdin``) at ``/dev/null``, so nothing the SUT prints,
Python or C level, reaches the protocol, and nothing it reads consumes requests.
Imports only the standard library.
"""

from __future__ import annotations

import io
import os
import sys

PROTOCOL_OUT: io.TextIOBase | None = None
PROTOCOL_IN: io.BufferedIOBase | None = None


def guard_stdio() -> None:
    """Give the protocol private copies of fd 0/1; point fd 1 at stderr and fd 0 at /dev/null."""
    global PROTOCOL_OUT, PROTOCOL_IN
    if PROTOCOL_OUT is not None:
        return
    sys.stdout.flush()
    PROTOCOL_OUT = io.open(os.dup(1), "w", encoding="utf-8", newline="\n")
    PROTOCOL_IN = io.open(os.dup(0), "rb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdin = open(os.devnull, encoding="utf-8")


guard_stdio()
