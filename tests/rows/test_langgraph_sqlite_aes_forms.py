"""The form variants on the real SUT: LangGraph's SqliteSaver with its EncryptedSerializer (AES-EAX,
the driver images/langgraph-sqlite, serde aes) seeded by the lab's plan, each form=plain-msgpack
variant written by the generic editor over a copy of the sealed store, C3 checked, and the SUT
restarted on it: it serves the plaintext the adversary authored, with no signal."""

import shutil
from dataclasses import replace

import pytest
from driver_process import start

from edits.base import editor_for
from edits.relabel import decode
from edits.volumes import diff_digests, digest_tree
from lab.cases import BY_ID, spec_for
from lab.cases.seedplan import make_plan
from lab.judge.c3 import check_edit
from lab.judge.effects import effect
from lab.profile import load_profiles, select
from lab.runtime.local import LocalRuntime

pytestmark = pytest.mark.rows
ROW = "langgraph-sqlite+aes"


@pytest.fixture(scope="module")
def sealed(tmp_path_factory):
    """The seeded sealed store (volumes store and keys), the plan, the versions the SUT reported,
    and what it served of context A before any edit."""
    profile = select(load_profiles(), [ROW])[0]
    python = LocalRuntime(fork_server=False).prepare(profile).detail["interpreter"]
    root = tmp_path_factory.mktemp("aes")
    vols = {"store": root / "store", "keys": root / "keys"}
    for v in vols.values():
        v.mkdir()
    plan, versions = make_plan("formsaes"), {}
    drv = start(root, vols, profile.configuration, profile.driver_dir / "driver.py", python)
    for rec in sorted(plan.records, key=lambda r: (r.index, r.label)):
        answer = drv("write", context=plan.contexts[rec.label], text=rec.text, meta=rec.meta)
        assert answer["ok"], answer
        versions[answer["record"]["version"]] = rec.marker
    baseline = drv("read", context=plan.contexts["A"])["records"]
    assert drv.stop() == 0
    return profile, python, vols, plan, versions, baseline


@pytest.mark.parametrize("case", ["T1", "T3", "T4", "T5", "T8"])
def test_the_sut_serves_the_plaintext_written_in_the_form_its_reader_accepts(sealed, tmp_path, case):
    profile, python, seeded_vols, plan, versions, baseline = sealed
    vols = {n: tmp_path / n for n in seeded_vols}
    for n, v in seeded_vols.items():
        shutil.copytree(v, vols[n])
    layout = profile.store
    editor = editor_for(layout, vols, versions=versions)
    spec = spec_for(BY_ID[case], plan, layout)  # T3-T8: the form is the case's own spec; T1: a variant
    if case == "T1":
        assert editor.variants(spec, editor.records()) == ["form=plain-msgpack"]
        spec = replace(spec, variant="form=plain-msgpack")
    assert spec.variant == "form=plain-msgpack"
    before, digests = [r.to_json() for r in editor.records()], digest_tree(vols["store"])
    applied = editor.apply(spec)
    after = [r.to_json() for r in editor_for(layout, vols, versions=versions).records()]
    c3 = check_edit(spec.to_json(), layout.to_json(), before, after, diff_digests(digests, digest_tree(vols["store"])))
    assert c3.ok, c3.reasons
    assert applied.detail["set"] == {"type": "msgpack"}

    drv = start(tmp_path, vols, profile.configuration, profile.driver_dir / "driver.py", python)
    answer = drv("read", context=plan.contexts["A"])
    assert drv.stop() == 0
    assert answer["ok"] and answer["signals"] == [], answer  # served, no error, no warning
    seen = effect(case, spec.to_json(), answer["records"], baseline)
    assert seen["visible"], seen
    authored = [r for r in after if r["locator"].get("form") == "plain-msgpack"]
    assert [r["text"] for r in answer["records"]] == [r["payload"] for r in authored]  # all of it, in order
    role = layout.records.places_of("role")[0]  # the served role is the stored word: read it as the lab's
    assert [decode(role, r["meta"]["role"]) for r in answer["records"]] == [r["metadata"]["role"] for r in authored]
