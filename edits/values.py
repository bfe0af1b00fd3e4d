"""Values an editor has to invent: a tampered metadata value (``set_meta``), a
fresh identity and the next order value (``forge``), a temporary order value (``swap`` under a
UNIQUE constraint), the version value of a new newest version row (``forge``, ``version=new``).

Every function keeps the type and the textual shape of the values it is given
(an ISO-8601 string stays an ISO-8601 string in the same format, a dashed UUID
stays a dashed UUID), so the edited record still looks like the SUT's own.

Example::

    >>> from edits.values import tamper_value, fresh_identity, next_order
    >>> tamper_value("role", "user")
    'assistant'
    >>> tamper_value("timestamp", "2024-02-28T23:59:59Z")
    '2024-02-29T23:59:59Z'
    >>> fresh_identity([3, 7, 5])
    8
    >>> fresh_identity(["msg-0009", "msg-0010"])
    'msg-0011'
    >>> next_order(["2024-01-01 10:00:00.250"])
    '2024-01-01 10:00:01.250'
    >>> from edits.values import next_version
    >>> next_version("1f1ec7da-02e2-60c1-800d-2e4e1eb743ef", [])
    '1f1ec7da-02e2-60c1-800d-2e4e1eb743f0'
    >>> next_version("00000018", ["00000019"])
    '00000020'
    >>> shift_moment(1796015809.5, moment_seconds("2026-12-01T05:16:49Z") - moment_seconds("2026-11-30T05:16:49Z"))
    1796102209.5
    >>> shift_moment(datetime(2026, 11, 30, 5, 16, 49), 86400.0)
    datetime.datetime(2026, 12, 1, 5, 16, 49)
    >>> tamper_value("timestamp", datetime(2026, 11, 30, 5, 16, 49))
    datetime.datetime(2026, 12, 1, 5, 16, 49)
"""

from __future__ import annotations

import decimal
import re
import uuid
from datetime import datetime, timedelta
from typing import Any, Iterable

DAY = 86400
_UUID = re.compile(r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$")
_ISO = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:([T ])(\d{2}:\d{2}:\d{2})(\.\d+)?)?(.*)$")
_INT_TEXT = re.compile(r"^-?\d+$")
_DECIMAL_TEXT = re.compile(r"^-?\d+\.(\d+)$")
_SUFFIX = re.compile(r"^(.*?)(\d+)$")


def is_uuid(value: Any) -> bool:
    """True for a UUID written as 32 hex digits, dashed or not."""
    return isinstance(value, str) and bool(_UUID.match(value))


def is_iso(value: Any) -> bool:
    """True for a string that starts like an ISO-8601 date or date-time."""
    return isinstance(value, str) and bool(_ISO.match(value)) and _parse_iso(value) is not None


def shift_iso(text: str, seconds: float) -> str:
    """Shift an ISO-8601 date(-time) string, keeping its exact format and zone suffix."""
    parsed = _parse_iso(text)
    if parsed is None:
        raise ValueError(f"not an ISO-8601 date-time: {text!r}")
    moment, sep, frac, suffix = parsed
    moment += timedelta(seconds=seconds)
    if sep is None:
        return moment.strftime("%Y-%m-%d") + suffix
    out = moment.strftime(f"%Y-%m-%d{sep}%H:%M:%S")
    if frac:
        out += "." + f"{moment.microsecond:06d}"[: len(frac) - 1].ljust(len(frac) - 1, "0")
    return out + suffix


def moment_seconds(value: Any) -> float | None:
    """A timestamp value as seconds (epoch numbers by their size: seconds, ms, µs or ns, also as
    integer text; an ISO-8601 string or a date-time value -- a PostgreSQL timestamp column -- read as
    naive time), None for anything else."""
    if isinstance(value, datetime):
        return (value.replace(tzinfo=None) - datetime(1970, 1, 1)).total_seconds()
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value / _epoch_unit(value)
    if isinstance(value, str) and _INT_TEXT.match(value):
        return int(value) / _epoch_unit(int(value))
    parsed = _parse_iso(value) if isinstance(value, str) else None
    return None if parsed is None else (parsed[0] - datetime(1970, 1, 1)).total_seconds()


def shift_moment(value: Any, seconds: float) -> Any:
    """A timestamp value moved by ``seconds`` in its own kind and format (see :func:`moment_seconds`)."""
    if isinstance(value, datetime):
        return value + timedelta(seconds=seconds)
    if isinstance(value, str) and not _INT_TEXT.match(value):
        return shift_iso(value, seconds)
    number = int(value) if isinstance(value, str) else value
    step = seconds * _epoch_unit(number)
    moved = number + (int(step) if isinstance(number, int) and float(step).is_integer() else step)
    return f"{moved:0{len(value)}d}" if isinstance(value, str) else moved


def _epoch_unit(number: float) -> int:
    """How many units of an epoch number make a second, judged by its size."""
    size = abs(number)
    return 1 if size <= 1e11 else 1000 if size <= 1e14 else 10**6 if size <= 1e17 else 10**9


def tamper_value(name: str, old: Any) -> Any:
    """A plausible value of metadata ``name`` that differs from ``old`` (``set_meta``).

    role: user <-> assistant, anything else -> "system" ("system" -> "user");
    timestamp: numbers +1 day (epoch milliseconds +86,400,000), number text too (decimals kept:
    an adversary writes a time the reader parses), ISO strings and date-time values +1 day;
    source, owner and anything else: a different value of the same kind.
    """
    if name == "role":
        swap = {"user": "assistant", "assistant": "user", "system": "user"}
        return swap.get(old, "system") if isinstance(old, str) or old is None else "system"
    if name == "timestamp":
        if isinstance(old, bool):
            return not old
        if isinstance(old, datetime):
            return old + timedelta(days=1)
        if isinstance(old, (int, float)):
            return old + (DAY * 1000 if abs(old) > 1e11 else DAY)
        if isinstance(old, str) and _INT_TEXT.match(old):
            return str(int(old) + (DAY * 1000 if abs(int(old)) > 1e11 else DAY))
        if isinstance(old, str) and (m := _DECIMAL_TEXT.match(old)):
            moved = decimal.Decimal(old) + (DAY * 1000 if abs(float(old)) > 1e11 else DAY)
            return f"{moved:.{len(m.group(1))}f}"
        if is_iso(old):
            return shift_iso(old, DAY)
    return _different(old)


def fresh_identity(existing: Iterable[Any]) -> Any:
    """A new identity value of the same kind as ``existing`` and not among them (``forge``).

    ints -> max + 1; UUID strings -> a new UUID in the same format (dashes, case);
    ISO date-times -> the next order value; strings ending in digits -> the
    highest suffix + 1 with the same padding; other strings -> a unique variant.
    """
    values = [v for v in existing if v is not None]
    taken = set(values)
    if not values:
        return str(uuid.uuid4())
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return next_order(values)
    strings = [v for v in values if isinstance(v, str)]
    if strings and len(strings) == len(values):
        if all(is_uuid(v) for v in strings):
            return _new_uuid_like(strings[-1], taken)
        if all(is_iso(v) for v in strings):
            return next_order(strings)
        suffixed = [m for m in (_SUFFIX.match(v) for v in strings) if m]
        if suffixed:
            prefix, digits = max(suffixed, key=lambda m: int(m.group(2))).groups()
            candidate = f"{prefix}{int(digits) + 1:0{len(digits)}d}"
            if candidate not in taken:
                return candidate
        return _unique(max(strings), taken)
    if isinstance(values[-1], uuid.UUID):
        return uuid.uuid4()
    if isinstance(values[-1], bytes):
        return uuid.uuid4().bytes if len(values[-1]) == 16 else values[-1] + uuid.uuid4().bytes[:4]
    raise ValueError(f"cannot invent an identity among values of types {sorted({type(v).__name__ for v in values})}")


def next_order(existing: Iterable[Any]) -> Any:
    """An order value after every value in ``existing`` (``forge``; also a ``swap``'s temporary).

    numbers -> max + 1; integer strings -> max + 1 with the same padding; ISO
    date-times -> latest + 1 second (+1 day for bare dates); date-time values (a
    PostgreSQL timestamp column) -> latest + 1 second; other strings -> the
    greatest one with "~" appended (sorts after it).
    """
    values = [v for v in existing if v is not None]
    if not values:
        return 0
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return max(values) + 1
    if all(isinstance(v, datetime) for v in values):
        return max(values) + timedelta(seconds=1)
    if all(isinstance(v, str) for v in values):
        if all(_INT_TEXT.match(v) for v in values):
            top = max(values, key=int)
            return f"{int(top) + 1:0{len(top)}d}"
        if all(is_iso(v) for v in values):
            top = max(values, key=lambda v: _parse_iso(v)[0])
            return shift_iso(top, 1 if _parse_iso(top)[1] is not None else DAY)
        return max(values) + "~"
    raise ValueError(f"cannot order after values of types {sorted({type(v).__name__ for v in values})}")


def next_version(newest: Any, taken: list[Any]) -> Any:
    """A version value after ``newest`` of its kind and not in ``taken``: an integer + 1; a string of
    digits + 1 (its width kept); any other string counted up in its last hex digits (a UUID's node
    part, so a time-ordered UUID stays one), dashes and other characters kept."""
    value = newest
    while value == newest or value in taken:
        if isinstance(value, int) and not isinstance(value, bool):
            value += 1
        elif isinstance(value, str) and value.isdigit():
            value = f"{int(value) + 1:0{len(value)}d}"
        elif isinstance(value, str):
            value = _count_up(value)
        else:
            raise ValueError(f"cannot count a version value of type {type(value).__name__} up")
    return value


def _count_up(text: str) -> str:
    """``text`` + 1 in its hex digits (in its own case), from the end; '~' appended when all are f."""
    chars = list(text)
    digits = "0123456789ABCDEF" if any(c in "ABCDEF" for c in text) and not any(c in "abcdef" for c in text) \
        else "0123456789abcdef"
    for i in range(len(chars) - 1, -1, -1):
        if chars[i] not in digits:
            continue
        k = digits.index(chars[i])
        chars[i] = digits[(k + 1) % 16]
        if k < 15:
            return "".join(chars)
    return text + "~"


def _parse_iso(text: str) -> tuple[datetime, str | None, str | None, str] | None:
    m = _ISO.match(text)
    if not m:
        return None
    date, sep, clock, frac, suffix = m.groups()
    if suffix and not re.match(r"^(Z|[+-]\d{2}(:?\d{2})?)$", suffix):
        return None
    try:
        moment = datetime.fromisoformat(f"{date}T{clock or '00:00:00'}{(frac or '')[:7]}")
    except ValueError:
        return None
    return moment, sep, frac, suffix


def _new_uuid_like(sample: str, taken: set) -> str:
    while True:
        new = uuid.uuid4()
        text = str(new) if "-" in sample else new.hex
        text = text.upper() if sample.isupper() else text
        if text not in taken:
            return text


def _unique(base: str, taken: set) -> str:
    candidate = f"{base}-forged"
    n = 2
    while candidate in taken:
        candidate = f"{base}-forged{n}"
        n += 1
    return candidate


def _different(old: Any) -> Any:
    if isinstance(old, bool):
        return not old
    if isinstance(old, (int, float)):
        return old + 1
    if is_uuid(old):
        return _new_uuid_like(old, {old})
    if isinstance(old, str) and old:
        return f"{old}-tampered"
    return "tampered"
