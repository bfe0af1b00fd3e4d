"""Renderings a search index, cache, log or UI applies to a value before an agent is served it.

``UNDOABLE``: name -> rendering (``str -> str``) the lifecycle judge must see through: the value it
serves is still that value (``Ber<b>lin</b>`` is ``Berlin``). ``OPAQUE``: encodings it is not expected
to undo (compressed or enciphered bytes in base64); a value served so may hide anywhere, so a query
holding one is NOT TESTED, never PASS. Every rendering is total: a value with nothing it applies to
(no digit run to group, no umlaut to spell out) comes back as it is, or only wrapped.

    >>> UNDOABLE["html_highlight_inside"]("Berlin"), UNDOABLE["thousands_comma"]("4242")
    ('Ber<b>lin</b>', '4,242')
    >>> UNDOABLE["python_bytes_repr"]("Zürich"), UNDOABLE["german_fold"]("Straße München")
    ("b'Z\\\\xc3\\\\xbcrich'", 'Strasse Muenchen')
"""

from __future__ import annotations

import base64
import hashlib
import html
import html.entities
import json
import re
import unicodedata
import zlib
from collections.abc import Callable
from urllib.parse import quote, quote_plus

from anyascii import anyascii

Rendering = Callable[[str], str]

_WORD = re.compile(r"\w+")
_DIGITS = re.compile(r"\d{4,}")


# ---- helpers -------------------------------------------------------------------------------------
def _per_word(split: Callable[[str, str], str]) -> Rendering:
    """Apply ``split(head, tail)`` to every word of two characters or more, cut in its middle."""
    def render(value: str) -> str:
        return _WORD.sub(lambda m: split(m.group()[:len(m.group()) // 2], m.group()[len(m.group()) // 2:])
                         if len(m.group()) > 1 else m.group(), value)
    return render


def _between(mark: str) -> Rendering:
    """``mark`` between every two characters of each word (invisible characters, letter spacing)."""
    return lambda value: _WORD.sub(lambda m: mark.join(m.group()), value)


def _per_char(table: Callable[[str], str | None]) -> Rendering:
    """Each character of the value's NFD form through ``table`` (None: kept), so a letter's marks stay
    on the styled letter (``é`` -> bold ``e`` + combining acute)."""
    return lambda value: "".join(table(c) or c for c in unicodedata.normalize("NFD", value))


def _styled(style: str) -> Rendering:
    """ASCII letters and digits as Unicode mathematical alphanumerics of ``style`` (``BOLD``, ...);
    the letters Unicode placed in Letterlike Symbols (double-struck ``C``, italic ``h``) from there."""
    def one(c: str) -> str | None:
        if not (c.isascii() and c.isalnum()):
            return None
        kind = "DIGIT " + unicodedata.name(c).split()[-1] if c.isdigit() else \
            ("CAPITAL " if c.isupper() else "SMALL ") + c.upper()
        for name in (f"MATHEMATICAL {style} {kind}", f"{style} {kind}",
                     "PLANCK CONSTANT" if (style, c) == ("ITALIC", "h") else ""):
            try:
                return unicodedata.lookup(name)
            except KeyError:
                continue
        return None
    return _per_char(one)


def _grouped(separator: str) -> Rendering:
    """Digit runs of four or more grouped by thousands with ``separator``."""
    return lambda value: _DIGITS.sub(lambda m: f"{int(m.group()):,}".replace(",", separator)
                                     if not m.group().startswith("0") else m.group(), value)


def _escaped_chars(escape: Callable[[int], str]) -> Rendering:
    """Every non-ASCII character (and backslash and double quote) through ``escape(code point)``."""
    return lambda value: "".join(escape(ord(c)) if not c.isascii() or c in '\\"' else c for c in value)


def _utf16(code: int) -> str:
    """``\\uXXXX``, a surrogate pair above the BMP (as JSON and JavaScript write it)."""
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _js(code: int) -> str:
    return f"\\x{code:02x}" if code < 0x100 else _utf16(code)


def _named_entity(c: str) -> str:
    name = html.entities.codepoint2name.get(ord(c))
    return f"&{name};" if name else html.escape(c)


def _turkish_upper(value: str) -> str:
    return value.replace("i", "İ").replace("ı", "I").upper()


def _turkish_lower(value: str) -> str:
    return value.replace("I", "ı").replace("İ", "i").lower()


_GERMAN = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue", "ß": "ss", "ẞ": "SS"})
_SMALL_CAPS = dict(zip("abcdefghijklmnopqrstuvwyz", "ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘꞯʀꜱᴛᴜᴠᴡʏᴢ"))
#: Latin letters and the Cyrillic or Greek letters drawn the same (Unicode's confusables).
_CYRILLIC = dict(zip("aceopxyijsdhABEKMHOPCTX", "асеорхуіјѕԁһАВЕКМНОРСТХ"))
_GREEK = dict(zip("oivABEZHIKMNOPTYX", "οινΑΒΕΖΗΙΚΜΝΟΡΤΥΧ"))
_CIRCLED_DIGITS = "⓪①②③④⑤⑥⑦⑧⑨"
_SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>])")


def _circled(c: str) -> str | None:
    if c.isascii() and c.isalpha():
        return chr((0x24B6 if c.isupper() else 0x24D0) + ord(c.lower()) - ord("a"))
    return _CIRCLED_DIGITS[int(c)] if c.isascii() and c.isdigit() else None


# ---- the catalogue -------------------------------------------------------------------------------
UNDOABLE: dict[str, Rendering] = {
    # HTML: a search hit highlighted, entities, double escaping, comments a template left inside a word
    "html_highlight_word": lambda v: " ".join(f"<em>{html.escape(w)}</em>" for w in v.split(" ")),
    "html_highlight_inside": _per_word(lambda a, b: f"{html.escape(a)}<b>{html.escape(b)}</b>"),
    "html_mark_span": lambda v: f'<span class="hit"><mark>{html.escape(v)}</mark></span>',
    "html_numeric_entities": lambda v: "".join(f"&#{ord(c)};" for c in v),
    "html_hex_entities": lambda v: "".join(f"&#x{ord(c):X};" for c in v),
    "html_named_entities": lambda v: "".join(_named_entity(c) for c in v),
    "html_double_escaped": lambda v: html.escape("".join(f"&#{ord(c)};" for c in v)),
    "html_comment_inside": _per_word(lambda a, b: f"{html.escape(a)}<!-- hl -->{html.escape(b)}"),
    # markdown: emphasis inside a word, a link, backslash escapes
    "markdown_bold_inside": _per_word(lambda a, b: f"{a}**{b}**"),
    "markdown_italic_inside": _per_word(lambda a, b: f"*{a}*{b}"),
    "markdown_link": lambda v: f"[{v}](https://memlab.example/search?q={quote_plus(v)})",
    "markdown_escaped": lambda v: _MARKDOWN_SPECIAL.sub(r"\\\1", v),
    # terminal: SGR colour around and inside words, 256 colours, 8-bit CSI, OSC 8 hyperlinks
    "ansi_sgr_around": lambda v: f"\x1b[1;31m{v}\x1b[0m",
    "ansi_sgr_inside": _per_word(lambda a, b: f"{a}\x1b[4m{b}\x1b[24m"),
    "ansi_256_colour": lambda v: f"\x1b[38;5;196m{v}\x1b[39m",
    "csi_8bit": lambda v: f"\x9b7m{v}\x9b27m",
    "osc8_hyperlink": lambda v: f"\x1b]8;;https://memlab.example/{quote(v)}\x1b\\{v}\x1b]8;;\x1b\\",
    # URLs
    "percent_quote": lambda v: quote(v, safe=""),
    "percent_quote_plus": quote_plus,
    "percent_double": lambda v: quote(quote(v, safe=""), safe=""),
    # string escapes of a JSON document, a JavaScript literal, Python's reprs in a log
    "json_ensure_ascii": json.dumps,
    "js_hex_escapes": _escaped_chars(_js),
    "python_bytes_repr": lambda v: repr(v.encode("utf-8")),
    "python_ascii_repr": ascii,
    # folding as search engines do it, case
    "ascii_fold": anyascii,
    "german_fold": lambda v: anyascii(v.translate(_GERMAN)),
    "upper": str.upper,
    "lower": str.lower,
    "title": str.title,
    "turkish_upper": _turkish_upper,
    "turkish_lower": _turkish_lower,
    # compatibility forms NFKC folds, and lookalikes it does not
    "fullwidth": _per_char(lambda c: chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else "\u3000" if c == " " else None),
    "math_bold": _styled("BOLD"),
    "math_italic": _styled("ITALIC"),
    "math_double_struck": _styled("DOUBLE-STRUCK"),
    "circled": _per_char(_circled),
    "superscript_digits": _per_char(lambda c: _SUPERSCRIPTS[int(c)] if c.isascii() and c.isdigit() else None),
    "small_caps": _per_char(lambda c: _SMALL_CAPS.get(c.lower()) if c.isascii() else None),
    "homoglyphs_cyrillic": lambda v: "".join(_CYRILLIC.get(c, c) for c in v),
    "homoglyphs_greek": lambda v: "".join(_GREEK.get(c, c) for c in v),
    # invisible characters inside words
    "bidi_marks": _between("\u200f"),
    "bidi_isolates": lambda v: _WORD.sub(lambda m: "".join(f"\u2066{c}\u2069" for c in m.group()), v),
    "zero_width_space": _between("\u200b"),
    "zero_width_joiner": _between("\u200d"),
    "word_joiner_bom": _per_word(lambda a, b: f"{a}\u2060\ufeff{b}"),
    "soft_hyphens": _per_word(lambda a, b: f"{a}\u00ad{b}"),
    # layout
    "letter_spacing": _between(" "),
    "hyphenated_line_break": _per_word(lambda a, b: f"{a}-\n{b}"),
    "thousands_comma": _grouped(","),
    "thousands_space": _grouped(" "),
    "thousands_narrow_space": _grouped("\u202f"),
    "thousands_dot": _grouped("."),
    "thousands_apostrophe": _grouped("\u2019"),
    "typographic_quotes": lambda v: "\u201c" + v.replace("'", "\u2019").replace('"', "\u201d") + "\u201d",
    "modifier_apostrophe": lambda v: v.replace("'", "\u02bc"),
    "strike_through_overlay": lambda v: "".join(c + "\u0336" if c.isalnum() else c for c in v),
    "nfd": lambda v: unicodedata.normalize("NFD", v),
}


def _keystream(nonce: bytes, size: int) -> bytes:
    blocks = (hashlib.sha256(nonce + i.to_bytes(4, "big")).digest() for i in range(size // 32 + 1))
    return b"".join(blocks)[:size]


def _enciphered(value: str) -> str:
    """A field enciphered at rest: a 12-byte nonce, the UTF-8 bytes XOR-ed with a keystream, a 16-byte tag."""
    raw = value.encode("utf-8")
    nonce = hashlib.sha256(b"nonce" + raw).digest()[:12]
    body = bytes(a ^ b for a, b in zip(raw, _keystream(nonce, len(raw))))
    return base64.b64encode(nonce + body + hashlib.sha256(body).digest()[:16]).decode()


OPAQUE: dict[str, Rendering] = {
    "base64_zlib": lambda v: base64.b64encode(zlib.compress(v.encode("utf-8"))).decode(),
    "base64_xor_keystream": _enciphered,
    "base64_xor_byte": lambda v: base64.b64encode(bytes(b ^ 0x5A for b in v.encode("utf-8"))).decode(),
}
