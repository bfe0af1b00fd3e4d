"""The judge sees through renderings (``renderings.py``): a forbidden value served in any of them is
caught (FAIL, or NOT TESTED where it is opaque), a correct store served in any of them is never
failed, and ``served_uses`` finds a value in each rendering of it."""

from __future__ import annotations

import re
import unicodedata

import hypothesis.strategies as st
import pytest
from anyascii import anyascii
from hypothesis import HealthCheck, assume, example, given, settings

from lab.lifecycle.judge import judge_query
from lab.lifecycle.ledger import Known, Label
from lab.lifecycle.matching import served_uses
from lab.lifecycle.scenario import Scope
from lab.lifecycle.views import base64_text

from renderings import OPAQUE, UNDOABLE

ALICE, BOB, ERIN = Scope("acme", "alice"), Scope("acme", "bob"), Scope("globex", "erin")
#: The ledger of every example: (key, label, scope), one generated value each; the first two current.
SLOTS = (("office", Label.CURRENT, ALICE), ("plan", Label.CURRENT, ALICE), ("office", Label.STALE, ALICE),
         ("gym", Label.DELETED, ALICE), ("otp", Label.EXPIRED, ALICE), ("desk", Label.FOREIGN_USER, BOB),
         ("vendor", Label.FOREIGN_TENANT, ERIN))
CHECK = {Label.STALE: "stale_reuse", Label.DELETED: "deletion_residue", Label.EXPIRED: "expiry_leak",
         Label.FOREIGN_USER: "scope_leakage", Label.FOREIGN_TENANT: "scope_leakage"}
#: The served sentence around the values; its words are kept out of the values (``_clear``).
SENTENCE = "Noted: {0}. Earlier notes: {1}. Plan: {2}."
#: Words the sentence and the renderings' own markup put beside a value (a link's host, a class name).
SCAFFOLD = ("noted", "earlier", "notes", "plan", "https", "memlab", "example", "search", "span", "class", "mark")

# Deterministic in CI: no example database, the same examples on every run.
PROFILE = settings(deadline=None, derandomize=True, database=None, print_blob=False,
                   suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])

LATIN = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
DIACRITICS = "áàâãéèêëíóôõúùûçñýÁÉÍÓÚÇÑ"
NORTH = "łóźżąęśćńøæåıİşğüöäßŁŹŻØÆÅŞĞÜÖÄ"  # Polish, Nordic, Turkish, German
CJK = "東京大阪北海道中山田川本日月人学校駅前さくらカタナ𠮷𩸽"  # Han, kana, two beyond the BMP
# A word is at least 3 characters: a shorter token collides by chance with a rendering's own
# fragments (the ``b`` of a bytes repr, the ``1m`` of an SGR code, a tag's ``em``) and with other
# values; and at most 10, so no word is mistaken for a base64 run (20+ characters) the judge leaves
# opaque. Words are of one kind, as real values are: Latin letters (any of the alphabets above) with
# digits, a CJK run, or a digit run long enough to be grouped by thousands.
WORD = st.one_of(st.text(LATIN + DIACRITICS + NORTH + "0123456789", min_size=3, max_size=10),
                 st.text(CJK, min_size=3, max_size=5), st.text("0123456789", min_size=4, max_size=9))
SEPARATORS = st.sampled_from([" ", "-", ", ", " / ", "'", " & ", ": "])


@st.composite
def value_of(draw) -> str:
    """One to three words joined by separators (a multi-word value: ``Rua Augusta``, ``7Q-4242``)."""
    words = draw(st.lists(WORD, min_size=1, max_size=3))
    return words[0] + "".join(draw(SEPARATORS) + w for w in words[1:])


VALUE = value_of()

_NOT_WORD = re.compile(r"[\W_]+")
_GERMAN = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue"})


def _run_together(text: str) -> str:
    return _NOT_WORD.sub("", unicodedata.normalize("NFKC", text.casefold()))


def base(value: str) -> str:
    """The value with marks dropped, compatibility forms and case folded, separators out."""
    return _run_together("".join(c for c in unicodedata.normalize("NFKD", value) if not unicodedata.combining(c)))


def folds(value: str) -> set[str]:
    """The value under the folds a search engine applies, run together: ``base``; ASCII
    transliteration; German umlauts spelled out first."""
    return {base(value), _run_together(anyascii(unicodedata.normalize("NFKC", value))),
            _run_together(anyascii(unicodedata.normalize("NFC", value).translate(_GERMAN)))} - {""}


def _clear(value: str) -> bool:
    """No word of the sentence or of a rendering's markup inside the value (else the value is served
    by the sentence itself, or runs into it: ``Noted: Aaa`` holds ``notedaaa``)."""
    return not any(word in form for form in folds(value) for word in SCAFFOLD)


def _covered(value: str, others: list[str]) -> bool:
    """Whether every character of the value, under some fold, lies in occurrences of the others
    under any fold: then serving the value is serving them (the judge reads current values first)."""
    needles = {n for other in others for n in folds(other)}
    for form in folds(value):
        hit = bytearray(len(form))
        for needle in needles:
            for m in re.finditer(f"(?={re.escape(needle)})", form):
                hit[m.start():m.start() + len(needle)] = b"\1" * len(needle)
        if all(hit):
            return True
    return False


#: Realistic values run on every rendering besides the generated ones, each in a current slot once.
SPECIMENS = ["İzmir Işık 4242", "Zürich-Oerlikon", "Łódź / Kraków 1234567", "Ærø & Große Straße", "東京タワー 𠮷野",
             "O'Brien 7Q12", "IPSO Bøgelund"]


def with_specimens(argument: str):
    """Hypothesis ``example``s of SPECIMENS: for ``values``, rotated so every one takes a current slot;
    for ``value``, each alone."""
    cases = ([SPECIMENS[i:] + SPECIMENS[:i] for i in range(0, len(SPECIMENS), 2)] if argument == "values"
             else SPECIMENS)

    def decorate(test):
        for case in cases:
            test = example(**{argument: case})(test)
        return test
    return decorate


# Seven values distinct after casefold (separators out, marks dropped): one string per ledger entry,
# else the ledger itself holds one value twice under two labels.
VALUES = st.lists(VALUE, min_size=len(SLOTS), max_size=len(SLOTS), unique_by=base)


def ledger(values: list[str]) -> list[Known]:
    """The known values of the querying scope (alice), one per slot."""
    return [Known(key, value, scope, label, at) for at, ((key, label, scope), value) in enumerate(zip(SLOTS, values))]


def _judge(known: list[Known], text: str):
    current = {k.key: k.value for k in known if k.label is Label.CURRENT}
    return judge_query(known, text, list(current), current)


def _shown(known: list[Known], text: str, judged) -> str:
    statuses = {n: (c.status, [k.value for k in c.violations], [k.value for k in c.unjudged])
                for n, c in judged.checks.items()}
    return f"values {[(k.label.value, k.value) for k in known]}\nserved {text!r}\nchecks {statuses}"


def _beyond_the_documented_rule(run: str) -> bool:
    """The judge's documented limits (docs/lifecycle.md): an unpadded base64 run shorter than 16
    characters, or with no digit and under a third of it upper case, cannot be told from a word or a
    camelCase name ("ampo", "udvVudvVudvVudvV"); one that decodes to readable text is read as that
    text (digits XOR-ed with one byte are letters). Such a rendering is neither undone nor flagged."""
    if base64_text(run) is not None:
        return True
    if run.endswith("="):
        return False
    return len(run) < 16 or not any(c.isdigit() or c in "+/" for c in run) and sum(map(str.isupper, run)) * 3 < len(run)


@pytest.mark.parametrize("name", [*UNDOABLE, *OPAQUE])
@settings(PROFILE, max_examples=40)
@given(values=VALUES)
@with_specimens("values")
def test_a_forbidden_value_rendered_is_never_passed(name, values):
    """(a) Each stale, deleted, expired or foreign value, rendered, beside the current values served
    plainly: its check is FAIL (or NOT TESTED), never PASS."""
    render = {**UNDOABLE, **OPAQUE}[name]
    assume(all(_clear(v) for v in values))
    known = ledger(values)
    for entry in known[2:]:
        # A forbidden value made wholly of current values' text is served whenever they are.
        if _covered(entry.value, values[:2]):
            continue
        if name in OPAQUE and _beyond_the_documented_rule(render(entry.value)):
            continue
        text = SENTENCE.format(values[0], render(entry.value), values[1])
        judged = _judge(known, text)
        assert judged.checks[CHECK[entry.label]].status in ("FAIL", "NOT TESTED"), (
            f"{name}: {entry.label.value} value passed\n" + _shown(known, text, judged))


@pytest.mark.parametrize("name", UNDOABLE)
@settings(PROFILE, max_examples=40)
@given(values=VALUES)
@with_specimens("values")
def test_a_correct_store_rendered_is_never_failed(name, values):
    """(b) The current values served plainly and rendered: no check FAILs, every current value is
    found, and a forbidden check is NOT TESTED only for a value that folds to a current one."""
    render = UNDOABLE[name]
    assume(all(_clear(v) for v in values))
    known = ledger(values)
    text = SENTENCE.format(values[0], render(values[0]), f"{values[1]}. Plan notes: {render(values[1])}")
    judged = _judge(known, text)
    shown = f"{name}\n" + _shown(known, text, judged)
    assert judged.checks["missing_current_fact"].status == "PASS", shown
    current = set().union(*(folds(v) for v in values[:2]))
    for check in set(CHECK.values()):
        result = judged.checks[check]
        assert result.status != "FAIL", shown
        assert all(folds(k.value) & current for k in result.unjudged), shown


@pytest.mark.parametrize("name", UNDOABLE)
@settings(PROFILE, max_examples=40)
@given(value=VALUE)
@with_specimens("value")
def test_served_uses_sees_each_rendering(name, value):
    """(c) ``served_uses(value, render(value))``."""
    rendered = UNDOABLE[name](value)
    assert served_uses(value, rendered), f"{name}: {value!r} not seen in {rendered!r}"
