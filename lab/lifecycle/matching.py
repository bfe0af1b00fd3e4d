"""Which known values a served text shows: the judge's reading, one revision's rules at a time.

``served_uses(value, text)``: the value's tokens occur in a view's tokens (``views``, read under
every fold: ``folds``) with only their separators changed or removed, starting and ending on token
boundaries: ``"cat"`` is not used by ``"concatenate"``; ``"7q"`` is by ``"code 7Q."``;
``"scale-annual-2026"`` is by ``"scaleannual2026"`` and by ``"scale annual 2026"``. High precision;
a paraphrase of a value (``"the Lisbon one"``) is not recognised: the recall limit every report
states (``checks.JUDGE_LIMITS``). Every value is found in one pass per view (Aho–Corasick), so the
time is linear in the served text; reading past a deadline, or a text over ``MAX_JUDGED``
characters, raises :class:`JudgeLimit` (a harness error of the row, never a verdict).

What a text shows (``Matcher.seen``) masks the values current for the querying scope: an occurrence
of another value wholly inside their occurrences is found, not used; where only such a current value
it folds together with is found, the value is ``folded`` (the judge leaves it unjudged), and a text
that stays encoded is ``opaque``.

**Revisions.** Revision 1 (result sets whose rows say ``memlab.lifecycle-row/1``) read the served
text as served under the base fold only, without splitting unspaced scripts, masked a value only
inside one current occurrence, and had no unjudged reason but ``retrieved``; ``memlab verify``
re-derives such a set with it. Revision 2 is the reading above; revision 3 reads as 2 does.
"""

from __future__ import annotations

import time
from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from lab.lifecycle import folds, views

JUDGE_REVISION = 3
MAX_JUDGED = 8 * 1024 * 1024  # characters of one query's answer (or of what it retrieved)
DEADLINE = 120.0  # seconds to judge one query (a rendered answer of MAX_JUDGED takes about 40 s here)
WHY_FOLDED = "served only as {current!r}, a current value it cannot be told from once folded ({sight})"


class JudgeLimit(Exception):
    """A query the judge could not read within its bounds (size, deadline): a harness error."""


@dataclass(frozen=True)
class Rules:
    """How one revision of the judge reads a served text."""

    views: bool  # rendering layers undone and every fold, or the text as served under the base fold
    split_unspaced: bool  # each character of Han, kana, Hangul, Thai ... its own token
    merged_cover: bool  # adjacent current occurrences cover together, or one at a time
    untested: bool  # folded-together and opaque values unjudged, or (revision 1) never


RULES = {1: Rules(False, False, False, False), 2: Rules(True, True, True, True),
         3: Rules(True, True, True, True)}  # 3: the same reading; scope leakage is the SUT's only (derive)


@lru_cache(maxsize=8192)
def _needles(value: str, revision: int) -> dict[str, frozenset[str]]:
    """fold -> the value's needles: its folded tokens run together, as written and (revision 2)
    with each layer undone, so a value holding ``%`` or ``&`` masks as the views render it."""
    rules = RULES[revision]
    if not rules.views:
        return {"base": frozenset({folds.normalise(value, False).replace(" ", "")}) - {""}}
    forms = {value} | {views.undo(value, (layer,)) for layer in views.LAYERS} | {views.undo(value, tuple(views.LAYERS))}
    return {how: frozenset(folds.fold(f, how, rules.split_unspaced).replace(" ", "") for f in forms) - {""}
            for how in folds.FOLDS}


class Matcher:
    """Every needle of a set of values, in one Aho–Corasick automaton: a needle belongs to every
    value that has it under some fold (so ``Muenchen`` served is both ``Muenchen`` and ``München``
    german-folded, and the judge cannot tell which)."""

    def __init__(self, values: tuple[str, ...], revision: int):
        import ahocorasick  # the judge's one compiled dependency, loaded when a query is judged

        self.values, self.revision, self.rules = values, revision, RULES[revision]
        self.owners: dict[str, set[int]] = {}  # needle -> value indices
        for index, value in enumerate(values):
            for needles in _needles(value, revision).values():
                for needle in needles:
                    self.owners.setdefault(needle, set()).add(index)
        self.automaton = ahocorasick.Automaton(ahocorasick.STORE_ANY, ahocorasick.KEY_STRING)
        for needle in self.owners:
            self.automaton.add_word(needle, needle)
        if self.owners:
            self.automaton.make_automaton()

    def read(self, text: str, deadline: float | None = None) -> Reading:
        """Every occurrence of every needle in every distinct view of ``text``, each folded every way."""
        if len(text) > MAX_JUDGED:
            raise JudgeLimit(f"the served text is {len(text)} characters, over the judge's {MAX_JUDGED}")
        reading = Reading()
        if not self.rules.views:
            sights = {folds.normalise(text, False): "as served, base"}
        else:
            sights, seen = {}, views.views(text)
            if self.rules.untested:
                reading.opaque = tuple(views.opaque([body for _, body in seen]))
            for view, body in seen:
                for how in folds.FOLDS if not body.isascii() else ("base",):  # ASCII: every fold the same
                    sights.setdefault(folds.fold(body, how), f"{view}, {how}")
                    _in_time(deadline)
        for normalised, sight in sights.items():
            reading.hits[sight] = _occurrences(normalised, self.automaton, deadline) if self.owners else {}
            _in_time(deadline)
        return reading

    def seen(self, text: str, current: frozenset[int], deadline: float | None = None) -> Seen:
        """What ``text`` shows of each value, the values at the indices ``current`` masking the others."""
        reading = self.read(text, deadline)
        found, used, folded = set(), set(), {}
        owners = self.owners
        for sight, hits in reading.hits.items():
            cover = _Cover([s for needle, spans in hits.items() if owners[needle] & current for s in spans],
                           self.rules.merged_cover)
            for needle, spans in hits.items():
                mine = owners[needle]
                found |= mine
                outside = any(not cover.covers(s) for s in spans)
                for index in mine - current:
                    if outside:
                        used.add(index)
                    elif self.rules.untested and mine & current and index not in folded:
                        twin = self.values[min(mine & current)]
                        folded[index] = WHY_FOLDED.format(current=twin, sight=sight)
        return Seen(frozenset(found), frozenset(used), {i: w for i, w in folded.items() if i not in used},
                    reading.opaque)


@lru_cache(maxsize=64)
def matcher_for(values: tuple[str, ...], revision: int) -> Matcher:
    """The matcher of these values under ``revision`` (the last few kept)."""
    return Matcher(values, revision)


def _in_time(deadline: float | None) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise JudgeLimit(f"judging one query took over its deadline ({DEADLINE:g} s)")


def _occurrences(normalised: str, automaton: Any, deadline: float | None) -> dict[str, list[tuple[int, int]]]:
    """needle -> its (start, end) in the tokens run together, on token boundaries only."""
    words = normalised.split(" ") if normalised else []
    joined = "".join(words)
    starts, ends = bytearray(len(joined) + 1), bytearray(len(joined) + 1)
    at = 0
    for word in words:
        starts[at] = 1
        at += len(word)
        ends[at] = 1
    found: dict[str, list[tuple[int, int]]] = {}
    for count, (last, needle) in enumerate(automaton.iter(joined)):
        first = last - len(needle) + 1
        if starts[first] and ends[last + 1]:
            found.setdefault(needle, []).append((first, last + 1))
        if not count & 0xFFFF:
            _in_time(deadline)
    return found


class _Cover:
    """The spans of the current values' occurrences: is a span wholly inside one (or, merged,
    inside a run of adjacent ones)?"""

    def __init__(self, spans: list[tuple[int, int]], merged: bool):
        spans.sort()
        if merged:
            runs: list[list[int]] = []
            for start, end in spans:
                if runs and start <= runs[-1][1]:
                    runs[-1][1] = max(runs[-1][1], end)
                else:
                    runs.append([start, end])
            spans = [(a, b) for a, b in runs]
        self.starts = [a for a, _ in spans]
        self.reach, furthest = [], -1
        for _, end in spans:
            furthest = max(furthest, end)
            self.reach.append(furthest)

    def covers(self, span: tuple[int, int]) -> bool:
        """Whether ``span`` lies inside a covering span."""
        at = bisect_right(self.starts, span[0]) - 1
        return at >= 0 and self.reach[at] >= span[1]


@dataclass
class Reading:
    """Where each needle occurs in each sight (a view under a fold), and what stays encoded."""

    hits: dict[str, dict[str, list[tuple[int, int]]]] = field(default_factory=dict)  # sight -> needle -> spans
    opaque: tuple[str, ...] = ()


@dataclass(frozen=True)
class Seen:
    """What one text shows of each value: found at all, used (outside the current values), or
    found only where a current value it folds together with is (``folded``: why)."""

    found: frozenset[int]
    used: frozenset[int]
    folded: Mapping[int, str]
    opaque: tuple[str, ...]


def served_uses(value: str, served_text: str, revision: int = JUDGE_REVISION) -> bool:
    """True when the value's tokens occur in a view of the text on token boundaries (separators ignored),
    under the judge's ``revision``."""
    return 0 in matcher_for((value,), revision).seen(served_text, frozenset()).found


def same_after_folding(a: str, b: str) -> str | None:
    """The first fold under which two values are one string (separators ignored), else None."""
    left, right = _needles(a, JUDGE_REVISION), _needles(b, JUDGE_REVISION)
    return next((how for how in folds.FOLDS
                 if folds.fold(a, how).replace(" ", "") == folds.fold(b, how).replace(" ", "") != ""
                 and left[how] and right[how]), None)
