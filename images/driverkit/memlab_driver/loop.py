"""The serve loop: JSON lines on the guarded stdio, one answer flushed per request, SIGTERM.

Imports only the standard library and the kit's ``guard``, ``capture`` and ``dispatch``.
"""

from __future__ import annotations

import json
import signal as _signal
import sys
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
        session.close()
    sys.exit(0)


def _write(answer: dict) -> None:
    """One answer, one line, flushed at once."""
    assert guard.PROTOCOL_OUT is not None
    guard.PROTOCOL_OUT.write(json.dumps(answer, default=str) + "\n")
    guard.PROTOCOL_OUT.flush()


def _on_sigterm(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)
