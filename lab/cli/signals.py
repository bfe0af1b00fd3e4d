"""SIGTERM handled as Ctrl-C is: a run that a service manager, a CI runner or ``kill`` ends keeps what
it measured and says so (status ``interrupted``), and exits 143 (128 + SIGTERM) where Ctrl-C exits 130.

    with terminate_as_interrupt():
        ...                      # SIGTERM raises Terminated here, a KeyboardInterrupt
    sys.exit(exit_code(exc))     # 130 for Ctrl-C, 143 for SIGTERM

A second SIGTERM while the first is being handled is ignored, so the run's cleanup (SUT processes
killed, the result set pinned) is not itself cut short.
"""

from __future__ import annotations

import contextlib
import signal
from typing import Any, Iterator

#: Exit code per signal name: 128 + the signal's number, as a shell reports it.
EXIT_CODES = {"SIGINT": 130, "SIGTERM": 143}


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C raises KeyboardInterrupt."""

    signal = "SIGTERM"


def signal_of(exc: BaseException) -> str:
    """``SIGTERM`` for a :class:`Terminated` (or an exception carrying its ``signal``), else ``SIGINT``."""
    return str(getattr(exc, "signal", None) or "SIGINT")


def exit_code(exc: BaseException) -> int:
    """130 for Ctrl-C, 143 for SIGTERM."""
    return EXIT_CODES.get(signal_of(exc), 130)


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` in the main thread (once; the handler it
    replaced is put back after)."""
    def handler(signum: int, frame: Any) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the cleanup the first one starts runs to its end
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
