"""Proven stored, the front door's C3: each case's store read back with the SUT stopped, and every
accepted attack write held to what was sent. A write the store did not keep as sent is a harness error
(no verdict), never a pass; a refused write found stored is KEPT OUT, never REJECTED; ``verify``
recomputes all of it from the saved records; a profile's ``frontdoor.stored`` is checked like a layout.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from lab.frontdoor.as_sent import not_as_sent
from lab.frontdoor.channels import Channel
from lab.frontdoor.fixtures import FIXTURES
from lab.frontdoor.observations import Stored, StoredRecord, WriteSeen
from lab.frontdoor.reference import NaiveStore
from lab.frontdoor.runner import run_row
from lab.frontdoor.scope import Scope
from lab.frontdoor.stored import value_at
from lab.frontdoor.verdicts import Verdict
from lab.profile import ProfileError, load_profile
from lab.profile.stored import FieldPath

ROOT = Path(__file__).resolve().parents[2]
SOME = [f for f in FIXTURES if f.family.value in ("planted_fact", "instruction")][:4]


class CaseStore(NaiveStore):
    """A naive store that names its case and keeps what ``kept`` makes of each write it accepts."""

    made = 0

    def __init__(self, trust_root: bytes, kept=lambda label, signature: (label, signature), refuse=False,
                 keep_refused=False):
        super().__init__(trust_root)
        CaseStore.made += 1
        self.case, self.kept, self.refuse, self.keep_refused = f"case-{CaseStore.made}", kept, refuse, keep_refused
        self.rows: list[StoredRecord] = []

    def write(self, scope, text, label, signature, tags=frozenset(), signer=None) -> bool:
        attack = text in ATTACK_TEXTS
        accepted = not (self.refuse and attack)
        if accepted or self.keep_refused:
            stored_label, stored_signature = self.kept(label, signature) if attack else (label, signature)
            self.rows.append(StoredRecord(text=text, where=self.case, label=stored_label,
                                          signature=stored_signature.hex() if stored_signature else None))
        return super().write(scope, text, label, signature, tags, signer) if accepted else False


ATTACK_TEXTS = {text for f in FIXTURES for text in f.attack}


def measured(**store_options):
    """The fixtures on every channel against a ``CaseStore``, each case read back from its rows."""
    stores: dict[str, CaseStore] = {}

    def make(trust_root: bytes) -> CaseStore:
        store = CaseStore(trust_root, **store_options)
        stores[store.case] = store
        return store

    def prove(attacks: dict[str, list[str]]) -> dict[str, Stored]:
        return {case: Stored(case=case, label=True, signature=True, records=tuple(stores[case].rows))
                for case in attacks}

    return run_row("case-store", make, fixtures=SOME, probes=(), prove=prove)


def test_a_store_that_keeps_every_write_as_sent_is_proven_and_judged_as_before():
    result = measured()
    assert result.proven() == (sum(len(f.attack) for f in SOME) * 3,) * 2
    assert {o.decision.verdict for o in result.poisoning} == {Verdict.SERVED}
    assert all(o.case and o.stored and o.stored.records for o in result.poisoning)


def test_a_label_the_store_rewrote_leaves_the_fixture_without_a_verdict():
    result = measured(kept=lambda label, signature: ("external", signature))
    by_channel = {ch: [o.decision for o in result.poisoning if o.channel is ch] for ch in Channel}
    assert all(d.verdict is Verdict.SERVED for d in by_channel[Channel.UNTRUSTED])  # sent external, kept so
    for channel in (Channel.FORGED, Channel.SIGNED):
        assert all(d.verdict is None and "stored with label 'external', not the 'user' sent" in d.reason
                   for d in by_channel[channel])
    assert result.cell_at(SOME[0].family, Channel.FORGED).status == "n/a"
    n = sum(len(f.attack) for f in SOME)
    assert result.proven() == (n, 3 * n)


def test_a_signature_the_store_dropped_leaves_the_signed_fixtures_without_a_verdict():
    result = measured(kept=lambda label, signature: (label, None))
    signed = [o.decision for o in result.poisoning if o.channel is Channel.SIGNED]
    assert signed and all(d.verdict is None and "another signature" in d.reason for d in signed)
    assert all(o.decision.verdict is Verdict.SERVED for o in result.poisoning if o.channel is Channel.UNTRUSTED)


def test_an_accepted_write_the_store_did_not_keep_is_no_pass():
    """Silently dropped after saying accepted: KEPT OUT without the read-back, no verdict with it."""
    class Dropping(CaseStore):
        def write(self, scope, text, label, signature, tags=frozenset(), signer=None) -> bool:
            if text in ATTACK_TEXTS:
                return True
            return super().write(scope, text, label, signature, tags, signer)

    stores: dict[str, CaseStore] = {}

    def make(trust_root):
        store = Dropping(trust_root)
        stores[store.case] = store
        return store

    blind = run_row("dropping", make, fixtures=SOME, probes=())
    assert {o.decision.verdict for o in blind.poisoning} == {Verdict.KEPT_OUT}
    proven = run_row("dropping", make, fixtures=SOME, probes=(), prove=lambda attacks: {
        case: Stored(case=case, label=True, signature=False, records=tuple(stores[case].rows)) for case in attacks})
    assert {o.decision.verdict for o in proven.poisoning} == {None}
    assert all("not in the stopped store" in o.decision.reason for o in proven.poisoning)
    assert proven.level() == "n/a"


def test_a_refused_write_found_stored_is_kept_out_not_rejected():
    assert {o.decision.verdict for o in measured(refuse=True).poisoning} == {Verdict.REJECTED}
    kept = measured(refuse=True, keep_refused=True).poisoning
    assert {o.decision.verdict for o in kept} == {Verdict.KEPT_OUT}
    assert all("refused, yet stored (C3)" in o.decision.detail for o in kept)


def test_a_store_that_could_not_be_read_back_proves_nothing():
    result = run_row("unreadable", lambda root: CaseStore(root), fixtures=SOME[:1], probes=(), prove=lambda attacks: {
        case: Stored(case=case, label=True, signature=True, records=(), error="OSError: gone") for case in attacks})
    assert all(o.decision.verdict is None and "could not be read: OSError: gone" in o.decision.reason
               for o in result.poisoning)


def test_verify_recomputes_the_read_back():
    result = measured()
    assert result.recheck() == []
    first = result.poisoning[0]
    forged = first.stored.model_copy(update={"records": tuple(
        r.model_copy(update={"label": "somebody else"}) for r in first.stored.records)})
    tampered = result.model_copy(update={"poisoning": (first.model_copy(update={"stored": forged}),
                                                       *result.poisoning[1:])})
    assert tampered.recheck() == [f"{first.fixture} on {first.channel.value}"]


labels = st.text(max_size=12)


@given(sent=labels, kept=labels, signature=st.none() | st.binary(min_size=1, max_size=8))
def test_a_write_is_as_sent_exactly_when_its_label_and_signature_are_kept(sent, kept, signature):
    write = WriteSeen(role="attack", scope=Scope(user="v"), text="the planted text", label=sent,
                      signature=signature.hex() if signature else None, accepted=True)
    stored = Stored(case="c", label=True, signature=True, records=(
        StoredRecord(text="prefix the planted text", where="x", label=kept, signature=write.signature),))
    assert (not_as_sent([write], stored) is None) == (sent == kept)


@given(st.dictionaries(st.text(min_size=1, max_size=5), st.text(max_size=5), max_size=4),
       st.lists(st.text(min_size=1, max_size=5), max_size=3))
def test_a_stored_value_is_found_at_its_path_or_is_none(inner, path):
    fields = {"doc": json.dumps({"a": inner})}
    found = value_at(fields, FieldPath(field="doc", path=("a", *path)))
    expected = inner
    for key in path:
        expected = expected.get(key) if isinstance(expected, dict) else None
    assert found == expected


@given(st.lists(st.sampled_from(["source:user", "source:external", "source:", "sourced", "verified", "user", 7]),
                max_size=5), st.randoms(use_true_random=False))
def test_a_value_kept_among_tags_is_the_one_tag_with_its_prefix_in_any_order(tags, rng):
    """``prefix``: a SUT that keeps the label as one tag among a record's tags, in no set order, gives it
    back whatever the order; none or several tags with the prefix give no value, never a guess."""
    shuffled = rng.sample(tags, len(tags))
    found = value_at({"tags": json.dumps(shuffled)}, FieldPath(field="tags", prefix="source:"))
    tagged = [t[len("source:"):] for t in tags if isinstance(t, str) and t.startswith("source:")]
    assert found == (tagged[0] if len(tagged) == 1 else None)


def profile_with(tmp_path: Path, stored: str) -> Path:
    """inspeximus-trusted-key's profile with its ``frontdoor.stored`` block replaced by ``stored``."""
    text = (ROOT / "sut_profiles" / "inspeximus-trusted-key.yaml").read_text()
    text = re.sub(r"  stored:.*\n(    .*\n)+", stored, text)
    path = tmp_path / "inspeximus-trusted-key.yaml"
    path.write_text(text)
    return path


#: A stored block keeping labels per file; ``file`` the records', ``volume`` and ``beside`` the entries' store.
PER_FILE = ("  stored:\n    store: {{backend: markdown, volume: store, file: {file}, identity: [], order: '@position', "
            "payload: text, record_pattern: '^- (?P<text>.+)$'}}\n    per_file:\n      store: {{backend: sqlite, "
            "volume: {volume}, file: {beside}, table: e, context: k, identity: [k], order: t, payload: v}}\n"
            "      digest: {{field: v, path: [hash]}}\n    label: {{field: v, path: [origin]}}\n"
            "    signature: {{field: v, path: [sig]}}\n")


@pytest.mark.parametrize("stored, field, says", [
    ("  stored:\n    store: {backend: sqlite, volume: store, file: mem.json, table: records, context: uid, "
     "identity: [id], order: ord, payload: doc}\n", "frontdoor.stored.store.file", "must name {case}"),
    ("  stored:\n    store: {backend: sqlite, volume: store, file: '../{case}/mem.json', table: records, "
     "context: uid, identity: [id], order: ord, payload: doc}\n", "frontdoor.stored.store.file", ".."),
    ("  stored:\n    store: {backend: postgres, volume: store, service: db, table: 'frontdoor_{case}.records', "
     "context: uid, identity: [id], order: ord, payload: doc}\n", "frontdoor.stored.store.service",
     "no service 'db' declared"),
    ("  stored:\n    store: {backend: postgres, volume: store, service: db, table: records, "
     "context: uid, identity: [id], order: ord, payload: doc}\n", "frontdoor.stored.store.table",
     "must name {case}"),
    ("  stored:\n    store: {backend: redis, volume: store, service: db, key: 'mem:{context}:{id}', "
     "context: uid, order: ord, payload: doc}\n", "frontdoor.stored.store.key", "must name {case}"),
    ("  stored:\n    store: {backend: sqlite, volume: home, file: '{case}/mem.json', table: records, "
     "context: uid, identity: [id], order: ord, payload: doc}\n", "frontdoor.stored.store.volume", "adversary"),
    ("  stored:\n    store: {backend: sqlite, volume: store, file: '{case}/m', table: r, context: u, identity: [id], "
     "order: o, payload: d}\n    label: {field: doc, path: [source]}\n    where: nowhere\n", "frontdoor.stored",
     "where"),
    ("  stored:\n    store: {backend: sqlite, volume: store, file: '{case}/m', table: r, context: u, identity: [id], "
     "order: o, payload: d}\n    label: {field: doc, path: [source]}\n", "frontdoor.stored.signature",
     "does not say where it is stored"),
    (PER_FILE.format(file="'{case}/{context}.md'", volume="store", beside="'x/state.db'"),
     "frontdoor.stored.per_file.store.file", "must name {case}"),
    (re.sub(r"store: \{backend: markdown.*\n", "store: {backend: postgres, volume: store, service: db, table: 'f_{case}.t', "
            "context: u, identity: [id], order: o, payload: d}\n",
            PER_FILE.format(file="'{case}/{context}.md'", volume="store", beside="'{case}/state.db'"), count=1),
     "frontdoor.stored.per_file", "records' store in files"),
    (PER_FILE.format(file="'{case}/{context}.md'", volume="store", beside="'{case}/../../state.db'"),
     "frontdoor.stored.per_file.store.file", ".."),
    (PER_FILE.format(file="'{case}/{context}.md'", volume="home", beside="'{case}/state.db'"),
     "frontdoor.stored.per_file.store.volume", "adversary"),
    (PER_FILE.format(file="'{case}/{context}.md'", volume="store", beside="'{case}/state.db'").replace(
        "per_file:\n      store: {backend: sqlite", "per_file:\n      store: {backend: postgres, service: db"),
     "frontdoor.stored.per_file.store.backend", "kept in files"),
])
def test_a_bad_stored_block_names_its_field_and_line(tmp_path, stored, field, says):
    with pytest.raises(ProfileError) as err:
        load_profile(profile_with(tmp_path, stored))
    message = str(err.value)
    assert field in message and says in message and re.search(r"\.yaml:\d+", message), message


#: Front-door rows whose cases' stores are not read back, and why (every other one names frontdoor.stored).
NOT_READ_BACK = {"langgraph-store": "InMemoryStore keeps nothing at rest",
                 "langgraph-sqlite+aes": "only AES ciphertext is at rest, under a key the adversary (and the "
                                         "generic editor) does not hold"}


def test_every_front_door_profile_says_where_each_case_s_store_is_read_back():
    rows = [p for p in map(load_profile, sorted((ROOT / "sut_profiles").glob("*.yaml"))) if p.frontdoor]
    assert {p.row for p in rows if p.frontdoor.stored is None} == set(NOT_READ_BACK)
    for profile in rows:
        spec = profile.frontdoor
        if spec.stored is None:
            continue
        assert "{case}" in spec.stored.store[spec.stored.case_field], profile.row
        assert (spec.stored.label is None) == (spec.label is None), profile.row  # a label sent is one read back
        assert (spec.stored.signature is None) == (spec.signature is None), profile.row


def test_a_store_read_back_gives_each_label_in_the_lab_s_words(tmp_path):
    """A SUT keeping labels in a closed vocabulary of its own (``values``) is read back in the lab's words;
    a value outside it stays as stored, so it never matches a label it was not sent as."""
    import sqlite3

    from lab.frontdoor.stored import read_case
    from lab.profile.stored import StoredSpec

    db = tmp_path / "store" / "frontdoor" / "case-1" / "events.db"
    db.parent.mkdir(parents=True)
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE events (id TEXT, run TEXT, seq INTEGER, payload TEXT, source TEXT)")
        conn.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?)", [
            ("e1", "r", 1, json.dumps({"claim": "planted one"}), "human"),
            ("e2", "r", 2, json.dumps({"claim": "planted two"}), "external_agent"),
            ("e3", "r", 3, json.dumps({"claim": "planted three"}), "deterministic"),
            ("e4", "r", 4, json.dumps({"claim": "unrelated"}), "human")])
    spec = StoredSpec.model_validate({
        "store": {"backend": "sqlite", "volume": "store", "file": "frontdoor/{case}/events.db", "table": "events",
                  "context": "run", "identity": ["id"], "order": "seq",
                  "payload": {"field": "payload", "format": "json", "path": ["claim"]}},
        "label": {"field": "source", "values": {"user": "human", "external": "external_agent"}}})
    found = read_case(spec, {"store": tmp_path / "store"}, "case-1", ["planted"])
    assert [(r.text, r.label) for r in found] == [("planted one", "user"), ("planted two", "external"),
                                                  ("planted three", "deterministic")]


def test_a_label_kept_per_file_is_read_from_the_entry_naming_the_file_s_bytes(tmp_path):
    """A SUT keeping one label per file (``per_file``): a record's label is that of the one entry whose
    digest is the SHA-256 of its file as stored. A file changed since its entry, or named by two entries,
    gives no label, so the write did not land as sent (no verdict), never one the lab guessed."""
    import hashlib
    import sqlite3

    from lab.frontdoor.stored import read_case
    from lab.profile.stored import parse_stored

    case = tmp_path / "store" / "frontdoor" / "case-1"
    files = {"a": "- planted one\n- genuine\n", "b": "- planted two\n", "c": "- planted three\n",
             "d": "- planted four\n"}
    for name, text in files.items():
        (case / "ws" / name).mkdir(parents=True)
        (case / "ws" / name / "MEMORY.md").write_text(text)
    digest = {name: hashlib.sha256(text.encode()).hexdigest() for name, text in files.items()}
    entries = [("a", digest["a"], "untrusted"), ("b", digest["b"].upper(), "agent"),
               ("c", hashlib.sha256(b"- older\n").hexdigest(), "agent"),  # the file changed since its entry
               ("d1", digest["d"], "agent"), ("d2", digest["d"], "agent"),  # two entries name one file's bytes
               ("z", digest["a"][::-1], "agent")]
    with sqlite3.connect(case / "state.db") as conn:
        conn.execute("CREATE TABLE e (k TEXT, t INTEGER, v TEXT)")
        conn.executemany("INSERT INTO e VALUES (?, ?, ?)", [(k, n, json.dumps({"hash": h, "origin": o}))
                                                             for n, (k, h, o) in enumerate(entries)])
    spec = parse_stored({
        "store": {"backend": "markdown", "volume": "store", "file": "frontdoor/{case}/ws/{context}/MEMORY.md",
                  "identity": [], "order": "@position", "payload": "text", "record_pattern": "^- (?P<text>.+)$"},
        "per_file": {"store": {"backend": "sqlite", "volume": "store", "file": "frontdoor/{case}/state.db",
                               "table": "e", "context": "k", "identity": [], "order": "t", "payload": "v"},
                     "digest": {"field": "v", "path": ["hash"]}},
        "label": {"field": "v", "path": ["origin"], "values": {"user": "agent", "external": "untrusted"}}})
    found = read_case(spec, {"store": tmp_path / "store"}, "case-1", ["planted"])
    assert [(r.text, r.label) for r in found] == [("planted one", "external"), ("planted two", "user"),
                                                  ("planted three", None), ("planted four", None)]
