"""Reading a driver's stdout: bounded chunks, one line at a time; answers parsed strictly.

The lab never reads more than one line's worth ahead: a line longer than ``MAX_LINE_BYTES``
(an endless line without a newline) is :class:`LineTooLong` as soon as it is that long, and
what a stopping driver still writes is read and dropped beyond that bound, so a driver's
output never grows the lab's memory.
"""

from __future__ import annotations

import json
import math
import os
import select
import subprocess
import time
from typing import Any

#: The longest line read from a driver (newline excluded). An answer is one line, so this is
#: also the largest answer the lab takes; a longer one is a harness error naming this limit.
#: 16 MiB: a read of 10,000 records per context (``memlab run --records``) is about 3 MB; a 20 MB
#: answer, or an endless line, is refused with at most this much held.
MAX_LINE_BYTES = 1 << 24
#: Bytes read from the driver's stdout at a time.
CHUNK_BYTES = 1 << 16


class LineTooLong(Exception):
    """The driver wrote a line longer than ``MAX_LINE_BYTES``."""


class LineReader:
    """The lines of one file descriptor (a driver's stdout), read in bounded chunks."""

    def __init__(self, fd: int, limit: int = MAX_LINE_BYTES):
        self.fd, self.limit = fd, limit
        self.buffer = bytearray()
        self.eof = False

    def fill(self, wait: float) -> bool:
        """Read one chunk if one comes within ``wait`` seconds (0: only what is there); whether
        anything (or the end of the output) came. Beyond one line's worth, bytes are dropped."""
        if self.eof or not select.select([self.fd], [], [], max(0.0, wait))[0]:
            return False
        chunk = os.read(self.fd, CHUNK_BYTES)
        if not chunk:
            self.eof = True
        elif len(self.buffer) <= self.limit:
            self.buffer += chunk
        return True

    def line(self, deadline: float) -> bytes | None:
        """The next non-blank line (without its newline); None at the end of the output or at ``deadline``
        (``eof`` tells which). ``LineTooLong`` once a line passes the limit."""
        while True:
            end = self.buffer.find(b"\n")
            if end > self.limit or (end < 0 and len(self.buffer) > self.limit):
                raise LineTooLong(f"a line longer than {self.limit} bytes (the profile's limits.line_bytes, "
                                  f"default lab.driver.lines.MAX_LINE_BYTES = {MAX_LINE_BYTES}; an answer is one line)")
            if end >= 0:
                line = bytes(self.buffer[:end])
                del self.buffer[:end + 1]
                if line.strip():  # a blank line is no answer (``pending`` does not count it either)
                    return line
                continue
            if self.eof:
                line, self.buffer = bytes(self.buffer), bytearray()
                return line if line.strip() else None
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.fill(left)

    def drain(self, seconds: float = 0.0) -> None:
        """Read what comes within ``seconds`` (0: what is there now) until the end of the output, or
        until one line's worth is held (more would be dropped: what is held already says enough)."""
        deadline = time.monotonic() + seconds
        while len(self.buffer) <= self.limit and self.fill(max(0.0, deadline - time.monotonic())):
            if seconds and time.monotonic() >= deadline:
                break

    def pending(self) -> str:
        """What was read and not taken as an answer (its start), or "" when that is only whitespace."""
        return bytes(self.buffer[:300]).decode("utf-8", "replace").strip()


def wait_reading(proc: subprocess.Popen, reader: LineReader | None, seconds: float) -> bool:
    """Wait up to ``seconds`` for ``proc`` to end, reading its stdout meanwhile (a driver blocked on a
    full pipe must not look hung); whether it ended."""
    deadline = time.monotonic() + seconds
    while proc.poll() is None:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        if reader is not None and not reader.eof:
            reader.fill(min(left, 0.05))
            continue
        try:
            proc.wait(timeout=left)
        except subprocess.TimeoutExpired:
            return False
    return True


#: The deepest answer taken: an observation keeps an answer a few levels down, and a result set is
#: read at most 64 deep (lab.resultset.loading.MAX_JSON_DEPTH); the same bound as an HTTP shim's
#: answer (lab.lifecycle.adapters.http_json.MAX_ANSWER_DEPTH).
MAX_ANSWER_DEPTH = 32


class AnswerRefused(ValueError):
    """JSON a reader takes and the boundary refuses: nested deeper than ``MAX_ANSWER_DEPTH`` (kept in an
    observation, it would nest deeper than a result set is read; parsed, a 100,000-deep array would end
    the lab with a ``RecursionError``). A lone surrogate is no refusal: served text, it is kept as its
    escape (lab.resultset.surrogates), never a harness error a SUT could choose."""


def parse_answer(line: bytes) -> Any:
    """One answer line as JSON, strictly: ``ValueError`` for NaN, Infinity, a number no float holds
    or a key twice in one object (readers would disagree what the driver answered);
    :class:`AnswerRefused` (a ``ValueError`` too) for JSON nested deeper than ``MAX_ANSWER_DEPTH``."""
    try:
        value = json.loads(line, parse_constant=_no_constant, parse_float=_finite, object_pairs_hook=_unique)
    except RecursionError:
        raise _too_deep() from None
    if json_depth(value) > MAX_ANSWER_DEPTH:
        raise _too_deep()
    return value


def _too_deep() -> AnswerRefused:
    return AnswerRefused(f"JSON nested more than {MAX_ANSWER_DEPTH} levels deep (lab.driver.lines.MAX_ANSWER_DEPTH); "
                         "answer with what the agent is served, not a deeply nested structure")


def json_depth(value: Any) -> int:
    """How deep a parsed JSON value nests (a scalar 0, ``[]`` 1), walked with an explicit stack (a deep
    value never recurses)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            stack.extend((member, level + 1) for member in (item.values() if isinstance(item, dict) else item))
    return deepest


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} does not fit a float")
    return value


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError(f"a key appears twice in one object: {sorted({k for k in keys if keys.count(k) > 1})[:3]}")
    return dict(pairs)
