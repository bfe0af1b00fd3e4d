"""What a name or a path in a profile may be: each check returns the error text and its fix,
or ``None`` when the value is fine.

A row, volume or service name becomes a folder or file name of a result set and of a run's
volumes, so it is a short run of letters, digits and ``. _ + -`` that starts with a letter or
digit and never holds ``..``. A path inside a volume is relative and never climbs out.

Example::

    >>> bad_name("reference-naive+anchor") is None
    True
    >>> bad_name("../x")[0]
    "'../x' is not a safe name (letters, digits, '.', '_', '+', '-'; starting with a letter or digit; no '..')"
    >>> bad_relative("memory/{context}.md") is None, bad_relative("/etc/x")[0]
    (True, 'an absolute path; it must stay inside its volume')
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from pathlib import Path, PurePosixPath
from typing import Any

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,79}")
MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
SQL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?")
#: An image reference as the engine spells one: [host[:port]/]path[:tag][@sha256:digest], lower case path.
IMAGE_REF = re.compile(r"(?:[a-z0-9.-]+(?::[0-9]+)?/)?[a-z0-9]+(?:[._-]+[a-z0-9]+)*(?:/[a-z0-9]+(?:[._-]+[a-z0-9]+)*)*"
                       r"(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[0-9a-f]{64})?")
Problem = tuple[str, str] | None


def bad_name(value: str) -> Problem:
    """A row, volume or service name that is not safe as one file name."""
    if NAME.fullmatch(value) and ".." not in value:
        return None
    return (f"{value!r} is not a safe name (letters, digits, '.', '_', '+', '-'; starting with a letter or digit; "
            "no '..')", "rename it, e.g. my-row or store")


def bad_relative(value: str) -> Problem:
    """A path inside a volume or folder that is absolute, climbs out or is empty."""
    if not value or not value.strip():
        return "an empty path", "name the file inside the volume, e.g. memory.db"
    if value.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", value):
        return "an absolute path; it must stay inside its volume", "write the path relative to the volume, e.g. memory.db"
    if "\\" in value:
        return "a backslash in the path", "separate folders with /"
    if ".." in PurePosixPath(value).parts:
        return "the path climbs out with '..'; it must stay inside its volume", "write the path from the volume's top"
    return None


def bad_image_ref(value: str) -> Problem:
    """A name that is no image reference the engine would take (``acme/agent:1.4``, ``name@sha256:...``)."""
    if IMAGE_REF.fullmatch(value) and len(value) <= 255:
        return None
    return (f"{value!r} is not an image reference (lower-case path, optional :tag and @sha256:digest)",
            "write it as docker images shows it, e.g. tag: acme/agent-memory:1.4")


def bad_text(value: str, one_line: bool = False) -> Problem:
    """Text holding control characters (ANSI escapes and the like; a newline where one line is meant)."""
    allowed = "\t" if one_line else "\t\n"
    found = next((c for c in value if c not in allowed and unicodedata.category(c) in ("Cc", "Cf")), None)
    if found is not None:
        what = "a line break" if found in "\r\n" else f"the control character U+{ord(found):04X}"
        return f"holds {what}", "remove it (write plain text; a title or name is one line)"
    return None


def bad_strings(data: Any, texts: dict[str, str]) -> tuple[str, str, str] | None:
    """(field, what, fix) of the first text in ``data`` holding a control character (an ANSI escape in a
    note reaches a terminal), or of a version-like value YAML read as a float (``0.10`` as 0.1)."""
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        where, value = stack.pop()
        items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        for key, item in items:
            at = f"{where}[{key}]" if isinstance(value, list) else f"{where}.{key}" if where else str(key)
            if isinstance(value, dict) and bad_text(str(key), one_line=True):
                message, fix = bad_text(str(key), one_line=True)
                return where or "(top)", f"the name {str(key)!r} {message}", fix
            if isinstance(item, str) and bad_text(item):
                return (at, *bad_text(item))
            if isinstance(item, float) and "version" in str(key).lower():
                raw = texts.get(at, repr(item))
                return at, f"YAML reads {raw} as the number {item!r}, not a version", f'quote it: {key}: "{raw}"'
            stack.append((at, item))
    return None


def bad_regex(value: str) -> Problem:
    """A pattern Python's ``re`` cannot compile."""
    try:
        re.compile(value)
    except re.error as exc:
        return f"not a valid regular expression: {exc}", "fix the pattern (Python re syntax; escape ( [ . * + ? with \\)"
    return None


def bad_module(value: str) -> Problem:
    """A dotted module name that cannot be imported by that name."""
    if MODULE.fullmatch(value):
        return None
    return f"{value!r} is not a module name", "write a dotted Python module name, e.g. sqlite3 or json.decoder"


def bad_sql_name(value: str) -> Problem:
    """A table name that is not a plain SQL identifier (``schema.table`` allowed)."""
    if SQL_NAME.fullmatch(value):
        return None
    return f"{value!r} is not a plain table name", "write letters, digits and _ (schema.table allowed)"


def file_row(path: Path | str) -> str:
    """The row name an invalid profile's error row gets: its file's stem when that is a safe name,
    else ``invalid-profile-<digest of the name>`` (a file named ``...yaml`` or ``\x1b[31m.yaml``)."""
    stem = Path(path).stem
    if bad_name(stem) is None:
        return stem
    return f"invalid-profile-{hashlib.sha256(Path(path).name.encode('utf-8', 'surrogateescape')).hexdigest()[:12]}"
