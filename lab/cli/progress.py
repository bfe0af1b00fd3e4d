"""The CLI's progress bar, and the log configuration that feeds it.

A run's bar advances per trial and says what it waits for in between: the long steps the
runtimes announce as log events (a SUT environment built, an image built step by step, a
backend server started) become the bar's description instead of log lines, after the row and
trial they belong to (the ``row`` and ``trial`` the engine binds to its tasks' log context;
an event outside any bound task is put after the last step counted). Log lines
themselves appear only with ``-v`` (info) or ``-vv`` (debug); at the default, warnings and
errors; with ``-q`` (for CI logs) there is no bar and only errors are logged. The bar's own code
(rich.progress) is imported only when a bar is made: the CLI's group configures logging for every
command, ``--help`` included. The bar's line never outgrows the terminal: its description is fitted
to the room the bar, the count and the time leave (:func:`fit`: the middle elided, never the end),
and its bar narrows on a narrow terminal.

    configure(verbose=0, quiet=False)       # once, in the CLI's group
    with RunProgress(console, total=26) as bar:
        run_matrix(..., progress=bar.step)  # bar.step(row, step) after each trial
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

from lab import logs
from lab.report.inert import inert

if TYPE_CHECKING:
    from rich.console import Console

#: Log events that are a long step, and how the bar words them (from the event's fields).
ACTIVITIES = {
    "venv.build": lambda ev: f"driver {_driver(ev.get('venv'))}: building its environment (pip; once, then cached)",
    "image.build": lambda ev: f"image: {ev.get('step') or ev.get('note') or ''}",
    "service.starting": lambda ev: f"starting {ev.get('kind', 'a')} server"
                                   f"{' (container)' if ev.get('runtime') == 'docker' else ''}",
}
#: Seconds between two progress lines where stderr is no terminal.
PLAIN_EVERY = 30.0
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
        import structlog

        raise structlog.DropEvent
    return event


def _dropped(method: str, event: str) -> bool:
    """Whether the processors drop an event without a trace (below the level, no step the bar words)."""
    return _LEVELS.get(method, logging.INFO) < settings.level and str(event) not in ACTIVITIES


def configure(verbose: int = 0, quiet: bool = False) -> None:
    """structlog to stderr: -v info, -vv debug, default warnings, ``quiet`` errors only and no bars; applied
    at the first event kept (lab.logs), or now where structlog is imported already."""
    settings.quiet = quiet
    settings.level = logging.ERROR if quiet else {0: logging.WARNING, 1: logging.INFO}.get(verbose, logging.DEBUG)
    logs.deferred, logs.drops = _configure_structlog, _dropped
    if "structlog" in sys.modules:
        logs.apply_deferred()


def _configure_structlog() -> None:
    import structlog

    structlog.configure(
        processors=[structlog.contextvars.merge_contextvars, _to_bar, _by_level, structlog.processors.add_log_level,
                    structlog.processors.TimeStamper(fmt="%H:%M:%S"), _inert,
                    structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())],
        wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG),
        logger_factory=structlog.WriteLoggerFactory(file=logs.StderrNow()),
        cache_logger_on_first_use=True,
    )


class RunProgress:
    """A bar of ``total`` steps on ``console`` (none when quiet): ``step`` advances, ``doing`` says what it waits for."""

    def __init__(self, console: Console, total: int, first: str = "starting", gone_on_error: bool = False):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

        bar = BarColumn(bar_width=bar_width(console.width))
        self._bar = None if settings.quiet else Progress(
            _description_column()(console, bar), bar, MofNCompleteColumn(), TimeElapsedColumn(),
            console=console, transient=False)
        self._task = self._bar.add_task(first, total=total) if self._bar else None
        self._lock = threading.Lock()
        self._last_step = ""
        #: Where stderr is no terminal (a CI log), a bar draws nothing while it runs: a line instead, at
        #: most every PLAIN_EVERY seconds (none in a run shorter than that).
        self._plain = self._bar is not None and not console.is_terminal
        self._began = self._said = time.monotonic()
        #: What the bar says now (kept when quiet too).
        self.description = first
        #: Whether a command's error (its exit, an exception) takes the bar away, leaving its message last.
        self._gone_on_error = gone_on_error

    def __enter__(self) -> "RunProgress":
        if self._bar:
            self._bar.start()
        settings.active = self
        return self

    def __exit__(self, kind: object, exc: object, tb: object) -> None:
        settings.active = None
        if self._bar:
            if self._gone_on_error and exc is not None and not (isinstance(exc, SystemExit) and not exc.code):
                self._bar.live.transient = True
            self._bar.stop()

    def step(self, row: str, step: str, advance: int = 1) -> None:
        """One step of ``row`` is done (``advance=0``: said, not counted). A case's variant trial
        (``T1.v2``: how many a case has is known only once its base trial read the store) and a
        composition's trial (``compose/T1+write``: known once the case's trials are saved) add
        themselves to the total as they are counted."""
        with self._lock:
            self._last_step = self.description = inert(f"{row} {step}")
            if self._bar:
                if advance and (step.startswith("compose/") or ".v" in step and _is_variant(step)):
                    self._bar.update(self._task, total=self._bar.tasks[0].total + advance)
                self._bar.update(self._task, advance=advance, description=self.description)
            self._say()

    def doing(self, text: str, where: str | None = None) -> None:
        """What the run waits for now (a long step), until the next trial is done; ``where`` names the
        row and trial that wait (default: the last step counted, right only when one row runs)."""
        with self._lock:
            where = inert(where) if where else self._last_step
            self.description = f"{where} · {fit(inert(text), 120)}" if where else fit(inert(text), 120)
            if self._bar:
                self._bar.update(self._task, description=self.description)
            self._say()

    def _say(self) -> None:
        """The plain progress line (stderr no terminal), when PLAIN_EVERY seconds have passed since the last."""
        now = time.monotonic()
        if not self._plain or now - self._said < PLAIN_EVERY:
            return
        self._said = now
        task = self._bar.tasks[0]  # the bar counts, drawn or not
        sys.stderr.write(f"progress: {int(task.completed)}/{int(task.total)} · {fit(self.description, 100)} · "
                         f"{int(now - self._began)} s\n")
        sys.stderr.flush()


def _is_variant(step: str) -> bool:
    """:func:`lab.cases.variants.is_variant`, imported only for a step that may be one (the cases cost a
    lifecycle run 50 ms it never needs)."""
    from lab.cases.variants import is_variant
    return is_variant(step)


#: Cells the bar's other columns take beside its description: the time (``0:00:12``, 8 for a run of ten
#: hours or more) and the three single spaces between the four columns; the count and the bar are added.
_TIME_AND_GAPS = 8 + 3


def bar_width(width: int) -> int:
    """The bar's own width on a terminal ``width`` cells wide: 40 from 200 cells, down to 10 at 80."""
    return max(10, min(40, width // 4 - 10))


def room_for_description(width: int, total: float | None) -> int:
    """Cells left for the description on a line ``width`` cells wide, beside a bar of ``total`` steps."""
    count = 2 * len(str(int(total))) + 1 if total is not None else 3
    return width - bar_width(width) - count - _TIME_AND_GAPS


def fit(text: str, width: int) -> str:
    """``text`` in at most ``width`` terminal cells: itself when it fits, else its start and its end with
    the middle elided (``…``), each cut at a word where that loses little. The start, where a line says
    what it waits for, keeps most of the room; the end is kept too (at least the last word, whole when it
    fits), never cut off: ``reference-naive seed · driver reference: building…cached)`` at 80 columns."""
    from rich.cells import cell_len

    if cell_len(text) <= width:
        return text
    body = text.rstrip()
    if cell_len(body) <= width:
        return body
    if width <= 1:
        return "…"[:max(width, 0)]
    room = width - 1
    words = body.split()
    last = words[-1] if words else body
    # the last word and a fifth of the room; a last word too long for the room (a path) keeps its end,
    # two thirds of the room, and the start the rest
    tail = _suffix(body, max(cell_len(last), room // 5) if cell_len(last) <= room else room - room // 3)
    start = len(body) - len(tail)
    if start and not body[start - 1].isspace():  # the tail begins inside a word: begin it at the next one
        cut = next((i for i, ch in enumerate(tail) if ch.isspace()), -1)
        if cut != -1 and cell_len(tail[cut:].lstrip()) >= cell_len(last):
            tail = tail[cut:]
    tail = tail.lstrip()
    head = _prefix(body, room - cell_len(tail))
    if head and not body[len(head)].isspace():  # the head ends inside a word: end it at the last whole one
        cut = max((i for i, ch in enumerate(head) if ch.isspace()), default=-1)
        if cut > 0 and cell_len(head[cut:]) <= 4:
            head = head[:cut]
        elif cut == -1 and cell_len(head) < 4:  # a stub of the first word ("v…") says nothing
            head = ""
    return head.rstrip() + "…" + tail


def _prefix(text: str, cells: int) -> str:
    """The longest start of ``text`` at most ``cells`` cells wide."""
    from rich.cells import cell_len

    used = 0
    for i, ch in enumerate(text):
        used += cell_len(ch)
        if used > cells:
            return text[:i]
    return text


def _suffix(text: str, cells: int) -> str:
    """The longest end of ``text`` at most ``cells`` cells wide."""
    from rich.cells import cell_len

    used = 0
    for i in range(len(text) - 1, -1, -1):
        used += cell_len(text[i])
        if used > cells:
            return text[i + 1:]
    return text


_COLUMN: list[type] = []


def _description_column() -> type:
    """The bar's description column (made once, when a bar is first made: rich.progress is imported then):
    the description fitted (:func:`fit`) to the room the console's width leaves it, read at each refresh
    (a terminal resized), the bar narrowed with it."""
    if not _COLUMN:
        from rich.errors import MarkupError
        from rich.progress import ProgressColumn
        from rich.text import Text

        class Description(ProgressColumn):
            def __init__(self, console: Console, bar: Any):
                super().__init__()
                self.console, self.bar = console, bar

            def render(self, task: Any) -> Text:
                width = self.console.width
                self.bar.bar_width = bar_width(width)  # this column is drawn first: the bar's follows
                try:  # a description is markup (its text escaped by inert): fitted as the text it shows
                    shown = Text.from_markup(task.description).plain
                except MarkupError:
                    shown = task.description
                return Text(fit(shown, max(1, room_for_description(width, task.total))), no_wrap=True,
                            overflow="ellipsis")

        _COLUMN.append(Description)
    return _COLUMN[0]
