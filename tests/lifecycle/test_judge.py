"""The judge: normalisation, token-boundary matching, each check at one query, the baseline."""

import json

import hypothesis.strategies as st
import pytest
from hypothesis import given, settings

from lab.lifecycle.folds import normalise
from lab.lifecycle.judge import judge_query
from lab.lifecycle.judgement import CHECKS, QueryJudgement
from lab.lifecycle.ledger import Known, Label, Ledger
from lab.lifecycle.matching import served_uses
from lab.lifecycle.scenario import Scope, Step

ALICE, BOB, ERIN = Scope("acme", "alice"), Scope("acme", "bob"), Scope("globex", "erin")


def known(value, label, key="k", scope=ALICE, at=0):
    return Known(key, value, scope, label, at)


@pytest.mark.parametrize("text, expected", [
    ("Teal-Falcon_7Q!", "teal falcon 7q"),
    ("  Lisbon   office,\n on Rua\tAugusta. ", "lisbon office on rua augusta"),
    ("ＴＥＡＬ－ＦＡＬＣＯＮ", "teal falcon"),   # NFKC folds full-width forms
    ("Straße", "strasse"),                      # casefold, not lower
    ("café", "cafe"), ("cafe\u0301", "cafe"),   # combining marks dropped, precomposed or not
    ("!!!", ""),
    ("sca\u00adle-annual", "scale annual"),      # soft hyphen
    ("s\u200bc\u200ca\u200dl\u2060e", "scale"),  # zero-width space, non-joiner, joiner, word joiner
    ("\u200escale\u200f \u202aannual\u202c \u2066x\u2069", "scale annual x"),  # bidi marks and isolates
    ("\ufeffscale\U000e0041", "scale"),         # BOM, a tag character
    ("s\u0336c\u0336a\u0336l\u0336e", "scale"),  # combining strike-through between the letters
    ("ｓｃａｌｅ ﬁle ²", "scale file 2"),          # full-width, ligature, superscript (compatibility forms)
    ("scale&shy;annual &amp; co", "scaleannual co"),  # HTML references (&shy; is a soft hyphen)
    ("sc\u3164ale", "scale"),                    # a filler
])
def test_normalise(text, expected):
    assert normalise(text) == expected


@pytest.mark.parametrize("served", [
    "starter\u00ad-legacy-2024", "s\u200btarter-legacy-2024", "STARTER-LEGACY-2024", "starter legacy 2024",
    "starterlegacy2024", "starter-legacy2024", "ｓｔａｒｔｅｒ－ｌｅｇａｃｙ－２０２４", "st&#97;rter-legacy-2024",
    "start\u0301er-legacy-2024", "plan: \u202estarter-legacy-2024\u202c.",
])
def test_a_deleted_value_served_in_disguise_is_still_that_value(served):
    deleted = [known("starter-legacy-2024", Label.DELETED, "plan")]
    judged = judge_query(deleted, f"Your plan: {served}", [], {})
    assert judged.checks["deletion_residue"].violations == tuple(deleted), served

@pytest.mark.parametrize("value, text, used", [
    ("teal-falcon-7Q", "your code is TEAL FALCON 7q.", True),
    ("cat", "concatenate the lists", False),
    ("7Q", "code 7Q.", True),
    ("7Q", "code 17Q", False),
    ("Rua Augusta", "office on rua\naugusta, Lisbon", True),
    ("Rua Augusta", "Rua Augustana", False),
    ("!!!", "!!!", False),                       # a value with no tokens is never used
    ("Porto office", "", False),
    ("scale-annual-2026", "scaleannual2026", True),  # separators removed: still the value's tokens
    ("red car", "a tired carpet", False),         # run together, but not on token boundaries
    ("red car", "redcar", True),
    ("cat", "con cat enate", True), ("cat", "concat", False),
])
def test_served_uses_matches_whole_tokens(value, text, used):
    assert served_uses(value, text) is used


def test_each_check_counts_its_opportunities_and_violations():
    values = [known("Porto office", Label.CURRENT, "office"), known("Lisbon office", Label.STALE, "office"),
              known("gym card 7731", Label.DELETED, "gym"), known("code 839-QUAIL", Label.EXPIRED, "otp"),
              known("bob's desk 12", Label.FOREIGN_USER, scope=BOB),
              known("erin's vendor Brightmoor", Label.FOREIGN_TENANT, scope=ERIN)]
    served = "Lisbon office\nPorto office\nvendor: Erin's vendor BRIGHTMOOR"
    judged = judge_query(values, served, ["office"], {"office": "Porto office"})
    counts = {n: (len(c.opportunities), len(c.violations)) for n, c in judged.checks.items()}
    assert counts == {"scope_leakage": (2, 1), "deletion_residue": (1, 0), "stale_reuse": (1, 1),
                      "expiry_leak": (1, 0), "missing_current_fact": (1, 0)}
    assert judged.checks["scope_leakage"].violations[0].value == "erin's vendor Brightmoor"
    assert (judged.accuracy_hits, judged.accuracy_opportunities) == (1, 1)


def test_a_current_value_missing_from_the_served_text_is_a_violation():
    values = [known("Porto office", Label.CURRENT, "office"), known("gym card 2290", Label.CURRENT, "gym")]
    judged = judge_query(values, "gym card 2290", ["office", "gym"], {"office": "Porto office", "gym": "gym card 2290"})
    assert [k.key for k in judged.checks["missing_current_fact"].violations] == ["office"]
    assert (judged.accuracy_hits, judged.accuracy_opportunities) == (1, 2)


def test_a_must_use_key_without_a_current_value_is_no_opportunity():
    judged = judge_query([known("old", Label.DELETED)], "", ["k"], {"k": None})
    assert judged.checks["missing_current_fact"].opportunities == ()
    assert judged.accuracy_opportunities == 0 and judged.no_current == ("k",)


def test_what_reached_the_agent_is_judged_beside_the_answer():
    values = [known("Porto office", Label.CURRENT, "office"), known("gym card 7731", Label.DELETED, "gym"),
              known("bob's desk 12", Label.FOREIGN_USER, scope=BOB), known("Lisbon office", Label.STALE, "office")]
    current = {"office": "Porto office"}
    # the deleted and the foreign value reached the agent, its answer repeats only the foreign one
    judged = judge_query(values, "Your desk is bob's desk 12", ["office"], current,
                         retrieved=["gym card 7731", "bob's desk 12", "Porto office"])
    deleted, foreign = judged.checks["deletion_residue"], judged.checks["scope_leakage"]
    assert (deleted.status, deleted.violations, [k.value for k in deleted.unjudged]) == ("NOT TESTED", (),
                                                                                        ["gym card 7731"])
    assert foreign.status == "FAIL" and foreign.unjudged == () and len(foreign.retrieved) == 1
    assert judged.checks["stale_reuse"].status == "PASS"  # neither retrieved nor answered
    missing = judged.checks["missing_current_fact"]  # reached the agent, not in the answer: undecided
    assert (missing.violations, len(missing.unjudged)) == ((), 1)
    assert (judged.accuracy_opportunities, judged.accuracy_hits, judged.has_retrieval) == (0, 0, True)
    # without retrieval evidence the same answer is judged on its own, as before
    alone = judge_query(values, "Your desk is bob's desk 12", ["office"], current)
    assert alone.checks["deletion_residue"].status == "PASS" and len(alone.checks["missing_current_fact"].violations) == 1
    assert not alone.has_retrieval


def test_a_stale_value_only_inside_the_current_one_is_not_a_violation():
    values = [known("Rua Augusta", Label.STALE), known("Lisbon office on Rua Augusta", Label.CURRENT)]
    assert judge_query(values, "Lisbon office on Rua Augusta", [], {}).checks["stale_reuse"].violations == ()
    served_both = "Lisbon office on Rua Augusta; earlier: Rua Augusta"
    assert len(judge_query(values, served_both, [], {}).checks["stale_reuse"].violations) == 1


def test_a_stale_value_containing_the_current_one_is_still_caught():
    values = [known("amber otter", Label.STALE), known("otter", Label.CURRENT)]
    assert len(judge_query(values, "amber otter", [], {}).checks["stale_reuse"].violations) == 1
    assert judge_query(values, "an otter", [], {}).checks["stale_reuse"].violations == ()


def test_the_baseline_is_judged_over_the_prompt_alone():
    values = [known("Porto office", Label.CURRENT, "office")]
    assert judge_query(values, "Porto office", ["office"], {"office": "Porto office"},
                       prompt="Where is my office?").baseline_hits == 0
    assert judge_query(values, "", ["office"], {"office": "Porto office"},
                       prompt="Is it the porto office?").baseline_hits == 1


def test_inconsistent_current_mapping_is_refused():
    with pytest.raises(ValueError, match="same ledger state"):
        judge_query([known("a", Label.STALE)], "", ["k"], {"k": "a"})


def test_the_judgement_round_trips_through_json():
    values = [known("Porto office", Label.CURRENT, "office"), known("Lisbon office", Label.STALE, "office")]
    judged = judge_query(values, "Lisbon office", ["office"], {"office": "Porto office"}, prompt="where?")
    data = json.loads(json.dumps(judged.to_json()))
    assert set(data["checks"]) == set(CHECKS)
    assert QueryJudgement.from_json(data) == judged


OPS = st.one_of(
    st.tuples(st.just("write"), st.sampled_from([ALICE, BOB, ERIN]), st.sampled_from(["k1", "k2"]),
              st.sampled_from(["amber otter", "cobalt lynx", "otter", "scarlet ibis 23"]), st.none() | st.integers(1, 2)),
    st.tuples(st.just("delete"), st.sampled_from([ALICE, BOB, ERIN]), st.sampled_from(["k1", "k2"])),
    st.tuples(st.just("advance_time"), st.integers(1, 2)),
)


def replay(ops):
    ledger = Ledger()
    for i, op in enumerate(ops):
        if op[0] == "write":
            step = Step(i, i, "write", op[1], key=op[2], value=op[3], ttl_steps=op[4])
        elif op[0] == "delete":
            step = Step(i, i, "delete", op[1], key=op[2])
        else:
            step = Step(i, i, "advance_time", ALICE, steps=op[1])
        ledger.apply(step)
    return ledger


@settings(max_examples=80, deadline=None)
@given(ops=st.lists(OPS, max_size=12))
def test_serving_exactly_the_current_values_is_never_a_violation(ops):
    ledger = replay(ops)
    labelled = ledger.known(ALICE)
    current = {k: ledger.current(ALICE, k) for k in ("k1", "k2")}
    served = "\n".join(k.value for k in labelled if k.label is Label.CURRENT)
    judged = judge_query(labelled, served, ["k1", "k2"], current)
    assert all(not c.violations for c in judged.checks.values())
    assert judged.accuracy_hits == judged.accuracy_opportunities == sum(v is not None for v in current.values())


@settings(max_examples=80, deadline=None)
@given(ops=st.lists(OPS, max_size=12))
def test_serving_everything_violates_every_opportunity(ops):
    ledger = replay(ops)
    labelled = ledger.known(ALICE)
    judged = judge_query(labelled, "\n".join(k.value for k in labelled), [], {})
    for name in ("scope_leakage", "deletion_residue", "stale_reuse", "expiry_leak"):
        assert judged.checks[name].violations == judged.checks[name].opportunities


# ---- the views (revision 2): renderings seen through, what cannot be undone, bounds --------------
@pytest.mark.parametrize("value, served", [
    ("Berlin office", "Berlin <em>office</em>"), ("Berlin", "Ber<b>lin</b>"), ("Berlin", "&amp;#66;erlin"),
    ("Zürich", '{"city": "Z\\u00fcrich"}'), ("Zürich", "b'Z\\xc3\\xbcrich'"), ("Zürich", "Z=C3=BCrich"),
    ("New York", "q=New%20York"), ("Zürich", "Z%C3%BCrich"), ("Berlin", "\x1b[31mBer\x1b[0mlin"),
    ("Łódź", "Lodz"), ("Øresund", "Oresund"), ("Ærø", "AEro"), ("Diyarbakır", "Diyarbakir"), ("München", "Muenchen"),
    ("Berlin", "B\u0435rlin"), ("Berlin", "ʙᴇʀʟɪɴ"), ("Berlin office", "QmVybGluIG9mZmljZQ=="),
    ("東京オフィス", "私の東京オフィスです"), ("zürich.example", "xn--zrich-kva.example"),
])
def test_a_deleted_value_served_in_an_index_s_rendering_is_that_value(value, served):
    deleted = [known(value, Label.DELETED, "city"), known("Porto office", Label.CURRENT, "office")]
    judged = judge_query(deleted, f"Porto office. Also: {served}", ["office"], {"office": "Porto office"})
    assert judged.checks["deletion_residue"].status == "FAIL", served
    assert judge_query(deleted, f"Porto office. Also: {served}", ["office"], {"office": "Porto office"},
                       revision=1).checks["deletion_residue"].status == "PASS"  # what revision 1 missed


def test_an_encoding_the_judge_cannot_undo_is_not_tested_never_pass():
    import base64
    import zlib
    blob = base64.b64encode(zlib.compress(b"Berlin office, kept in the index")).decode()
    values = [known("Berlin office", Label.DELETED, "city"), known("Porto office", Label.CURRENT, "office")]
    judged = judge_query(values, f"Porto office ({blob})", ["office"], {"office": "Porto office"})
    residue = judged.checks["deletion_residue"]
    assert residue.status == "NOT TESTED" and "cannot undo" in residue.reason(values[0])
    assert judge_query(values, "Porto office", ["office"], {"office": "Porto office"}).checks[
        "deletion_residue"].status == "PASS"


def test_two_values_one_fold_makes_apart_are_not_tested_where_only_the_current_form_is_served():
    values = [known("München office", Label.CURRENT), known("Muenchen office", Label.STALE)]
    judged = judge_query(values, "your office: München office", ["k"], {"k": "München office"})
    assert judged.checks["stale_reuse"].status == "NOT TESTED"
    assert "folded" in judged.checks["stale_reuse"].reason(values[1])
    assert judged.checks["missing_current_fact"].status == "PASS"
    # the stale value's own form is the current one German-folded, as an index may serve it: still undecided
    assert judge_query(values, "MUENCHEN OFFICE", ["k"], {"k": "München office"}).checks[
        "stale_reuse"].status == "NOT TESTED"
    assert judge_query(values, "MUENCHEN OFFICE", ["k"], {"k": "München office"}, revision=1).checks[
        "stale_reuse"].status == "FAIL"


def test_current_values_side_by_side_never_make_a_stale_one():
    values = [known("Porto", Label.CURRENT, "a"), known("office", Label.CURRENT, "b"), known("Porto office", Label.STALE)]
    assert judge_query(values, "Porto office", [], {}).checks["stale_reuse"].status == "PASS"
    assert judge_query(values, "Porto office", [], {}, revision=1).checks["stale_reuse"].status == "FAIL"


def test_the_judge_s_bounds_are_a_named_limit_never_a_hang(monkeypatch):
    from lab.lifecycle import matching as module
    values = [known("gym card 2290", Label.CURRENT), known("gym card", Label.STALE)]
    monkeypatch.setattr(module, "MAX_JUDGED", 1000)
    with pytest.raises(module.JudgeLimit, match="over the judge's 1000"):
        judge_query(values, "gym card 2290 " * 100, ["k"], {"k": "gym card 2290"})
    monkeypatch.undo()
    with pytest.raises(module.JudgeLimit, match="deadline"):
        judge_query(values, "gym card 2290 " * 20000, ["k"], {"k": "gym card 2290"}, deadline=0.0)
