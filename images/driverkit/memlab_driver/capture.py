"""Signal capture: every log record at WARNING or above and every Python warning, per op.

:data:`CAPTURE` is a root log handler and the ``warnings.showwarning`` hook; it buffers
signals until the loop drains them into the next answer (the first drain is ``open``'s, so
what the SUT raised while it was imported lands there). It attaches itself at import, right
after the stdio guard, and the loop re-attaches it before every op (a SUT may reset logging).
:data:`ECHO` keeps WARNING+ records in the SUT's log (stderr) unless the SUT logs there itself.
Imports only the standard library.
"""

from __future__ import annotations

import logging
import sys
import warnings


class _Capture(logging.Handler):
    """Root log handler (WARNING and above) and warnings hook, buffering signals for the next answer."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.pending: list[dict] = []
        self._show = warnings.showwarning

    def add(self, item: dict) -> None:
        """Buffer one signal for the answer of the op in progress (or of ``open``)."""
        self.pending.append(item)

    def drain(self) -> list[dict]:
        """Hand over the buffered signals and start afresh."""
        out, self.pending = self.pending, []
        return out

    def emit(self, record: logging.LogRecord) -> None:
        """Keep a log record as a ``log`` signal."""
        try:
            message = record.getMessage()
        except Exception:  # a malformed log call is still a signal
            message = str(record.msg)
        self.add({"channel": "log", "level": record.levelname, "logger": record.name, "message": message})

    def showwarning(self, message, category, filename, lineno, file=None, line=None) -> None:
        """Keep a Python warning as a ``warning`` signal, and still print it to stderr."""
        self.add({"channel": "warning", "level": "WARNING", "category": category.__name__,
                  "message": str(message), "where": f"{filename}:{lineno}"})
        self._show(message, category, filename, lineno, file, line)

    def attach(self) -> None:
        """(Re)attach to the root logger and the warnings module; a SUT may have reset either."""
        root = logging.getLogger()
        if self not in root.handlers:
            root.addHandler(self)
        own = [h for h in root.handlers if h is not self and h is not ECHO]
        if own and ECHO in root.handlers:  # the SUT logs to stderr itself: do not echo twice
            root.removeHandler(ECHO)
        elif not own and ECHO not in root.handlers:
            root.addHandler(ECHO)
        if warnings.showwarning is not self.showwarning:
            warnings.showwarning = self.showwarning


CAPTURE = _Capture()
ECHO = logging.StreamHandler(sys.stderr)  # keep WARNING+ in the SUT's log (stderr), as lastResort did
ECHO.setLevel(logging.WARNING)
ECHO.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
CAPTURE.attach()
