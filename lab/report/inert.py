"""Text from outside made inert before it is printed or written into a report.

A driver's message, a profile's text, a shim's answer, a scenario's op or any string read from a
result set may hold control characters (``ESC ]52`` writes a terminal's clipboard, CR and LF
forge whole lines), invisible or direction-changing ones (zero-width spaces, U+202E), lone
surrogates (which crash an encoder), or text that rich would take for markup (``[/x]`` crashes
it, ``[link=...]`` hides a link). :func:`inert` shows every character that is not printable as
its escape (``\\x1b``, ``\\n``, ``\\u200b``), as ``repr`` would, and, for a rich console, escapes
markup. Markdown and JUnit add their own escaping to its ``markup=False`` form.

    >>> inert("ok [/x] \\x1b]52;c;aGk=\\x07\\r\\nFAKE PASS")
    'ok \\\\[/x] \\\\x1b]52;c;aGk=\\\\x07\\\\r\\\\nFAKE PASS'
    >>> inert("zero\\u200bwidth [b]", markup=False)
    'zero\\\\u200bwidth [b]'
"""

from __future__ import annotations

from typing import Any

from rich.markup import escape

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _shown(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def inert(text: Any, markup: bool = True, lines: bool = False) -> str:
    """``text`` (made a string) with every non-printable character shown as its escape and, unless
    ``markup`` is False, rich markup escaped: safe to print on a terminal or a rich console.
    ``lines``: line feeds stay line breaks (a message of several lines; CR is still shown)."""
    text = str(text)
    if lines:
        return "\n".join(inert(line, markup) for line in text.split("\n"))
    if not text.isprintable():
        text = "".join(c if c.isprintable() else _shown(c) for c in text)
    return escape(text) if markup else text
