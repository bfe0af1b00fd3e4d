"""The deterministic judge: which known values did the served text use, at one query.

**Views** (``views``, ``folds``): the served text is read as served and with each rendering
layer a search index, cache or log adds undone (markup, terminal codes, percent-encoding, string
escapes, quoted-printable/base64/hex/punycode), each under four folds (``base``: HTML references,
NFKD with marks and invisible characters dropped, NFKC, casefold, separators; ``ascii``
transliteration; ``german`` ä→ae; ``skeleton``: lookalike letters). A value found in any view is
served: ``Ber<b>lin</b>``, ``"Z\\u00fcrich"``, ``Lodz`` for ``Łódź`` and ``Bеrlin`` with a Cyrillic
``е`` are all that value.

Which values a text shows is ``matching`` (``served_uses``: on token boundaries, separators
ignored; one Aho–Corasick pass per view; a paraphrase is not recognised; the judge's revisions);
what it decides at one query is ``judgement`` (``CheckResult``, ``QueryJudgement``).

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

``judge_query`` takes a deadline and raises ``matching.JudgeLimit`` past it, or on a text over
``matching.MAX_JUDGED`` characters (a harness error of the row, never a verdict); ``revision`` 1
re-derives the sets whose rows say ``memlab.lifecycle-row/1`` (``matching``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import replace

from lab.lifecycle.judgement import LABELS, WHY_RETRIEVED, CheckResult, QueryJudgement
from lab.lifecycle.ledger import Known, Label
from lab.lifecycle.matching import DEADLINE, JUDGE_REVISION, matcher_for

WHY_OPAQUE = "the served text holds an encoding the judge cannot undo: {what}"


def judge_query(known: list[Known], served_text: str, must_use: Sequence[str],
                current: Mapping[str, str | None], prompt: str = "",
                retrieved: Sequence[str] | None = None, *, revision: int = JUDGE_REVISION,
                deadline: float | None = DEADLINE) -> QueryJudgement:
    """Judge one query: ``known`` from ``Ledger.known(scope)``, ``current`` maps each must_use key
    to ``Ledger.current(scope, key)``; ``prompt`` is judged alone for the no-memory baseline;
    ``retrieved`` the texts that reached the agent, when the SUT says so apart from its answer;
    ``revision`` the judge's (1 re-derives older sets); ``deadline`` in seconds (None: none)."""
    until = None if deadline is None else time.monotonic() + deadline
    matcher = matcher_for(tuple(k.value for k in known), revision)
    mask = frozenset(i for i, k in enumerate(known) if k.label is Label.CURRENT)
    answer = matcher.seen(served_text, mask, until)
    reached = matcher.seen("\n".join(retrieved), mask, until) if retrieved is not None else None
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
    asked = matcher.seen(prompt, mask, until).found if prompt else frozenset()
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
