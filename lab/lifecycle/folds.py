"""The folds under which two renderings of one value are the same string, and the normalisation
every fold ends in: how the judge reads a text once its rendering layers are undone (``views``).

Four **folds**: ``base`` (HTML references decoded once; NFKD with combining marks, format characters
and fillers dropped; NFKC; casefold; every run of non-letters/digits one space; each character of a
script written without spaces — Han, kana, Hangul, Thai … — its own token), ``ascii`` (non-ASCII
characters transliterated with ``anyascii``, as search engines fold), ``german`` (ä ö ü as ae oe ue
first) and ``skeleton`` (a non-ASCII character that Unicode lists as confusable with an ASCII letter
or digit becomes that letter: Unicode TR39's confusables, from the ``confusable_homoglyphs`` package;
ASCII itself is never remapped, so ``rn`` stays ``rn``). A fold grows a text by a bounded factor.

    >>> fold("Łódź Ærø Diyarbakır", "ascii"), fold("München", "german"), fold("Bеrlin", "skeleton")
    ('lodz aero diyarbakir', 'muenchen', 'berlin')
    >>> fold("東京オフィス", "base")
    '東 京 オ フ ィ ス'
"""

from __future__ import annotations

import html
import json
import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

FOLDS = ("base", "ascii", "german", "skeleton")

# ---- normalisation (the base fold) -------------------------------------------------------------
_NOT_WORD = re.compile(r"[\W_]+")
_DROP_CATEGORIES = frozenset({"Mn", "Me", "Cf"})  # combining marks, format characters (invisible)
_FILLERS = frozenset("\u115f\u1160\u3164\uffa0\u034f")  # default-ignorable letters and joiners
#: Scripts written without spaces between words: each character is a token of its own.
_UNSPACED = re.compile("([\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3100-\u312f\u3400-\u4dbf"
                       "\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f])")


def normalise(text: str, split_unspaced: bool = True) -> str:
    """HTML references decoded; marks, format characters and fillers dropped; NFKC; casefold;
    every run of non-letters/digits to one space, trimmed; unspaced scripts one token a character
    (``split_unspaced=False``: as the first revision of the judge, which did not split them)."""
    text = html.unescape(text)
    if text.isascii():  # the same as below, only faster: nothing to decompose, drop or compose
        return _NOT_WORD.sub(" ", text.lower()).strip()
    decomposed = unicodedata.normalize("NFKD", text)
    kept = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", decomposed.translate(_INVISIBLE)).casefold())
    if split_unspaced:
        kept = _UNSPACED.sub(r" \1 ", kept)
    return _NOT_WORD.sub(" ", kept).strip()


# ---- folds ---------------------------------------------------------------------------------------
class _Table(dict):
    """A ``str.translate`` table filled on first use of each character (the tables are large)."""

    def __init__(self, one: Callable[[str], str]):
        super().__init__()
        self.one = one

    def __missing__(self, code: int) -> str:
        self[code] = self.one(chr(code))
        return self[code]


def _visible(char: str) -> str:
    return "" if unicodedata.category(char) in _DROP_CATEGORIES or char in _FILLERS else char


def _ascii_of(char: str) -> str:
    from anyascii import anyascii  # imported on first non-ASCII text: most answers never need it
    out = anyascii(char)
    return f" {out} " if _UNSPACED.match(char) else out


_INVISIBLE = _Table(_visible)
_GERMAN = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue"})
_ASCII = _Table(lambda c: c if c.isascii() else _ascii_of(c))
_SKELETON = _Table(lambda c: c if c.isascii() else _confusables().get(c, c))


@lru_cache(maxsize=1)
def _confusables() -> dict[str, str]:
    """Non-ASCII character -> the ASCII letter or digit it is confusable with, from the data file
    ``confusable_homoglyphs`` ships (Unicode's confusables as a graph). Among the ASCII characters
    of its group, its own transliteration if that is one (Greek ``Ι`` is ``I``), else the nearest."""
    import confusable_homoglyphs.confusables as source

    graph = json.loads((Path(source.__file__).parent / "confusables.json").read_text(encoding="utf-8"))
    neighbours: dict[str, set[str]] = {}
    for char, glyphs in graph.items():
        for glyph in glyphs:
            other = glyph["c"].strip("\u200e")
            if len(char) == 1 and len(other) == 1:
                neighbours.setdefault(char, set()).add(other)
                neighbours.setdefault(other, set()).add(char)
    nearest: dict[str, str] = {}
    group: dict[str, set[str]] = {}  # char -> the ASCII letters and digits of its connected group
    frontier = sorted(c for c in neighbours if c.isascii() and c.isalnum())
    for ascii_char in frontier:
        nearest[ascii_char] = ascii_char
    while frontier:  # breadth first from every ASCII letter and digit: the nearest one wins
        nxt = []
        for char in frontier:
            for other in sorted(neighbours[char]):
                if other not in nearest:
                    nearest[other] = nearest[char]
                    nxt.append(other)
        frontier = nxt
    for start in nearest:
        if start in group:
            continue
        members, todo = {start}, [start]
        while todo:
            for other in neighbours.get(todo.pop(), ()):
                if other not in members:
                    members.add(other)
                    todo.append(other)
        found = {c for c in members if c.isascii() and c.isalnum()}
        for char in members:
            group[char] = found
    out = {}
    for char, target in nearest.items():
        if not char.isascii():
            own = _ascii_of(char).strip()
            out[char] = own if own in group[char] else target
    return out


def fold(text: str, how: str, split_unspaced: bool = True) -> str:
    """``text`` folded (``FOLDS``) and normalised."""
    if how != "base" and text.isascii():
        return normalise(text, split_unspaced)
    if how in ("ascii", "german"):
        text = unicodedata.normalize("NFC", text)
        if how == "german":
            text = text.translate(_GERMAN)
        text = unicodedata.normalize("NFKC", text).translate(_ASCII)
    elif how == "skeleton":
        text = unicodedata.normalize("NFC", text).translate(_SKELETON)
    elif how != "base":
        raise ValueError(f"unknown fold {how!r}; use one of {FOLDS}")
    return normalise(text, split_unspaced)
