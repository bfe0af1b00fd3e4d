"""The CLI's progress bar, and the log configuration that feeds it.

A run's bar advances per trial and says what it waits for in between: the long steps the
runtimes announce as log events (a SUT environment built, an image built step by step, a
backend server started) become the bar's description instead of log lines, after the row and
trial they belong to (the ``row`` and ``trial`` the engine binds to its tasks' log context;
an event outside any bound task is put after the last step counted). Log lines
themselves appear only with ``-v`` (info) or ``-vv`` (debug); at the default, warnings and
errors; with ``-q`` (for CI logs) there is no bar and only errors are logged. The bar's own code
(rich.progress) is imported only when a bar is made: the CLI's group configures logging for every
command, ``--help`` included.

    configure(verbose=0, quiet=False)       # once, in the CLI's group
    with RunProgress(console, total=26) as bar:
        run_matrix(..., progress=bar.step)  # bar.step(row, step) after each trial
"""

from __future__ import annotations

import logging
import sys
import threading
from typing import TYPE_CHECKING, Any

import structlog

from lab.report.inert import inert

if TYPE_CHECKING:
    from rich.console import Console

#: Log events that are a long step, and how the bar words them (from the event's fields).
ACTIVITIES = {
    "venv.build": lambda ev: f"building the environment of driver {_driver(ev.get('venv'))} (pip; once, then cached)",
    "image.build": lambda ev: f"image: {ev.get('step') or ev.get('note') or ''}",
    "service.starting": lambda ev: f"starting {ev.get('kind', 'a')} server"
                                   f"{' (container)' if ev.get('runtime') == 'docker' else ''}",
}
_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "warn": logging.WARNING,
           "error": logging.ERROR, "exception": logging.ERROR, "critical": logging.CRITICAL}


class _Settings:
    """What ``configure`` chose: the level shown, and whether bars are drawn."""

    level = logging.WARNING
    quiet = False
    active: "RunProgress | None" = None


settings = _Settings()


def _driver(venv: Any) -> str:
    """The driver folder's name in a cached environment's path (``.../venvs/<driver>-<key>``)."""
    return str(venv or "").rstrip("/").rsplit("/", 1)[-1].rsplit("-", 1)[0]


class _LazyStderr:
    """structlog's sink: whatever sys.stderr is now (so rich can keep logs above its bar)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def _to_bar(logger: Any, method: str, event: dict) -> dict:
    """A long step's event: shown on the active bar (and still logged where its level is shown)."""
    word = ACTIVITIES.get(str(event.get("event")))
    if word and settings.active is not None:
        where = " ".join(str(event[k]) for k in ("row", "trial") if event.get(k))
        settings.active.doing(word(event), where or None)
    return event


def _inert(logger: Any, method: str, event: dict) -> dict:
    """Every string a log line carries (a driver's message, a path) with its control characters shown
    (lab.report.inert): a log line is one line, and never a terminal's escape sequence."""
    return {k: inert(v, markup=False) if isinstance(v, str) else v for k, v in event.items()}


def _by_level(logger: Any, method: str, event: dict) -> dict:
    if _LEVELS.get(method, logging.INFO) < settings.level:
        raise structlog.DropEvent
    return event


def configure(verbose: int = 0, quiet: bool = False) -> None:
    """structlog to stderr: -v info, -vv debug, default warnings, ``quiet`` errors only and no bars."""
    settings.quiet = quiet
    settings.level = logging.ERROR if quiet else {0: logging.WARNING, 1: logging.INFO}.get(verbose, logging.DEBUG)
    structlog.configure(
        processors=[structlog.contextvars.merge_contextvars, _to_bar, _by_level, structlog.processors.add_log_level,
                    structlog.processors.TimeStamper(fmt="%H:%M:%S"), _inert,
                    structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())],
        wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG),
        logger_factory=structlog.WriteLoggerFactory(file=_LazyStderr()),
        cache_logger_on_first_use=True,
    )


class RunProgress:
    """A bar of ``total`` steps on ``console`` (none when quiet): ``step`` advances, ``doing`` says what it waits for."""

    def __init__(self, console: Console, total: int, first: str = "starting"):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._bar = None if settings.quiet else Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            console=console, transient=False)
        self._task = self._bar.add_task(first, total=total) if self._bar else None
        self._lock = threading.Lock()
        self._last_step = ""
        #: What the bar says now (kept when quiet too).
        self.description = first

    def __enter__(self) -> "RunProgress":
        if self._bar:
            self._bar.start()
        settings.active = self
        return self

    def __exit__(self, *exc: object) -> None:
        settings.active = None
        if self._bar:
            self._bar.stop()

    def step(self, row: str, step: str, advance: int = 1) -> None:
        """One step of ``row`` is done (``advance=0``: said, not counted). A case's variant trial
        (``T1.v2``: how many a case has is known only once its base trial read the store) adds
        itself to the total as it is counted."""
        with self._lock:
            self._last_step = self.description = inert(f"{row} {step}")
            if self._bar:
                if advance and ".v" in step and _is_variant(step):
                    self._bar.update(self._task, total=self._bar.tasks[0].total + advance)
                self._bar.update(self._task, advance=advance, description=self.description)

    def doing(self, text: str, where: str | None = None) -> None:
        """What the run waits for now (a long step), until the next trial is done; ``where`` names the
        row and trial that wait (default: the last step counted, right only when one row runs)."""
        with self._lock:
            where = inert(where) if where else self._last_step
            self.description = f"{where} · {inert(text[:90])}" if where else inert(text[:90])
            if self._bar:
                self._bar.update(self._task, description=self.description)


def _is_variant(step: str) -> bool:
    """:func:`lab.cases.variants.is_variant`, imported only for a step that may be one (the cases cost a
    lifecycle run 50 ms it never needs)."""
    from lab.cases.variants import is_variant
    return is_variant(step)
