"""The driver client: talk to a running SUT over JSON lines on its stdio.

Every answer is checked at the boundary: an answer of the wrong shape, a crash,
or a timeout raises :class:`DriverError` (a harness error, never a verdict); so do a line
longer than the profile's ``limits.line_bytes`` (default ``MAX_LINE_BYTES``; stdout is read in
bounded chunks, :mod:`lab.driver.lines`: an endless line never grows the lab), an answer larger than
its ``limits.answer_bytes``, JSON a strict reader refuses (NaN, a duplicate key), JSON nested deeper
than ``MAX_ANSWER_DEPTH`` (no result set could read it back), and
anything but exactly one answer per request: a line before a request, or after an answer, is
a protocol fault, found at the next request or at :meth:`DriverClient.finish` at the latest,
so the trial of a driver that forged an answer is an error and the answer is never scored. Its
message names the SUT's log file and quotes its last lines, so wherever the message
is shown (the observation, the cell's reason, the terminal report) the reader knows
where to look; ``log_tail`` keeps a longer tail. The protocol is documented in
``images/README.md``.

May import: no other role of the lab (the driver is a bottom role).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from lab import safewrite
from lab.driver.lines import MAX_LINE_BYTES  # re-exported: the default limit a harness error names
from lab.driver.lines import AnswerRefused, LineReader, LineTooLong, parse_answer, wait_reading
from lab.logs import get_logger

log = get_logger(__name__)

ANSWER_KEYS = {"id", "ok", "refused", "error", "records", "record", "erased", "audit", "result", "signals"}
#: Lines of the SUT's log quoted in a harness error's message (``log_tail`` keeps 20).
QUOTED_LINES = 6
#: Seconds a stopped driver's remaining output is read for (to find a line no request asked for).
DRAIN_SECONDS = 2.0


class DriverError(Exception):
    """The driver crashed, hung, or answered garbage: a harness fault."""

    def __init__(self, message: str, log_tail: str = ""):
        super().__init__(message)
        self.log_tail = log_tail


class SutLog:
    """The SUT's log (``log_path``, its stderr), quoted in every harness error of its driver."""

    log_path: Path

    def fault(self, message: str) -> DriverError:
        """A harness error whose message ends with :meth:`log_note` (and carries the log's tail)."""
        return DriverError(message + self.log_note(), self.log_tail())

    def log_note(self, lines: int = QUOTED_LINES) -> str:
        """Where the SUT's log is and its last non-blank lines, to append to a harness error's
        message (a new line, then)::

              SUT log: /out/logs/row/seed-0.log, last 2 lines:
              | Traceback (most recent call last): ...
              | ModuleNotFoundError: No module named 'toynotes'
        """
        return quote_log(self.log_path, self.log_tail(lines * 4), lines)

    def log_tail(self, lines: int = 20) -> str:
        """The last lines of the SUT's log (stderr)."""
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])


class DriverClient(SutLog):
    """One SUT process: start it, send ops, stop it (the process ends)."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path, log_path: Path):
        self.argv, self.env, self.cwd, self.log_path = argv, env, cwd, log_path
        #: Callbacks (the run registry) told of each start and stop.
        self.on_start = self.on_stop = None
        self._proc: subprocess.Popen | None = None
        self._reader: LineReader | None = None
        self._next_id = 0
        self._last_op = "open"
        #: Volume paths as the SUT sees them (a container runtime maps them).
        self.volume_paths: dict[str, str] = {}
        #: The boundary's limits (the profile's ``limits``): the longest line read, the largest answer taken.
        self.line_bytes = self.answer_bytes = MAX_LINE_BYTES

    def limit(self, line_bytes: int, answer_bytes: int) -> "DriverClient":
        """Set the boundary's limits (before :meth:`start`); an answer is one line, so at most ``line_bytes``."""
        self.line_bytes, self.answer_bytes = line_bytes, min(answer_bytes, line_bytes)
        return self

    @property
    def pid(self) -> int | None:
        """The process id while running."""
        return self._proc.pid if self._proc else None

    def start(self) -> "DriverClient":
        """Start the process in its own session (so a stop reaches its children too)."""
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        logfile = safewrite.open_file(self.log_path)  # appended to, never through a link
        try:
            self._proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=logfile, cwd=self.cwd, env=self.env, start_new_session=True)
        except OSError as exc:
            raise self.fault(f"cannot start {self.argv[0]}: {exc}") from exc
        finally:
            logfile.close()
        assert self._proc.stdout
        self._reader = LineReader(self._proc.stdout.fileno(), self.line_bytes)
        if self.on_start:
            self.on_start(self)
        return self

    def call(self, op: str, timeout: float, **fields: Any) -> dict[str, Any]:
        """Send one op and return its checked answer (with ``seconds`` added)."""
        if not self._proc:
            raise self.fault(f"{op}: the SUT process is not running")
        if (code := self._proc.poll()) is not None:  # it ended (a crash at start) before this op
            raise self.fault(f"{op}: the SUT process exited with code {code} before answering")
        assert self._reader
        self._reader.drain()
        if self._reader.pending():
            self._unasked(op)
        self._next_id += 1
        self._last_op = op
        request = {"id": self._next_id, "op": op, **fields}
        started = time.monotonic()
        try:
            assert self._proc.stdin
            self._proc.stdin.write((json.dumps(request) + "\n").encode())
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            try:
                code = self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                raise self.fault(f"{op}: the SUT process closed its input ({exc})") from exc
            raise self.fault(f"{op}: the SUT process exited with code {code} before answering") from exc
        try:
            line = self._reader.line(started + timeout)
        except LineTooLong as exc:
            self.kill()
            raise self.fault(f"{op}: the driver wrote {exc}; process killed") from None
        if line is None and not self._reader.eof:
            self.kill()
            raise self.fault(f"{op}: no answer within {timeout:g} s (process killed)")
        if line is None:
            code = self._proc.wait(timeout=5)
            raise self.fault(f"{op}: the SUT process exited with code {code} before answering")
        if len(line) > self.answer_bytes:
            self.kill()
            raise self.fault(f"{op}: the driver answered {len(line)} bytes, more than the profile's "
                             f"limits.answer_bytes ({self.answer_bytes}); process killed, the answer not taken")
        answer, refused = taken_answer(op, line, self._next_id)
        if answer is None:  # the process's answers are not taken: it ends here
            self.kill()
            raise self.fault(refused) from None
        if self._reader.pending():  # read together with the answer: a second answer to this request
            self._unasked(op)
        answer["seconds"] = round(time.monotonic() - started, 6)
        return answer

    def _unasked(self, op: str) -> None:
        """A line beyond the answers (a second answer, or one before its request): kill, and fault."""
        shown = self._reader.pending() if self._reader else ""
        self.kill()
        raise self.fault(f"{op}: the driver wrote a line no request asked for (request {self._next_id}, "
                         f"{self._last_op}, already had its answer): {shown!r}; exactly one answer per request, "
                         "so this process's answers are not taken")

    def finish(self) -> None:
        """Stop the process (:meth:`stop`) and raise :class:`DriverError` if it wrote anything beyond
        one answer per request: its trial then takes none of its answers."""
        self.stop()
        if self._reader and self._reader.pending():
            self._unasked(self._last_op)

    def stop(self, grace: float = 5.0) -> None:
        """End the process: close its input, then SIGTERM, then SIGKILL its whole session."""
        proc = self._proc
        if not proc:
            return
        try:
            if proc.stdin and not proc.stdin.closed:
                proc.stdin.close()
        except OSError:
            pass
        if not wait_reading(proc, self._reader, grace):
            self._signal(signal.SIGTERM)
            if not wait_reading(proc, self._reader, grace):
                self.kill()
        self._signal(signal.SIGKILL)  # any child left in the session
        if self._reader:  # what it still wrote, kept (bounded) for finish to see
            self._reader.drain(DRAIN_SECONDS)
        if proc.stdout:
            proc.stdout.close()
        if self.on_stop:
            self.on_stop(self)
        self._proc = None

    def kill(self) -> None:
        """Kill the process and its session at once."""
        if self._proc:
            self._signal(signal.SIGKILL)
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                log.warning("sut.unkillable", pid=self._proc.pid)

    def _signal(self, sig: int) -> None:
        try:
            os.killpg(self._proc.pid, sig)  # type: ignore[union-attr]
        except (ProcessLookupError, PermissionError):
            pass

    def __enter__(self) -> "DriverClient":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def taken_answer(op: str, line: bytes, request_id: int) -> tuple[dict[str, Any] | None, str]:
    """A driver's answer line to request ``request_id``: what is kept of it (its ``ANSWER_KEYS``), or
    None and why it is not taken (not JSON, of a shape no observation can keep, a bad answer)."""
    shown = line[:300].decode("utf-8", "replace").rstrip()
    try:
        answer = parse_answer(line)
    except AnswerRefused as exc:  # JSON, but of a shape no observation can keep
        return None, f"{op}: the driver's answer is refused, {exc}: {shown!r}"
    except ValueError as exc:
        return None, f"{op}: the driver answered garbage, not JSON ({exc}): {shown!r}"
    problem = answer_problem(op, answer, request_id)
    if problem:
        return None, f"{op}: bad answer from the driver ({problem}): {shown!r}"
    return {k: v for k, v in answer.items() if k in ANSWER_KEYS}, ""


def answer_problem(op: str, answer: Any, request_id: int) -> str | None:
    """What is wrong with the shape of a driver's answer to ``op``, or None (images/README.md)."""
    if not isinstance(answer, dict):
        return "not a JSON object"
    earlier = answer.get("id")
    if isinstance(earlier, int) and not isinstance(earlier, bool) and 0 < earlier < request_id:
        return (f"a second answer to request {earlier}, which no request asked for; exactly one answer per "
                "request, so this process's answers are not taken")
    if earlier != request_id:
        return f"answer id {earlier!r} for request {request_id}"
    if not isinstance(answer.get("ok"), bool):
        return "'ok' missing or not a boolean"
    if not isinstance(answer.get("signals", []), list):
        return "'signals' is not a list"
    served = answer["ok"]
    if op == "read" and served and not isinstance(answer.get("records"), list):
        return "a served read has no 'records' list"
    if op == "read" and served and not all(isinstance(r, dict) and "text" in r for r in answer["records"]):
        return "a served record lacks 'text'"
    if op == "frontdoor_read" and served and not (isinstance(answer.get("records"), list) and all(
            isinstance(r, dict) and isinstance(r.get("text"), str) and isinstance(r.get("marker"), (str, type(None)))
            for r in answer["records"])):
        return "a served frontdoor_read is not a 'records' list of {text, marker}"
    if op == "frontdoor_write" and served and not isinstance((answer.get("result") or {}).get("accepted"), bool):
        return "a frontdoor_write answer has no boolean result.accepted"
    if op == "frontdoor_message" and served and not isinstance((answer.get("result") or {}).get("message"), str):
        return "a frontdoor_message answer has no result.message (hex)"
    if op == "audit" and served and not isinstance((answer.get("audit") or {}).get("ok"), bool):
        return "an audit answer has no boolean audit.ok"
    if not served and not answer.get("refused"):
        return f"driver fault: {answer.get('error')}"
    return None


def quote_log(path: Path, tail: str, lines: int) -> str:
    """The note a harness error ends with: the log's path and its last non-blank lines."""
    quoted = [ln[:300] for ln in tail.splitlines() if ln.strip()][-lines:]
    if not quoted:
        return f"\n  SUT log: {path} (empty)"
    return (f"\n  SUT log: {path}, last {len(quoted)} line{'s' if len(quoted) > 1 else ''}:\n"
            + "\n".join(f"  | {ln}" for ln in quoted))
