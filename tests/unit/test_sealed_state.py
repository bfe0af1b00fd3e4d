"""Sealed (opaque) payloads on the lab side: which cases are n/a and why, the state-unit specs,
the T1 effect check without a token, and the profile rule tying capabilities.sealed to an
opaque payload."""

import pytest
from profile_text import sqlite_profile

from edits.layout import parse_layout
from lab.cases import BY_ID, CASE_IDS, not_applicable, spec_for
from lab.judge.effects import effect
from lab.profile import Capabilities, ProfileError, load_profile
from lab.cases.seedplan import make_plan

RECORDS = {"text": [2, "content"], "identity": [[2, "id"]], "metadata": {"role": [2, "type"]}, "version": "v"}


def layout(fmt):
    return parse_layout({"backend": "sqlite", "volume": "store", "file": "cp.db", "table": "cp", "context": "t",
                         "order": "@position", "records": RECORDS,
                         "payload": {"field": "blob", "format": fmt, "path": ["messages"]}})


def test_sealed_records_make_exactly_the_record_level_cases_na():
    sealed = {c for c in CASE_IDS if not_applicable(BY_ID[c], Capabilities(erasure="context", sealed=True))}
    assert sealed == {"T3", "T4", "T5", "T8"}
    assert "encrypted payload" in not_applicable(BY_ID["T3"], Capabilities(sealed=True))
    assert not any(not_applicable(BY_ID[c], Capabilities(erasure="context")) for c in CASE_IDS)


def test_specs_on_an_opaque_payload_have_unit_state():
    plan = make_plan("sealed01")
    for case in ("T1", "T2", "T6", "T7"):
        plain, sealed = spec_for(BY_ID[case], plan, layout("msgpack")), spec_for(BY_ID[case], plan, layout("opaque"))
        assert plain.unit == "record" and "unit" not in plain.to_json()
        assert sealed.unit == "state" and sealed.to_json()["unit"] == "state"
        assert (sealed.target, sealed.donor, sealed.context) == (plain.target, plain.donor, plain.context)
    t1 = spec_for(BY_ID["T1"], plan, layout("opaque"))
    assert t1.find is None and t1.replace is None


def test_t1_effect_of_a_state_edit_is_any_change_of_what_is_served():
    spec = {"case": "T1", "unit": "state", "target": "mA2-aaaaaa"}
    base = [{"text": "[mA0-aaaaaa] a"}, {"text": "[mA2-aaaaaa] b"}]
    assert not effect("T1", spec, base, base)["visible"]
    assert effect("T1", spec, [{"text": "[mA0-aaaaaa] a"}, {"text": "[mA2-aaaaaa] \ufffd"}], base)["visible"]


SEALED = sqlite_profile("sealed-demo", "{package: demo, version: 1.0.0}", """\
    file: cp.db
    table: cp
    context: t
    order: "@position"
    payload: {field: blob, format: FORMAT}
    records: {text: [2, content], version: v}
    """, "{erasure: context, sealed: SEALED}")


@pytest.mark.parametrize("fmt, sealed, ok", [("opaque", "true", True), ("opaque", "false", False),
                                              ("msgpack", "true", False)])
def test_capabilities_sealed_goes_with_an_opaque_payload(tmp_path, fmt, sealed, ok):
    text = SEALED.replace("FORMAT", fmt).replace("SEALED", sealed)
    if fmt == "msgpack":
        text = text.replace("format: msgpack}", "format: msgpack, path: [messages]}")
    path = tmp_path / "sealed-demo.yaml"
    path.write_text(text)
    if ok:
        assert load_profile(path).capabilities.sealed is True
    else:
        with pytest.raises(ProfileError, match="capabilities.sealed"):
            load_profile(path)
