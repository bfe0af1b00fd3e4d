"""Run the fixtures and the isolation probes against a store, one fresh store per case.

The runner only carries writes and reads: each write goes to the store with the label, signature and
tags the channel made, and the store's answer (accepted or refused, what it served) is saved as it
came. It verifies no signature, reads no label and filters by no scope; every decision about what to
keep or serve is the store's (``lab.frontdoor.verdicts`` then judges what was served).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from lab.frontdoor.channels import (CHANNELS, Adversary, Channel, Forgery, GenuineSide, Message, Write, landed,
                                    signing_message)
from lab.frontdoor.filler import filler_texts
from lab.frontdoor.fixture_types import Fixture
from lab.frontdoor.fixtures import FIXTURES, FIXTURES_VERSION, utility_for
from lab.frontdoor.observations import ReadSeen, Role, Stored, WriteSeen
from lab.frontdoor.probes import PROBES, SECRETS, Probe, Secret
from lab.frontdoor.reference import MemoryStore
from lab.frontdoor.results import FrontdoorResult, IsolationOutcome, PoisoningOutcome, SutSide
from lab.frontdoor.rewording import reworded, variants_of
from lab.frontdoor.scope import Scope
from lab.frontdoor.verdicts import decide, decide_leak
from lab.lifecycle.matching import JUDGE_REVISION

StoreFactory = Callable[[bytes], MemoryStore]  # the genuine writer's public key -> a fresh store
#: Each case's name -> the attacker's texts in it; stops the SUT and gives each case's store read back.
Prover = Callable[[dict[str, list[str]]], dict[str, Stored]]
VICTIM = Scope(tenant="acme", user="victim")


class Session:
    """One fresh store and everything handed to it and served by it; ``restart`` (the restarted
    position) is called by ``settle`` after the writes a read is judged on."""

    def __init__(self, store: MemoryStore, restart: Callable[[], object] | None = None):
        self.store, self.restart = store, restart
        self.case: str | None = getattr(store, "case", None)  # a driver's store names each case's own store
        self.writes: list[WriteSeen] = []
        self.reads: list[ReadSeen] = []

    def write(self, role: str, write: Write) -> None:
        accepted = self.store.write(write.scope, write.text, write.label, write.signature, write.tags,
                                    signer=write.signer)
        refusal = getattr(self.store, "refusal", None)  # a driver's store keeps why the SUT refused
        self.writes.append(WriteSeen(role=role, scope=write.scope, text=write.text, label=write.label,
                                     signature=write.signature.hex() if write.signature is not None else None,
                                     tags=tuple(sorted(write.tags)), accepted=bool(accepted), refusal=refusal,
                                     signer=write.signer.hex() if write.signer is not None else None))

    def settle(self) -> None:
        """The restarted position: the SUT stopped and started on its volumes before the next read."""
        if self.restart is not None:
            self.restart()

    def read(self, role: str, scope: Scope, query: str, k: int, tag: str | None = None) -> None:
        served = tuple(self.store.read(scope, query, k, tag=tag))
        self.reads.append(ReadSeen(role=role, scope=scope, query=query, k=k, tag=tag, served=served))


def forgery_for(fixture: Fixture) -> Forgery:
    """Forged writes alternate: odd-numbered fixtures carry no signature, even ones the attacker's own."""
    return Forgery.NONE if int(fixture.id.rsplit("/", 1)[1]) % 2 else Forgery.OWN_KEY


def run_fixture(fixture: Fixture, channel: Channel, make_store: StoreFactory, genuine: GenuineSide,
                adversary: Adversary, restart: Callable[[], object] | None = None,
                filler: Sequence[str] = (), variant: int = 0) -> PoisoningOutcome:
    """[Filler,] genuine memories, [the contested value read], the attack, the verdict and control reads,
    and a genuine write after it all: one fixture on one channel (``restart``: before each judged read;
    ``variant``: the attack in a rewording that keeps its canary, 0 as written)."""
    session, utility = Session(make_store(genuine.public_key), restart), utility_for(fixture)
    for text in filler:
        session.write(Role.FILLER, genuine.write(VICTIM, text))
    for memory in fixture.genuine:
        session.write(Role.GENUINE, genuine.write(VICTIM, memory.text, memory.tags))
    if fixture.negative:
        session.write(Role.NEGATIVE, genuine.write(VICTIM, fixture.negative.text, fixture.negative.tags))
    if fixture.contested:
        session.read(Role.BEFORE, VICTIM, fixture.question, fixture.k, fixture.read_tag)
    for text in fixture.attack:
        text = reworded(text, fixture.canary, variant)
        attempt = adversary.write(channel, VICTIM, text, fixture.attack_tags, forgery_for(fixture))
        session.write(Role.ATTACK, landed(attempt, genuine))
    session.settle()
    session.read(Role.VERDICT, VICTIM, fixture.question, fixture.k, fixture.read_tag)
    session.read(Role.CONTROL, VICTIM, fixture.control.query, fixture.k, fixture.read_tag)
    tags = frozenset({fixture.read_tag}) if fixture.read_tag else frozenset()
    session.write(Role.UTILITY, genuine.write(VICTIM, utility.memory.text, tags))
    session.settle()
    session.read(Role.UTILITY, VICTIM, utility.query, fixture.k, fixture.read_tag)
    return PoisoningOutcome(fixture=fixture.id, family=fixture.family, channel=channel, case=session.case,
                            variant=variant,
                            forgery=forgery_for(fixture) if channel is Channel.FORGED else None,
                            writes=tuple(session.writes), reads=tuple(session.reads),
                            decision=decide(fixture, utility, session.writes, session.reads))


def run_case(probe: Probe, owner: Scope, reader: Scope, secret: Secret, make_store: StoreFactory,
             genuine: GenuineSide, k: int = 5, restart: Callable[[], object] | None = None) -> IsolationOutcome:
    """The owner writes a secret, the reader their own memory; each reads; the reader's read is judged."""
    session = Session(make_store(genuine.public_key), restart)
    session.write(Role.OWNER, genuine.write(owner, secret.owner.text))
    session.write(Role.READER, genuine.write(reader, secret.reader.text))
    session.settle()
    session.read(Role.OWNER, owner, secret.query, k)
    session.read(Role.READER, reader, secret.query, k)
    return IsolationOutcome(probe=probe.name, secret=secret.id, owner=owner, reader=reader,
                            writes=tuple(session.writes), reads=tuple(session.reads),
                            decision=decide_leak(secret.owner.canary, secret.reader.canary, session.reads))


def run_row(store: str, make_store: StoreFactory, *, fixtures: Iterable[Fixture] = FIXTURES,
            channels: Iterable[Channel] = CHANNELS, probes: Iterable[Probe] = PROBES,
            secrets: Iterable[Secret] = SECRETS, genuine: GenuineSide | None = None,
            adversary: Adversary | None = None, enforcer: str = "sut",
            restart: Callable[[], object] | None = None, sut: SutSide | None = None,
            message: Message | None = None, prove: Prover | None = None, filler: int = 0, reword: bool = False,
            on_case: Callable[[int, int], object] | None = None) -> FrontdoorResult:
    """Every fixture on every channel, and every probe pair with every secret, against ``make_store``
    (``enforcer``: who keeps its contexts apart; the calibration stores do it themselves; ``restart``:
    the restarted position, the SUT restarted before every judged read; ``sut``: a driver's row, whose
    channels are the ones it measures; ``message``: the bytes the SUT verifies a signature over, where
    it has its own format; ``prove``: after every case, the SUT stopped and each case's store read back,
    each fixture's verdict then decided with it (proven stored, C3); ``filler``: that many unrelated genuine
    memories written before every fixture (the scale tier); ``reword``: each statement-like attack also in
    its key-preserving rewordings (``lab.frontdoor.rewording``); ``on_case(done, total)``: called
    after each case, for a progress bar)."""
    message = message or signing_message
    genuine, adversary = genuine or GenuineSide(message=message), adversary or Adversary(message=message)
    fixtures, secrets = list(fixtures), list(secrets)
    channels = list(sut.channels) if sut is not None else list(channels)
    plan = [(fx, ch, v) for fx in fixtures for ch in channels for v in variants_of(fx, reword)]
    pairs = [(probe, owner, reader, secret) for probe in probes for owner, reader in probe.pairs for secret in secrets]
    total, done = len(plan) + len(pairs), 0

    def counted(outcome):
        nonlocal done
        done += 1
        if on_case is not None:
            on_case(done, total)
        return outcome

    memos = filler_texts(filler)
    poisoning = [counted(run_fixture(fx, ch, make_store, genuine, adversary, restart, memos, v)) for fx, ch, v in plan]
    isolation = [counted(run_case(probe, owner, reader, secret, make_store, genuine, restart=restart))
                 for probe, owner, reader, secret in pairs]
    if prove is not None:
        stored = prove({o.case: [w.text for w in o.writes if w.role == Role.ATTACK] for o in poisoning if o.case})
        poisoning = [o.redecided(stored.get(o.case), JUDGE_REVISION) for o in poisoning]
    return FrontdoorResult(store=store, fixtures_version=FIXTURES_VERSION, judge_revision=JUDGE_REVISION, enforcer=enforcer,
                           trust_root=genuine.public_key.hex(), position="live" if restart is None else "restarted",
                           sut=sut, filler=filler, poisoning=tuple(poisoning), isolation=tuple(isolation))
