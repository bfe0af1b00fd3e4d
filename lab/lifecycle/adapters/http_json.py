"""A shim's answer read as strictly as the result set that keeps it, and shown safely.

:func:`decoded`: UTF-8 JSON where an object that repeats a member name, NaN, Infinity, a number no float
holds and JSON nested more than ``MAX_ANSWER_DEPTH`` deep are :class:`Refused` (named, with the fix).
:func:`inert` and :func:`excerpt`: text from a shim as one printable line, cut short. Imports the
standard library, ``lab.driver.lines`` (how deep JSON nests) and ``lab.resultset.loading`` (how deep a
result set is read).
"""

from __future__ import annotations

import json
import math
from typing import Any

from lab.driver.lines import json_depth
from lab.resultset.loading import MAX_JSON_DEPTH

#: The deepest answer read: an observation keeps it a few levels down and is read back at most
#: MAX_JSON_DEPTH deep.
MAX_ANSWER_DEPTH = MAX_JSON_DEPTH // 2


def inert(text: str, limit: int = 300) -> str:
    """Text from outside made safe to print: one line, control and escape characters as ``\\xNN``
    (or ``\\uNNNN``), at most ``limit`` characters."""
    shown = "".join(c if c.isprintable() and c not in "\x1b\x9b" else
                    (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}") for c in " ".join(str(text).split()))
    return shown if len(shown) <= limit else shown[:limit] + "..."


def excerpt(value: Any, limit: int = 200) -> str:
    """A one-line, inert excerpt of a body (JSON or text) for an error message."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return inert(text, limit)


class Refused(ValueError):
    """JSON a lenient reader takes and the contract refuses: ``what`` the answer holds, and the fix."""

    def __init__(self, what: str, fix: str):
        super().__init__(what)
        self.what, self.fix = what, fix


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in pairs:
        if name in out:
            raise Refused(f"a JSON object that names {inert(name, 80)!r} twice: which value reached the agent "
                          "is ambiguous", "send each key once in an object")
        out[name] = value
    return out


NUMBER_FIX = "send finite numbers that fit a float (any other value as a string)"


def _no_constant(name: str) -> Any:
    raise Refused(f"{name}, which is not JSON", NUMBER_FIX)


def _finite(lexeme: str) -> float:
    value = float(lexeme)
    if not math.isfinite(value):
        raise Refused(f"the number {inert(lexeme, 40)}, which no float holds", NUMBER_FIX)
    return value


def decoded(data: bytes) -> tuple[str | None, Any]:
    """An answer's bytes as (its UTF-8 text, None when it is not UTF-8; its JSON, None when empty or
    not JSON); :class:`Refused` when it is JSON the contract refuses."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None, None
    if not data.strip():
        return text, None
    try:  # a byte order mark is tolerated, as a JSON reader of bytes does; the body keeps it
        payload = json.loads(text.removeprefix("\ufeff"), object_pairs_hook=_unique,
                             parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:
        raise _too_deep() from None
    except Refused:
        raise
    except ValueError:
        return text, None
    if json_depth(payload) > MAX_ANSWER_DEPTH:
        raise _too_deep()
    return text, payload


def _too_deep() -> Refused:
    return Refused(f"JSON nested too deep (more than {MAX_ANSWER_DEPTH} levels)",
                   "answer with what the agent is served, not a deeply nested structure")
