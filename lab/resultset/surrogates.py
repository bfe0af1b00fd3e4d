"""Lone surrogates: the one kind of string JSON can carry (``"\\ud800"``) that is not Unicode text. UTF-8
cannot encode it and RFC 8785 cannot canonicalize it, so a row holding one could be written but never
digested, printed or verified. What memlab writes holds none (:func:`replace_lone` shows each as its
escape, ``\\ud800``, as text); what it reads strictly is refused when it holds one (:func:`has_lone`).

    >>> replace_lone({"text": "a\\ud800b", "ok": "\\U0001F600"})
    {'text': 'a\\\\ud800b', 'ok': '😀'}
    >>> has_lone(["x", {"k\\udfff": 1}]), has_lone("\\U0001F600")
    (True, False)
"""

from __future__ import annotations

import re
from typing import Any

_LONE = re.compile("[\ud800-\udfff]")
#: A surrogate written as a JSON escape: only then can a parsed file hold a lone one.
ESCAPED = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _shown(match: re.Match) -> str:
    return f"\\u{ord(match.group()):04x}"


def replace_lone(value: Any) -> Any:
    """``value`` (parsed JSON) with every lone surrogate in a string or a key shown as its escape text."""
    if isinstance(value, str):
        return _LONE.sub(_shown, value)
    if isinstance(value, list):
        return [replace_lone(v) for v in value]
    if isinstance(value, dict):
        return {replace_lone(k): replace_lone(v) for k, v in value.items()}
    return value


def has_lone(value: Any) -> bool:
    """Whether ``value`` (parsed JSON) holds a lone surrogate in a string or a key."""
    if isinstance(value, str):
        return bool(_LONE.search(value))
    if isinstance(value, list):
        return any(has_lone(v) for v in value)
    if isinstance(value, dict):
        return any(has_lone(k) or has_lone(v) for k, v in value.items())
    return False
