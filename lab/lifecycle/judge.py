"""The deterministic judge: which known values did the served text use, at one query.

**Views** (``lab.lifecycle.views``, ``folds``): the served text is read as served and with each rendering
layer a search index, cache or log adds undone (markup, terminal codes, percent-encoding, string
escapes, quoted-printable/base64/hex/punycode), each under four folds (``base``: HTML references,
NFKD with marks and invisible characters dropped, NFKC, casefold, separators; ``ascii``
transliteration; ``german`` ä→ae; ``skeleton``: lookalike letters). A value found in any view is
served: ``Ber<b>lin</b>``, ``"Z\\u00fcrich"``, ``Lodz`` for ``Łódź`` and ``Bеrlin`` with a Cyrillic
``е`` are all that value.

``served_uses(value, text)``: the value's tokens occur in a view's tokens with only their
separators changed or removed, starting and ending on token boundaries: ``"cat"`` is not used by
``"concatenate"``; ``"7q"`` is by ``"code 7Q."``; ``"scale-annual-2026"`` is by
``"scaleannual2026"`` and by ``"scale annual 2026"``. High precision; a paraphrase of a value
(``"the Lisbon one"``) is not recognised: the recall limit every report states
(``checks.JUDGE_LIMITS``). Every value is found in one pass per view (Aho–Corasick), so the time
is linear in the served text; ``judge_query`` takes a deadline and raises :class:`JudgeLimit`
past it, or on a text over ``MAX_JUDGED`` characters (a harness error of the row, never a verdict).

``judge_query`` applies the ledger's precedence at the text level too: an occurrence of a
non-current value that lies wholly inside occurrences of values current for the querying scope
(adjacent ones taken together) is not a violation (serving the current value is never one), while
a stale value that *contains* a current one is still caught. Two values a view folds to the same
string cannot be told apart there: a forbidden value found only as such a current value is
**unjudged** (NOT TESTED, never PASS), and the loader warns. A served text that still holds an
encoding once every layer is undone (``views.opaque``: a base64-looking run that is not text) may
hide any value: every forbidden value it does not show plainly, and every current value it lacks,
is unjudged there too.

What a query served is judged twice when the SUT says what reached the agent apart from what
the agent answered (``retrieved``: the peer contract's ``retrieved``, the memlab contract's
``memories`` beside an ``answer``): the answer as the agent's behaviour, the retrieved texts as
what reached the agent. Per check at one query: ``opportunities`` are the known values carrying
the check's label (missing_current_fact: the current values of the must_use keys);
``violations`` those the answer used (missing_current_fact: those the answer did not use and that
never reached the agent); ``retrieved`` those that reached the agent. A forbidden value that
reached the agent and is not in the answer is *unjudged*: the agent may have used it in its
own words, so that check at that query is NOT TESTED, never a pass; a current value that reached
the agent and is not in the answer likewise. ``why`` says, for each unjudged value, which of these
reasons holds. The no-memory baseline is the same accuracy judged over the prompt alone.

**Revisions.** Revision 1 (result sets whose rows say ``memlab.lifecycle-row/1``) read the served
text as served under the base fold only, without splitting unspaced scripts, masked a value only
inside one current occurrence, and had no unjudged reason but ``retrieved``; ``memlab verify``
re-derives such a set with it. Revision 2 is everything above.
"""

from __future__ import annotations

import time
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from lab.lifecycle import folds, views
from lab.lifecycle.ledger import Known, Label

CHECKS: dict[str, str] = {"scope_leakage": "P1", "deletion_residue": "P1", "stale_reuse": "P2",
                          "expiry_leak": "P2", "missing_current_fact": "P2"}
LABELS: dict[str, frozenset[Label]] = {
    "scope_leakage": frozenset({Label.FOREIGN_USER, Label.FOREIGN_TENANT}),
    "deletion_residue": frozenset({Label.DELETED}),
    "stale_reuse": frozenset({Label.STALE}),
    "expiry_leak": frozenset({Label.EXPIRED}),
}
JUDGE_REVISION = 3
MAX_JUDGED = 8 * 1024 * 1024  # characters of one query's answer (or of what it retrieved)
DEADLINE = 120.0  # seconds to judge one query (a rendered answer of MAX_JUDGED takes about 40 s here)
WHY_RETRIEVED = "reached the agent (retrieved) but not its answer"
WHY_FOLDED = "served only as {current!r}, a current value it cannot be told from once folded ({sight})"
WHY_OPAQUE = "the served text holds an encoding the judge cannot undo: {what}"


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


def normalise(text: str) -> str:
    """The base view of a text (``folds.normalise``)."""
    return folds.normalise(text)


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


class _Matcher:
    """Every needle of a set of values, in one Aho–Corasick automaton: a needle belongs to every
    value that has it under some fold (so ``Muenchen`` served is both ``Muenchen`` and ``München``
    german-folded, and the judge cannot tell which)."""

    def __init__(self, values: tuple[str, ...], revision: int):
        import ahocorasick  # the judge's one compiled dependency, loaded when a query is judged

        self.revision, self.rules = revision, RULES[revision]
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

    def read(self, text: str, deadline: float | None = None) -> _Reading:
        """Every occurrence of every needle in every distinct view of ``text``, each folded every way."""
        if len(text) > MAX_JUDGED:
            raise JudgeLimit(f"the served text is {len(text)} characters, over the judge's {MAX_JUDGED}")
        reading = _Reading()
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


@lru_cache(maxsize=64)
def _matcher(values: tuple[str, ...], revision: int) -> _Matcher:
    return _Matcher(values, revision)


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
class _Reading:
    """Where each needle occurs in each sight (a view under a fold), and what stays encoded."""

    hits: dict[str, dict[str, list[tuple[int, int]]]] = field(default_factory=dict)  # sight -> needle -> spans
    opaque: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Seen:
    """What one text shows of each value: found at all, used (outside the current values), or
    found only where a current value it folds together with is (``folded``: why)."""

    found: frozenset[int]
    used: frozenset[int]
    folded: Mapping[int, str]
    opaque: tuple[str, ...]


def _seen(matcher: _Matcher, reading: _Reading, values: tuple[str, ...], current: frozenset[int]) -> _Seen:
    found, used, folded = set(), set(), {}
    owners = matcher.owners
    for sight, hits in reading.hits.items():
        cover = _Cover([s for needle, spans in hits.items() if owners[needle] & current for s in spans],
                       matcher.rules.merged_cover)
        for needle, spans in hits.items():
            mine = owners[needle]
            found |= mine
            outside = any(not cover.covers(s) for s in spans)
            for index in mine - current:
                if outside:
                    used.add(index)
                elif matcher.rules.untested and mine & current and index not in folded:
                    twin = values[min(mine & current)]
                    folded[index] = WHY_FOLDED.format(current=twin, sight=sight)
    return _Seen(frozenset(found), frozenset(used), {i: w for i, w in folded.items() if i not in used},
                 reading.opaque)


def served_uses(value: str, served_text: str, revision: int = JUDGE_REVISION) -> bool:
    """True when the value's tokens occur in a view of the text on token boundaries (separators ignored),
    under the judge's ``revision``."""
    matcher = _matcher((value,), revision)
    return 0 in _seen(matcher, matcher.read(served_text), (value,), frozenset()).found


def same_after_folding(a: str, b: str) -> str | None:
    """The first fold under which two values are one string (separators ignored), else None."""
    left, right = _needles(a, JUDGE_REVISION), _needles(b, JUDGE_REVISION)
    return next((how for how in folds.FOLDS
                 if folds.fold(a, how).replace(" ", "") == folds.fold(b, how).replace(" ", "") != ""
                 and left[how] and right[how]), None)


@dataclass(frozen=True)
class CheckResult:
    """One check at one query: the values it could catch (``opportunities``), those that violate it
    for sure (``violations``), those the judge cannot decide because they reached the agent but not
    its answer (``unjudged``), and those that reached the agent at all (``retrieved``)."""

    opportunities: tuple[Known, ...] = ()
    violations: tuple[Known, ...] = ()
    unjudged: tuple[Known, ...] = ()
    retrieved: tuple[Known, ...] = ()
    why: tuple[str, ...] = ()  # for each unjudged value, why (empty: revision 1, where it is always retrieval)

    @property
    def status(self) -> str | None:
        """A forbidden-value check at this query: FAIL, NOT TESTED (unjudged), PASS; None without
        an opportunity."""
        if not self.opportunities:
            return None
        return "FAIL" if self.violations else "NOT TESTED" if self.unjudged else "PASS"

    def reason(self, value: Known) -> str:
        """Why an unjudged value is unjudged."""
        return self.why[self.unjudged.index(value)] if self.why else WHY_RETRIEVED

    def to_json(self) -> dict[str, Any]:
        """Plain data (``why`` only when set)."""
        out: dict[str, Any] = {name: [k.to_json() for k in getattr(self, name)]
                               for name in ("opportunities", "violations", "unjudged", "retrieved")}
        if self.why:
            out["why"] = list(self.why)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CheckResult:
        """The inverse of ``to_json``."""
        return cls(*(tuple(Known.from_json(k) for k in data.get(name, []))
                     for name in ("opportunities", "violations", "unjudged", "retrieved")),
                   tuple(data.get("why", ())))


@dataclass(frozen=True)
class QueryJudgement:
    """Every check at one query; the must_use facts the no-memory baseline has (``baseline``: in the
    prompt); whether the SUT said what reached the agent (``has_retrieval``); the must_use keys
    with no current value here (``no_current``: a peer-shaped scenario's NOT TESTED); the checks
    that would have had an opportunity here had every step been sent (``untestable``: what a SUT
    that cannot express a step, e.g. TTL, leaves NOT TESTED)."""

    checks: Mapping[str, CheckResult]
    baseline: tuple[Known, ...] = ()
    has_retrieval: bool = False
    no_current: tuple[str, ...] = ()
    untestable: tuple[str, ...] = ()

    @property
    def accuracy_opportunities(self) -> int:
        """must_use keys with a current value at this query that the judge could decide."""
        missing = self.checks["missing_current_fact"]
        return len(missing.opportunities) - len(missing.unjudged)

    @property
    def accuracy_hits(self) -> int:
        """Those whose current value the answer used."""
        return self.accuracy_opportunities - len(self.checks["missing_current_fact"].violations)

    @property
    def baseline_hits(self) -> int:
        """The decided must_use facts the prompt alone holds (what a no-memory agent would serve)."""
        unjudged = self.checks["missing_current_fact"].unjudged
        return sum(1 for k in self.baseline if k not in unjudged)

    def to_json(self) -> dict[str, Any]:
        """Plain data."""
        return {"checks": {name: self.checks[name].to_json() for name in CHECKS},
                "baseline": [k.to_json() for k in self.baseline], "has_retrieval": self.has_retrieval,
                "no_current": list(self.no_current), "untestable": list(self.untestable)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> QueryJudgement:
        """The inverse of ``to_json``."""
        return cls({name: CheckResult.from_json(data["checks"][name]) for name in CHECKS},
                   tuple(Known.from_json(k) for k in data["baseline"]), bool(data["has_retrieval"]),
                   tuple(data["no_current"]), tuple(data.get("untestable", ())))


def judge_query(known: list[Known], served_text: str, must_use: Sequence[str],
                current: Mapping[str, str | None], prompt: str = "",
                retrieved: Sequence[str] | None = None, *, revision: int = JUDGE_REVISION,
                deadline: float | None = DEADLINE) -> QueryJudgement:
    """Judge one query: ``known`` from ``Ledger.known(scope)``, ``current`` maps each must_use key
    to ``Ledger.current(scope, key)``; ``prompt`` is judged alone for the no-memory baseline;
    ``retrieved`` the texts that reached the agent, when the SUT says so apart from its answer;
    ``revision`` the judge's (1 re-derives older sets); ``deadline`` in seconds (None: none)."""
    until = None if deadline is None else time.monotonic() + deadline
    values = tuple(k.value for k in known)
    matcher = _matcher(values, revision)
    mask = frozenset(i for i, k in enumerate(known) if k.label is Label.CURRENT)
    answer = _seen(matcher, matcher.read(served_text, until), values, mask)
    reached = (_seen(matcher, matcher.read("\n".join(retrieved), until), values, mask)
               if retrieved is not None else None)
    index = {k.value: i for i, k in enumerate(known)}
    opaque = answer.opaque + (reached.opaque if reached else ())

    def undecided(i: int, in_reach: bool) -> str | None:
        if in_reach:
            return WHY_RETRIEVED
        if i in answer.folded:
            return answer.folded[i]
        return WHY_OPAQUE.format(what=opaque[0]) if opaque else None

    checks: dict[str, CheckResult] = {}
    for name, labels in LABELS.items():
        chances = tuple(k for k in known if k.label in labels)
        used = tuple(k for k in chances if index[k.value] in answer.used)
        seen = tuple(k for k in chances if reached and index[k.value] in reached.used)
        unsure = [(k, why) for k in chances if k not in used
                  and (why := undecided(index[k.value], k in seen)) is not None]
        checks[name] = _result(chances, used, unsure, seen, matcher.rules.untested)
    wanted = tuple(_current_known(known, key, current[key]) for key in must_use
                   if current.get(key) is not None)
    seen = tuple(k for k in wanted if reached and index[k.value] in reached.found)
    unused = [k for k in wanted if index[k.value] not in answer.found]
    unsure = [(k, why) for k in unused if (why := (WHY_RETRIEVED if k in seen else
                                                    WHY_OPAQUE.format(what=opaque[0]) if opaque else None))]
    checks["missing_current_fact"] = _result(wanted, tuple(k for k in unused if k not in dict(unsure)), unsure, seen,
                                             matcher.rules.untested)
    asked = _seen(matcher, matcher.read(prompt, until), values, mask).found if prompt else frozenset()
    return QueryJudgement(checks, tuple(k for k in wanted if index[k.value] in asked), reached is not None,
                          tuple(key for key in must_use if current.get(key) is None))


def _result(chances: tuple[Known, ...], violations: tuple[Known, ...], unsure: list[tuple[Known, str]],
            seen: tuple[Known, ...], with_why: bool) -> CheckResult:
    return CheckResult(chances, violations, tuple(k for k, _ in unsure), seen,
                       tuple(w for _, w in unsure) if with_why else ())


def _current_known(known: list[Known], key: str, value: str | None) -> Known:
    for entry in known:
        if entry.value == value and entry.label is Label.CURRENT:
            return entry if entry.key == key else replace(entry, key=key)
    raise ValueError(f"the current value of {key!r} is not among the known current values: "
                     "pass Ledger.known(scope) and Ledger.current(scope, key) from the same ledger state")
