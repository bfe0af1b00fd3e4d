"""The serve loop: JSON lines on the guarded stdio, one answer flushed per request, SIGTERM,
and the stop that does not wait.

A stop (stdin closed, or SIGTERM) ends with :func:`finish`: once the SUT has closed its store
through ``Driver.close()``, the process runs what the interpreter's exit would run that a SUT
may rely on (its non-daemon threads joined, ``threading``'s and ``atexit``'s exit hooks, which
flush and close logging) and flushes stdio, then leaves with ``os._exit``: the interpreter's
teardown (clearing thousands of modules, finalizers of objects still alive) is skipped.
``MEMLAB_DRIVER_TEARDOWN=1`` in the environment keeps it (a normal ``sys.exit``).
Imports only the standard library and the kit's ``guard``, ``capture`` and ``dispatch``.
"""

from __future__ import annotations

import atexit
import json
import os
import signal as _signal
import sys
import threading
import warnings
from typing import Any

from memlab_driver import guard
from memlab_driver.capture import CAPTURE
from memlab_driver.dispatch import Session
from memlab_driver.driver import Driver


def serve(driver_class: type[Driver]) -> None:
    """Run the JSON-lines loop on the guarded stdio until stdin closes (exit 0) or SIGTERM."""
    _signal.signal(_signal.SIGTERM, _on_sigterm)
    guard.guard_stdio()
    assert guard.PROTOCOL_IN is not None
    session = Session(driver_class)
    code: Any = 0
    try:
        try:
            for line in guard.PROTOCOL_IN:
                if not line.strip():
                    continue
                CAPTURE.attach()
                with warnings.catch_warnings():  # a fresh "once per location" registry for every op
                    warnings.showwarning = CAPTURE.showwarning
                    answer = session.answer(line)
                _write(answer)
        finally:
            _SIGTERM["serving"] = False  # from here a SIGTERM is noted, never cuts the SUT's close short
    except SystemExit as exc:  # SIGTERM while serving, or the driver exited
        code = exc.code
    except BaseException:
        _SIGTERM["serving"] = False
        session.close()
        raise
    _SIGTERM["serving"] = False
    session.close()
    finish(code)


def finish(code: Any = 0) -> None:
    """End the driver process after ``Driver.close()`` (see the module docstring); never returns."""
    if os.environ.get("MEMLAB_DRIVER_TEARDOWN") == "1":
        sys.exit(128 + _signal.SIGTERM if _SIGTERM["received"] and not code else code)
    shutdown = getattr(threading, "_shutdown", None)
    if shutdown is not None:  # the interpreter's first exit step: its exit hooks, its non-daemon threads joined
        shutdown()
    atexit._run_exitfuncs()  # the SUT's exit hooks, logging's flush and close among them
    for stream in (guard.PROTOCOL_OUT, sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # closed, or its reader is gone: nothing left to flush
            pass
    if _SIGTERM["received"] and not code:  # it came while the SUT closed, or in here
        code = 128 + _signal.SIGTERM
    os._exit(_exit_code(code))


def _exit_code(code: Any) -> int:
    """The process exit code ``sys.exit(code)`` gives: None 0, an int itself, anything else printed, 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _write(answer: dict) -> None:
    """One answer, one line, flushed at once."""
    assert guard.PROTOCOL_OUT is not None
    guard.PROTOCOL_OUT.write(json.dumps(answer, default=str) + "\n")
    guard.PROTOCOL_OUT.flush()


#: Whether the loop still serves (a SIGTERM then ends it) and whether a SIGTERM came.
_SIGTERM = {"serving": True, "received": False}


def _on_sigterm(signum: int, frame: Any) -> None:
    """While serving: end the loop (exit 143, after the SUT's close); after it: noted only."""
    first = not _SIGTERM["received"]
    _SIGTERM["received"] = True
    if first and _SIGTERM["serving"]:
        raise SystemExit(128 + signum)
