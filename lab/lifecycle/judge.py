"""The deterministic judge: which known values did the served text use, at one query.

``normalise``: HTML character references decoded; Unicode NFKD with every combining mark, format
character (soft hyphen, zero-width space and joiners, word joiner, bidi marks, BOM, tag
characters …) and filler dropped; NFKC (compatibility forms: full-width, ligatures,
superscripts …); casefold; every run of characters that are not letters or digits (whitespace,
punctuation, symbols, ``_``) becomes one space, trimmed. So ``"Teal-Falcon_7Q!"``,
``"teal\u00adfalcon 7q"`` and ``"ＴＥＡＬ ＦＡＬＣＯＮ 7Ｑ"`` are the same token string: a value
served with invisible characters between its letters is still that value.

``served_uses(value, text)``: the value's tokens occur in the text's tokens with only their
separators changed or removed, starting and ending on token boundaries: ``"cat"`` is not used by
``"concatenate"``; ``"7q"`` is by ``"code 7Q."``; ``"scale-annual-2026"`` is by
``"scaleannual2026"`` and by ``"scale annual 2026"``. High precision; a paraphrase of a value
(``"the Lisbon one"``) is not recognised: the recall limit every report states
(``checks.JUDGE_LIMITS``).

``judge_query`` applies the ledger's precedence at the text level too: an occurrence of a
non-current value that lies wholly inside an occurrence of a value current for the querying
scope is not a violation (serving the current value is never one), while a stale value that
*contains* a current one is still caught. The loader warns about such non-distinctive values.

What a query served is judged twice when the SUT says what reached the agent apart from what
the agent answered (``retrieved``: the peer contract's ``retrieved``, the memlab contract's
``memories`` beside an ``answer``): the answer as the agent's behaviour, the retrieved texts as
what reached the agent. Per check at one query: ``opportunities`` are the known values carrying
the check's label (missing_current_fact: the current values of the must_use keys);
``violations`` those the answer used (missing_current_fact: those the answer did not use and that
never reached the agent); ``retrieved`` those that reached the agent. A forbidden value that
reached the agent and is not in the answer is *unjudged*: the agent may have used it in its
own words, so that check at that query is NOT TESTED, never a pass; a current value that reached
the agent and is not in the answer likewise. The no-memory baseline is the same accuracy judged
over the prompt alone (all a no-memory agent has).
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from lab.lifecycle.ledger import Known, Label

CHECKS: dict[str, str] = {"scope_leakage": "P1", "deletion_residue": "P1", "stale_reuse": "P2",
                          "expiry_leak": "P2", "missing_current_fact": "P2"}
LABELS: dict[str, frozenset[Label]] = {
    "scope_leakage": frozenset({Label.FOREIGN_USER, Label.FOREIGN_TENANT}),
    "deletion_residue": frozenset({Label.DELETED}),
    "stale_reuse": frozenset({Label.STALE}),
    "expiry_leak": frozenset({Label.EXPIRED}),
}
_NOT_WORD = re.compile(r"[\W_]+")
_DROP_CATEGORIES = frozenset({"Mn", "Me", "Cf"})  # combining marks, format characters (invisible)
_FILLERS = frozenset("\u115f\u1160\u3164\uffa0\u034f")  # default-ignorable letters and joiners


def _visible(char: str) -> bool:
    return unicodedata.category(char) not in _DROP_CATEGORIES and char not in _FILLERS


def normalise(text: str) -> str:
    """HTML references decoded; marks, format characters and fillers dropped; NFKC; casefold;
    every run of non-letters/digits to one space, trimmed."""
    decomposed = unicodedata.normalize("NFKD", html.unescape(text))
    kept = unicodedata.normalize("NFKC", "".join(c for c in decomposed if _visible(c))).casefold()
    return _NOT_WORD.sub(" ", unicodedata.normalize("NFKC", kept)).strip()


class _Tokens:
    """A normalised text's tokens run together, with where each token starts and ends (in the
    run-together text and in the normalised text)."""

    def __init__(self, normalised_text: str):
        self.words = normalised_text.split(" ") if normalised_text else []
        self.joined, self.starts, self.ends, self.spans = "", {}, {}, []
        at = 0
        for i, word in enumerate(self.words):
            self.starts[len(self.joined)] = i
            self.joined += word
            self.ends[len(self.joined)] = i
            self.spans.append((at, at + len(word)))
            at += len(word) + 1

    def find(self, value_tokens: str) -> list[tuple[int, int]]:
        """Every occurrence of a normalised value on token boundaries, separators ignored, as a span
        of the normalised text."""
        needle, out = value_tokens.replace(" ", ""), []
        if not needle:
            return out
        hit = self.joined.find(needle)
        while hit >= 0:
            first, last = self.starts.get(hit), self.ends.get(hit + len(needle))
            if first is not None and last is not None:
                out.append((self.spans[first][0], self.spans[last][1]))
            hit = self.joined.find(needle, hit + 1)
        return out


def served_uses(value: str, served_text: str) -> bool:
    """True when the value's tokens occur in the text's on token boundaries (separators ignored)."""
    return bool(_Tokens(normalise(served_text)).find(normalise(value)))


def _used_outside(tokens: _Tokens, normalised_value: str, covered: list[tuple[int, int]]) -> bool:
    """The value occurs somewhere not wholly inside a covered span."""
    return any(not any(a <= start and end <= b for a, b in covered)
               for start, end in tokens.find(normalised_value))


@dataclass(frozen=True)
class CheckResult:
    """One check at one query: the values it could catch (``opportunities``), those that violate it
    for sure (``violations``), those the judge cannot decide because they reached the agent but not
    its answer (``unjudged``), and those that reached the agent at all (``retrieved``)."""

    opportunities: tuple[Known, ...] = ()
    violations: tuple[Known, ...] = ()
    unjudged: tuple[Known, ...] = ()
    retrieved: tuple[Known, ...] = ()

    @property
    def status(self) -> str | None:
        """A forbidden-value check at this query: FAIL, NOT TESTED (unjudged), PASS; None without
        an opportunity."""
        if not self.opportunities:
            return None
        return "FAIL" if self.violations else "NOT TESTED" if self.unjudged else "PASS"

    def to_json(self) -> dict[str, Any]:
        """Plain data."""
        return {name: [k.to_json() for k in getattr(self, name)]
                for name in ("opportunities", "violations", "unjudged", "retrieved")}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CheckResult:
        """The inverse of ``to_json``."""
        return cls(*(tuple(Known.from_json(k) for k in data.get(name, []))
                     for name in ("opportunities", "violations", "unjudged", "retrieved")))


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
                retrieved: Sequence[str] | None = None) -> QueryJudgement:
    """Judge one query: ``known`` from ``Ledger.known(scope)``, ``current`` maps each must_use key
    to ``Ledger.current(scope, key)``; ``prompt`` is judged alone for the no-memory baseline;
    ``retrieved`` the texts that reached the agent, when the SUT says so apart from its answer."""
    answer = _Served(served_text, known)
    reached = _Served("\n".join(retrieved), known) if retrieved is not None else None
    checks: dict[str, CheckResult] = {}
    for name, labels in LABELS.items():
        chances = tuple(k for k in known if k.label in labels)
        used = tuple(k for k in chances if answer.uses(k))
        seen = tuple(k for k in chances if reached and reached.uses(k))
        checks[name] = CheckResult(chances, used, tuple(k for k in seen if k not in used), seen)
    wanted = tuple(_current_known(known, key, current[key]) for key in must_use
                   if current.get(key) is not None)
    seen = tuple(k for k in wanted if reached and reached.has(k))
    unused = tuple(k for k in wanted if not answer.has(k))
    checks["missing_current_fact"] = CheckResult(wanted, tuple(k for k in unused if k not in seen),
                                                 tuple(k for k in unused if k in seen), seen)
    asked = _Tokens(normalise(prompt))
    return QueryJudgement(checks, tuple(k for k in wanted if asked.find(normalise(k.value))), reached is not None,
                          tuple(key for key in must_use if current.get(key) is None))


class _Served:
    """One served text, tokenised once, with the spans of the values current for the querying scope."""

    def __init__(self, text: str, known: list[Known]):
        self.tokens = _Tokens(normalise(text))
        self.covered = [span for k in known if k.label is Label.CURRENT
                        for span in self.tokens.find(normalise(k.value))]

    def has(self, value: Known) -> bool:
        """The value occurs in the text."""
        return bool(self.tokens.find(normalise(value.value)))

    def uses(self, value: Known) -> bool:
        """The value occurs somewhere not wholly inside a current value's occurrence."""
        return _used_outside(self.tokens, normalise(value.value), self.covered)


def _current_known(known: list[Known], key: str, value: str | None) -> Known:
    for entry in known:
        if entry.value == value and entry.label is Label.CURRENT:
            return entry if entry.key == key else replace(entry, key=key)
    raise ValueError(f"the current value of {key!r} is not among the known current values: "
                     "pass Ledger.known(scope) and Ledger.current(scope, key) from the same ledger state")
