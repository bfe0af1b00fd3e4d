"""The gate on a correct store behind a lagging search index (issue 37), in both contracts (memlab's,
memories alone or an answer beside them, and memorycheck's), on the bundled pack and on a pack of
values with diacritics: every rendering of a deleted, superseded or expired value the index serves
FAILs each check it breaches; an encoding no judge can undo leaves those checks NOT TESTED and the
gate INCONCLUSIVE, never PASS; the store alone PASSes; an index keyed by tenant leaks another user's
values in colour; an index that answers the gate's confirming lookups too is a harness error (or,
enciphered, INCONCLUSIVE). One shim per answer shape for the module; each run is in process."""
from __future__ import annotations

import json
from pathlib import Path

import peer_gate
import pytest
from click.testing import CliRunner
from shims import lagging_index
from shims.lagging_index import Index

from lab.cli import main
from lab.lifecycle.scenario import BUNDLED_PACK

ROOT = Path(__file__).resolve().parents[2]
PACKS = {"bundled": Path(BUNDLED_PACK), "diacritics": ROOT / "tests" / "fixtures" / "lifecycle-diacritics"}
BREACHED = ("deletion_residue", "stale_reuse", "expiry_leak")  # what an index of every value ever written breaches
READABLE = [r for r in lagging_index.RENDERINGS if r != "opaque"]


@pytest.fixture(scope="module", params=lagging_index.SHAPES)
def shim(request, tmp_path_factory):
    """(shape, URL, store, config) of one lagging-index shim per answer shape, shared by the module."""
    with lagging_index.serve(request.param) as (url, store):
        config = lagging_index.config(request.param, tmp_path_factory.mktemp(request.param), url)
        yield request.param, url, store, config


def gate(shim, index: Index | None, pack: str, tmp_path: Path, config: Path | None = None) -> tuple[int, dict]:
    """(exit code, summary) of ``memlab lifecycle run PACK --http CONFIG`` in this process, ``index``
    in front of the shim's store (None: the store alone)."""
    _, _, store, default = shim
    store.index = index
    summary = tmp_path / "summary.json"
    done = CliRunner().invoke(main, ["lifecycle", "run", str(PACKS[pack]), "--http", str(config or default),
                                     "--out", str(tmp_path / "set"), "--json", str(summary)])
    assert done.exception is None or isinstance(done.exception, SystemExit), done.output
    return done.exit_code, json.loads(summary.read_text())


def breached(summary: dict, *, judged: bool = True) -> dict[str, dict]:
    """The checks the index had a chance to breach: with opportunities (``judged``), or with
    queries left NOT TESTED too."""
    checks = summary["checks"]
    return {name: checks[name] for name in BREACHED
            if checks[name]["opportunities"] + (0 if judged else checks[name]["not_tested"])}


@pytest.mark.parametrize("pack", PACKS)
def test_the_correct_store_alone_passes(shim, pack, tmp_path):
    code, summary = gate(shim, None, pack, tmp_path)
    assert (code, summary["status"]) == (0, "PASS"), summary["checks"]


@pytest.mark.parametrize("pack", PACKS)
@pytest.mark.parametrize("rendering", READABLE)
def test_every_value_the_index_serves_fails_its_check_in_every_rendering(shim, rendering, pack, tmp_path):
    code, summary = gate(shim, Index(rendering), pack, tmp_path)
    assert (code, summary["status"]) == (1, "FAIL"), summary["checks"]
    checks = breached(summary)
    assert {"deletion_residue", "stale_reuse"} <= set(checks)
    # every opportunity caught: a residue the judge missed in one rendering would be a rate under 1
    assert {name: (c["status"], c["rate"]) for name, c in checks.items()} == {name: ("FAIL", 1.0) for name in checks}
    assert summary["checks"]["scope_leakage"]["status"] == "PASS"  # the index keeps to its scope


@pytest.mark.parametrize("pack", PACKS)
def test_an_encoding_no_judge_can_undo_is_not_tested_never_a_pass(shim, pack, tmp_path):
    code, summary = gate(shim, Index("opaque"), pack, tmp_path)
    assert (code, summary["status"]) == (1, "INCONCLUSIVE"), summary["checks"]
    checks = breached(summary, judged=False)
    assert {"deletion_residue", "stale_reuse"} <= set(checks)
    # no query where the index served a value enciphered is judged, let alone passed
    assert {name: (c["status"], c["opportunities"]) for name, c in checks.items()} == \
        {name: ("NOT TESTED", 0) for name in checks}, checks


@pytest.mark.parametrize("pack", PACKS)
def test_an_index_keyed_by_tenant_serves_another_users_values_in_colour_and_fails_scope_leakage(shim, pack, tmp_path):
    code, summary = gate(shim, Index("ansi", tenant_only=True), pack, tmp_path)
    assert code == 1 and summary["checks"]["scope_leakage"]["status"] == "FAIL", summary["checks"]


@pytest.mark.parametrize("rendering, code, status", [
    ("ascii-fold", 1, "FAIL"),  # each delete still served when the timeout runs out: its reads judge the residue
    ("opaque", 1, "INCONCLUSIVE"),  # the lookup cannot tell the delete did not take; the queries are NOT TESTED
])
def test_an_index_that_answers_the_confirming_lookups_too_is_never_a_pass(shim, rendering, code, status, tmp_path):
    shape, url, _, _ = shim
    short = lagging_index.config(shape, tmp_path, url, convergence=0.2)
    got, summary = gate(shim, Index(rendering, lookups=True), "diacritics", tmp_path, short)
    assert (got, summary["status"]) == (code, status), summary["checks"]


@pytest.fixture(scope="module")
def peer_shaped(tmp_path_factory):
    """memlab's bundled pack in the peer's shape: both tools read it, on a clone of this repository alone."""
    out = tmp_path_factory.mktemp("pack") / "memorycheck-shape"
    done = CliRunner().invoke(main, ["lifecycle", "export", str(PACKS["bundled"]), "--to", str(out)])
    assert done.exit_code == 0, done.output
    return out


@pytest.mark.parametrize("on", ["peers-pack", "memlabs-pack"])
@pytest.mark.parametrize("rendering", ["highlight", "ansi"])
def test_beside_the_peer_gate_memlab_fails_what_memorycheck_passes(rendering, on, peer_shaped, tmp_path):
    """Side by side on one pack (the peer's own, or memlab's in the peer's shape) and the peer's shim
    contract: its judge keeps ``[a-z0-9]`` runs of the lowered text and undoes nothing, so the index's
    rendering of every stale and deleted value passes it (exit 0, PASS), while memlab's judge FAILs the
    same answers (docs/lifecycle.md). The peer runs live where it is installed, else its recorded
    outputs stand in (tests/lifecycle/peer_gate.py)."""
    pack = peer_gate.peer_pack() if on == "peers-pack" else peer_shaped
    with lagging_index.serve("memorycheck") as (url, store):
        store.index = Index(rendering)
        config = lagging_index.config("memorycheck", tmp_path, url)
        peer_code, peer_report, _ = peer_gate.run("peer", "run", pack, "--adapter", f"http:{config}",
                                                  report=tmp_path / "peer.json", record=f"lagging-{rendering}@{on}")
        code, report, _ = peer_gate.run("memlab", "run", pack, "--adapter", f"http:{config}",
                                        "--out", tmp_path / "set", report=tmp_path / "memlab.json")
    assert (peer_code, peer_report["gate"]["verdict"]) == (0, "PASS")
    assert (code, report["gate"]["verdict"]) == (1, "FAIL")
    assert peer_gate.metrics(report)["stale_reuse"]["rate"] > 0
