"""The SUT decides: the runner hands each write over exactly as its channel defines it, verifies no
signature, reads no label, and the adversary cannot reach the genuine writer's key."""

from __future__ import annotations

import ast
import gc
from pathlib import Path

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from frontdoor_stores import RecordingStore

from lab.frontdoor import runner
from lab.frontdoor.channels import (TRUSTED_LABEL, UNTRUSTED_LABEL, Adversary, AgentDraft, Channel, Forgery,
                                    GenuineSide, landed, signing_message)
from lab.frontdoor.fixtures import FIXTURES
from lab.frontdoor.scope import Scope

FRONTDOOR = Path(runner.__file__).parent


def valid(public: bytes, signature: bytes | None, scope, label, text, tags) -> bool:
    if signature is None:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, signing_message(scope, label, text, tags))
    except InvalidSignature:
        return False
    return True


@pytest.fixture(scope="module")
def recorded():
    """Every attack write of every fixture and channel, as the store received it."""
    genuine, adversary, seen = GenuineSide(), Adversary(), []

    def make(trust_root: bytes) -> RecordingStore:
        seen.append(RecordingStore(trust_root))
        return seen[-1]

    out = []
    for fixture in FIXTURES:
        for channel in Channel:
            outcome = runner.run_fixture(fixture, channel, make, genuine, adversary)
            attack_calls = [call for call in seen[-1].calls if call[1] in fixture.attack]
            out.append((fixture, channel, outcome, attack_calls))
    return genuine, adversary, out


def test_the_store_sees_each_channel_exactly_as_defined(recorded):
    genuine, adversary, runs = recorded
    for fixture, channel, _outcome, calls in runs:
        assert len(calls) == len(fixture.attack)
        for scope, text, label, signature, tags in calls:
            args = (scope, label, text, tags)
            if channel is Channel.UNTRUSTED:
                assert (label, signature) == (UNTRUSTED_LABEL, None)
            elif channel is Channel.FORGED:
                assert label == TRUSTED_LABEL and not valid(genuine.public_key, signature, *args)
                if runner.forgery_for(fixture) is Forgery.OWN_KEY:
                    assert valid(adversary.public_key, signature, *args)
                else:
                    assert signature is None
            else:
                assert label == TRUSTED_LABEL and valid(genuine.public_key, signature, *args)
            assert tags == fixture.attack_tags


def test_the_saved_writes_are_the_bytes_the_store_received(recorded):
    _genuine, _adversary, runs = recorded
    for fixture, _channel, outcome, calls in runs:
        saved = [w for w in outcome.writes if w.role == "attack"]
        assert [(w.label, w.signature, frozenset(w.tags)) for w in saved] == \
               [(label, sig.hex() if sig else None, tags) for _s, _t, label, sig, tags in calls]


def test_both_forgeries_are_used():
    assert {runner.forgery_for(f) for f in FIXTURES} == set(Forgery)


@pytest.mark.parametrize("module", ["runner", "verdicts", "results"])
def test_the_deciding_side_imports_no_verification_and_no_store_check(module):
    tree = ast.parse((FRONTDOOR / f"{module}.py").read_text())
    imported = {(n.module, a.name) for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    imported |= {(a.name, None) for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not [m for m, _ in imported if m.startswith("cryptography")]
    assert {name for m, name in imported if m == "lab.frontdoor.reference"} <= {"MemoryStore"}
    names = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)} | \
            {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert not {"verify", "instruction_shaped", "TRUSTED_LABEL", "UNTRUSTED_LABEL", "key_of", "admits",
                "serves"} & names


def reachable(root: object) -> list[object]:
    """Everything reachable from ``root`` through instance state (not through modules or classes)."""
    seen, todo, out = {id(root)}, [root], []
    while todo:
        obj = todo.pop()
        out.append(obj)
        for ref in gc.get_referents(obj):
            if id(ref) in seen or isinstance(ref, type) or type(ref).__name__ == "module":
                continue
            seen.add(id(ref))
            todo.append(ref)
    return out


def test_the_adversary_cannot_reach_the_genuine_key():
    genuine, adversary = GenuineSide(), Adversary()
    genuine_key = genuine._GenuineSide__key
    found = reachable(adversary)
    assert not any(obj is genuine_key or obj is genuine for obj in found)
    assert any(obj is adversary._Adversary__key for obj in found)  # the walk does see slotted state
    scope = Scope(tenant="acme", user="victim")
    assert isinstance(adversary.write(Channel.SIGNED, scope, "x"), AgentDraft)
    forged = adversary.write(Channel.FORGED, scope, "x", forgery=Forgery.OWN_KEY)
    assert not valid(genuine.public_key, forged.signature, scope, forged.label, "x", frozenset())


def test_a_signature_covers_the_scope():
    genuine, text = GenuineSide(), "The user's landlord is Marguerite Okafor."
    write = genuine.write(Scope(tenant="acme", user="alice"), text)
    assert not valid(genuine.public_key, write.signature, Scope(tenant="acme", user="bob"), write.label, text,
                     frozenset())


#: The modules that write, read and verify a set: they may also use the result sets' files, digests,
#: lock and signatures, the lifecycle's grounds and the lab's version.
SET_SIDE = {"folder", "grounds", "verify", "writer"}


def test_the_front_door_imports_only_itself_and_the_lifecycle_judge_of_the_lab():
    """The measuring side imports nothing of the lab but the lifecycle judge's matching; the set side the result
    sets' machinery too, the shim adapter the lifecycle's HTTP config and transport (one way to reach a
    team's service), the driver's store the lifecycle's SUT process, the profiles and the runtimes
    (one way to run a row's SUT), and the read-back of a stopped store (C3) a profile's ``frontdoor.stored``;
    never the at-rest method or judge."""
    offenders = []
    for path in sorted(FRONTDOOR.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [node.module] if isinstance(node, ast.ImportFrom) and node.module else \
                [a.name for a in node.names] if isinstance(node, ast.Import) else []
            allowed = ("lab.frontdoor", "lab.lifecycle.matching") + (
                ("lab.resultset", "lab.lifecycle.grounds") if path.stem in SET_SIDE else ()) + (
                ("lab.lifecycle.adapters.http_config", "lab.lifecycle.adapters.http_transport",
                 "lab.lifecycle.adapters.http_json", "lab.lifecycle.adapters.http_reach")
                if path.stem == "http_store" else ()) + (
                ("lab.lifecycle.adapters", "lab.profile", "lab.runtime") if path.stem == "driver_store" else ()) + (
                ("lab.profile.stored",) if path.stem == "stored" else ())
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] == "lab" and not n.startswith(allowed)
                          and not (path.stem in SET_SIDE and n == "lab")]
    assert offenders == []


def test_a_sut_s_own_message_is_what_both_sides_sign_and_each_write_names_its_signer():
    """Where a SUT verifies signatures of its own format, the genuine writer and the adversary sign the
    bytes the SUT builds (a row's driver says which), each with its own key, and say which key signed."""
    def sut_message(scope, label, text, tags):
        return f"{label}|{text}".encode()

    scope = Scope(tenant="acme", user="alice")
    genuine, adversary = GenuineSide(message=sut_message), Adversary(message=sut_message)
    write = genuine.write(scope, "fact")
    assert write.signer == genuine.public_key
    Ed25519PublicKey.from_public_bytes(genuine.public_key).verify(write.signature, b"user|fact")
    forged = adversary.write(Channel.FORGED, scope, "lie", forgery=Forgery.OWN_KEY)
    assert forged.signer == adversary.public_key != genuine.public_key
    Ed25519PublicKey.from_public_bytes(adversary.public_key).verify(forged.signature, b"user|lie")
    assert adversary.write(Channel.FORGED, scope, "lie", forgery=Forgery.NONE).signer is None
    assert adversary.write(Channel.UNTRUSTED, scope, "lie").signer is None
    relayed = landed(adversary.write(Channel.SIGNED, scope, "fed"), genuine)
    assert relayed.signer == genuine.public_key


def test_a_row_counts_its_cases_as_it_goes():
    """The progress a long row gives: one tick per case, each with the row's total."""
    ticks = []
    result = runner.run_row("naive", RecordingStore, on_case=lambda done, total: ticks.append((done, total)))
    total = len(result.poisoning) + len(result.isolation)
    assert ticks == [(n, total) for n in range(1, total + 1)]
