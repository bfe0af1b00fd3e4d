"""How the judge sees served text: the layers a search index, cache, log or UI adds, undone.

A secondary path serves a value in its own rendering: highlighted (``Ber<b>lin</b>``), as a JSON
string (``"Z\\u00fcrich"``), percent-encoded, in colour. The judge matches every value against several
**views** of the served text. A view is the text with some **layers** undone, each applied again until
nothing changes (at most ``ROUNDS`` times); the judge then reads each view under every fold
(``folds``: ASCII-folded ``Lodz``, a lookalike letter as Cyrillic ``е`` in ``Bеrlin``). Layers, in
this order:

========  =====================================================================================
markup    HTML/XML comments and tags removed (block tags leave a space), entities unescaped
terminal  ANSI/VT escape sequences (CSI, OSC, 8-bit CSI), bare ``[31m`` remnants, C0/C1 controls
percent   ``%XX`` runs decoded (UTF-8, else Latin-1)
escapes   JSON/JS/Python string escapes: ``\\uXXXX`` (surrogate pairs), ``\\u{…}``, ``\\UXXXXXXXX``,
          ``\\xXX`` and octal byte runs (UTF-8, else Latin-1), ``\\n`` and the like, ``\\"``
encoded   quoted-printable ``=XX`` runs, base64 and hex runs that decode to text, punycode labels
========  =====================================================================================

The views are the text as served, each layer alone, and every layer together (to a fixed point).

``opaque(views)``: what is still encoded in any view — a base64-looking run (``=``-padded, or at
least ``OPAQUE_RUN`` characters of the standard alphabet mixing upper case, lower case and digits)
that does not decode to text. A value may hide inside it, so the judge says NOT TESTED there,
never PASS. Every function here is bounded: layers only shrink text, and none recurses.

    >>> views("Ber<b>lin</b> &amp;#66;")
    [('as served', 'Ber<b>lin</b> &amp;#66;'), ('all layers', 'Berlin B')]
"""

from __future__ import annotations

import base64
import binascii
import html
import re
from collections.abc import Callable
from urllib.parse import unquote_to_bytes

ROUNDS = 8  # a layer applied at most this many times (double, triple ... escaping)
OPAQUE_RUN = 16


# ---- layers --------------------------------------------------------------------------------------
def _text_of(raw: bytes) -> str:
    """Bytes as text: UTF-8, else Latin-1 (every byte a character)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


_COMMENT = re.compile(r"<!--.*?-->|<!\[CDATA\[|\]\]>", re.S)
_BLOCK_TAG = re.compile(r"</?(?:p|br|div|li|ul|ol|tr|td|th|table|h[1-6]|hr|blockquote|pre|section|article|"
                        r"header|footer|dd|dt|dl)\b[^<>]{0,1000}>", re.I)
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9:-]{0,40}(?:\s[^<>]{0,1000})?/?>")


def markup(text: str) -> str:
    """One round: comments and tags removed (block tags leave a space), entities unescaped."""
    return html.unescape(_TAG.sub("", _BLOCK_TAG.sub(" ", _COMMENT.sub("", text))))


_TERMINAL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]"  # CSI, 8-bit CSI
                       r"|[\x1b\x9d]\][^\x07\x1b\x9c]{0,4096}(?:\x07|\x1b\\|\x9c)?"  # OSC (hyperlinks, titles)
                       r"|\x1b[ -/]*[0-~]"  # two-character escapes
                       r"|\^\[\[[0-?]*[ -/]*[@-~]"  # caret notation
                       r"|\[(?:\d{1,3}(?:;\d{1,3}){0,15})?m"  # an SGR whose ESC was dropped
                       r"|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def terminal(text: str) -> str:
    """One round: terminal escape sequences and control characters removed."""
    return _TERMINAL.sub("", text)


_PERCENT = re.compile(r"(?:%[0-9A-Fa-f]{2})+")


def percent(text: str) -> str:
    """One round: ``%XX`` runs decoded (a form's ``+`` needs nothing: separators are ignored)."""
    return _PERCENT.sub(lambda m: _text_of(unquote_to_bytes(m.group())), text)


_ESCAPE = re.compile(r"(?P<u>(?:\\u[0-9a-fA-F]{4})+)|\\u\{(?P<cp>[0-9a-fA-F]{1,6})\}|\\U(?P<U>[0-9a-fA-F]{8})"
                     r"|(?P<x>(?:\\x[0-9a-fA-F]{2})+)|(?P<o>(?:\\[0-3][0-7]{2})+)|\\(?P<c>[nrtfvb0])|\\(?P<any>.)",
                     re.S)


def _unescape(match: re.Match[str]) -> str:
    if match["u"]:
        return bytes.fromhex(match["u"].replace("\\u", "")).decode("utf-16-be", "replace")
    if match["cp"] or match["U"]:
        code = int(match["cp"] or match["U"], 16)
        return chr(code) if code < 0x110000 else "\ufffd"
    if match["x"]:
        return _text_of(bytes.fromhex(match["x"].replace("\\x", "")))
    if match["o"]:
        return _text_of(bytes(int(o, 8) for o in match["o"].split("\\")[1:]))
    return " " if match["c"] else match["any"]


def escapes(text: str) -> str:
    """One round: string escapes decoded (left to right, so ``\\\\u0041`` is a backslash and
    ``u0041``)."""
    return _ESCAPE.sub(_unescape, text)


_QP = re.compile(r"=\r?\n|(?:=[0-9A-F]{2})+")
_B64 = re.compile(r"(?<![A-Za-z0-9+/_=-])(?:[A-Za-z0-9+/_-]{6,}={1,2}|[A-Za-z0-9+/_-]{8,})(?![A-Za-z0-9+/_=-])")
_HEX = re.compile(r"(?<![0-9A-Za-z])(?=[0-9]*[a-fA-F])(?:[0-9a-fA-F]{2}){6,}(?![0-9A-Za-z])")
_PUNY = re.compile(r"(?i)\bxn--[a-z0-9-]{1,59}")


def _readable(raw: bytes) -> str | None:
    """Decoded bytes that read as text (UTF-8, at least 3 characters, nine in ten printable), else None."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    shown = sum(1 for c in text if c.isprintable() or c in "\n\t")
    return text if len(text) >= 3 and shown * 10 >= len(text) * 9 else None


def base64_text(run: str) -> str | None:
    """A base64 run's decoded text, when it decodes to readable text (else None)."""
    body = run.rstrip("=")
    word = body == run and (body.isalpha() and (body.islower() or body.isupper()) or body.isdigit())
    if len(body) % 4 == 1 or word:  # unpadded, one case or digits only: a word or a number
        return None
    padded = body + "=" * (-len(body) % 4)
    try:
        raw = (base64.urlsafe_b64decode(padded) if ("-" in body or "_" in body)
               else base64.b64decode(padded, validate=True))
    except (binascii.Error, ValueError):
        return None
    return _readable(raw)


def _punycode(label: str) -> str:
    try:
        return label.encode("ascii").decode("idna")
    except (UnicodeError, ValueError):
        return label


def encoded(text: str) -> str:
    """One round: quoted-printable, base64 and hex runs that decode to text, punycode labels."""
    text = _QP.sub(lambda m: "" if m.group().startswith("=\n") or m.group().startswith("=\r")
                   else _text_of(bytes.fromhex(m.group().replace("=", ""))), text)
    text = _B64.sub(lambda m: f" {t} " if (t := base64_text(m.group())) is not None else m.group(), text)
    text = _HEX.sub(lambda m: f" {t} " if (t := _readable(bytes.fromhex(m.group()))) is not None else m.group(),
                    text)
    return _PUNY.sub(lambda m: _punycode(m.group()), text)


LAYERS: dict[str, Callable[[str], str]] = {"markup": markup, "terminal": terminal, "percent": percent,
                                           "escapes": escapes, "encoded": encoded}
#: A layer is tried only when its text holds one of these (most answers hold none: one view).
_HINTS = {"markup": re.compile(r"[<&]"),
          "terminal": re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]|\[\d{0,3}(?:;\d{1,3})*m"),
          "percent": re.compile(r"%[0-9A-Fa-f]{2}"), "escapes": re.compile(r"\\"),
          "encoded": re.compile(r"=[0-9A-F]{2}|=\r?\n|[A-Za-z0-9+/_-]{8}|(?i:xn--)")}


def undo(text: str, layers: tuple[str, ...]) -> str:
    """``layers`` applied in turn, again and again, until the text stops changing (``ROUNDS`` at most)."""
    for _ in range(ROUNDS):
        before = text
        for name in layers:
            text = LAYERS[name](text)
        if text == before:
            break
    return text


def views(text: str) -> list[tuple[str, str]]:
    """(name, text) of every distinct view: as served, each layer alone where it applies, all
    together (always the last)."""
    found = {text: "as served"}
    applies = tuple(name for name in LAYERS if _HINTS[name].search(text))
    for name in applies:
        found.setdefault(undo(text, (name,)), name)
    undone = undo(text, tuple(LAYERS)) if applies else text
    found.pop(undone, None)
    found[undone] = "all layers" if undone != text else "as served"
    return [(name, body) for body, name in found.items()]


def opaque(texts: list[str]) -> list[str]:
    """What stays encoded in a text, looked for in each of its views: every base64-looking run that
    does not decode to text, as a short description (at most 5). Base64-looking: padded with ``=``,
    at least 8 characters and two of upper case, lower case and digits; or at least ``OPAQUE_RUN``
    characters of the standard alphabet with both cases and a digit (or a third of them upper case)."""
    out: dict[str, None] = {}
    for text in texts:
        for match in _B64.finditer(text):
            run = match.group()
            body = run.rstrip("=")
            if "-" in body or "_" in body or not _looks_encoded(body, padded=run != body):
                continue
            if base64_text(run) is None:
                out[f"a base64-looking run of {len(run)} characters ({run[:12]}…) that does not decode to text"] = None
                if len(out) == 5:
                    return list(out)
    return list(out)


def _looks_encoded(body: str, padded: bool) -> bool:
    """Random bytes in base64 mix cases throughout; a word, even a long camelCase one, rarely does."""
    upper, lower = sum(c.isupper() for c in body), sum(c.islower() for c in body)
    other = any(c.isdigit() or c in "+/" for c in body)
    if padded:
        return (upper > 0) + (lower > 0) + other >= 2
    return len(body) >= OPAQUE_RUN and upper > 0 and lower > 0 and (other or upper * 3 >= len(body))
