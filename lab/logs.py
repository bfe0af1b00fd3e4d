"""The lab's log: structlog's, imported only when an event is to be shown (structlog, with its
development renderer and rich's tracebacks, costs a short command ~60 ms it seldom needs).

Every module logs through ``log = get_logger(__name__)`` and calls ``log.info(event, **fields)`` (or
debug, warning, error). Until structlog is needed the CLI's configuration (lab.cli.progress) waits in
:data:`deferred`, with :data:`drops`, its own rule of which events it would drop without a trace (a
level below the one shown, and no step the progress bar words); an event it would keep imports
structlog, applies the configuration, then is logged as it always was. Once structlog is imported (a
caller of the lab that configures structlog itself, a test that captures its events), every event goes
to structlog as it is configured::

    log = get_logger(__name__)
    log.info("lifecycle.sut_started", row="lifecycle-naive")
"""

from __future__ import annotations

import sys
from typing import Any, Callable

#: The CLI's configuration of structlog, not yet applied (None: applied, or none was made).
deferred: Callable[[], None] | None = None
#: (method, event) -> whether the deferred configuration would drop it without a trace.
drops: Callable[[str, str], bool] = lambda method, event: False


def get_logger(name: str) -> "Logger":
    """A logger named ``name`` that imports structlog at its first event kept."""
    return Logger(name)


def apply_deferred() -> None:
    """Apply the deferred configuration now, once."""
    global deferred
    if deferred is not None:
        configure, deferred = deferred, None
        configure()


def structlog_logger(name: str) -> Any:
    """structlog's logger ``name``, the deferred configuration applied first."""
    apply_deferred()
    import structlog

    return structlog.get_logger(name)


class Logger:
    """structlog's logger, made at the first event that the deferred configuration does not drop."""

    def __init__(self, name: str):
        self.name = name
        self._real: Any = None

    def _emit(self, method: str, event: str, fields: dict[str, Any]) -> Any:
        if deferred is not None and "structlog" not in sys.modules and drops(method, event):
            return None
        if self._real is None:
            self._real = structlog_logger(self.name)
        return getattr(self._real, method)(event, **fields)

    def debug(self, event: str, **fields: Any) -> Any:
        return self._emit("debug", event, fields)

    def info(self, event: str, **fields: Any) -> Any:
        return self._emit("info", event, fields)

    def warning(self, event: str, **fields: Any) -> Any:
        return self._emit("warning", event, fields)

    def error(self, event: str, **fields: Any) -> Any:
        return self._emit("error", event, fields)


class StderrNow:
    """structlog's sink: whatever sys.stderr is now (so rich can keep logs above its bar)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()
