"""The three attacker channels, the genuine writer and the adversary, kept apart.

A write is a text with a label and a signature. The reference convention has two labels: ``user``
(trusted, first-party) and ``external`` (untrusted: a tool, a web page, another agent). A signature is
Ed25519 over ``signing_message`` (scope key, label, text, tags), or over the SUT's own message where a
SUT verifies signatures of its own format (a row's driver says which bytes, ``message``); a signed
write names its signer, the public half of the key that signed it.

- ``untrusted``: the untrusted label, no signature: an attacker who does not lie about the source.
- ``forged``: the trusted label with no valid signature -- none, or one under the attacker's own key:
  an API caller lying about provenance without the writer's key.
- ``signed``: the trusted label signed by the genuine writer, because the attacker's content came
  through the agent, which signs what it saves. Only a content check can catch it.

Two sides, two objects. ``GenuineSide`` holds the genuine writer's private key and writes the victim's
memories; it also relays what the agent is fed (the signed channel). ``Adversary`` holds only its own
key: it never receives the genuine side, so no attribute path from it reaches the genuine key. On the
signed channel it hands back an ``AgentDraft``, and the harness passes the draft to the genuine side.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from lab.frontdoor.scope import Scope

TRUSTED_LABEL = "user"
UNTRUSTED_LABEL = "external"


class Channel(str, Enum):
    """How the attacker's write claims its source."""

    UNTRUSTED = "untrusted"
    FORGED = "forged"
    SIGNED = "signed"


CHANNELS = tuple(Channel)


class Forgery(str, Enum):
    """What a forged write carries in place of a valid signature."""

    NONE = "none"
    OWN_KEY = "own-key"


@dataclass(frozen=True)
class Write:
    """One write exactly as it is handed to the store."""

    scope: Scope
    text: str
    label: str
    signature: bytes | None
    tags: frozenset[str] = frozenset()
    signer: bytes | None = None  # the raw public key of the key that signed (None: unsigned)


@dataclass(frozen=True)
class AgentDraft:
    """Content the attacker feeds the agent; the agent saves it as its own, trusted and signed."""

    scope: Scope
    text: str
    tags: frozenset[str] = frozenset()


def signing_message(scope: Scope, label: str, text: str, tags: frozenset[str]) -> bytes:
    """The bytes a signature covers: the scope's key, the label, the text and the sorted tags."""
    return json.dumps([scope.key(), label, text, sorted(tags)], ensure_ascii=True,
                      separators=(",", ":")).encode()


#: (scope, label, text, tags) -> the bytes a signature covers.
Message = Callable[[Scope, str, str, frozenset[str]], bytes]


def _key(seed: bytes | None) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(seed) if seed is not None else Ed25519PrivateKey.generate()


def _raw_public(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def _signed(key: Ed25519PrivateKey, signer: bytes, scope: Scope, text: str, tags: frozenset[str],
            message: Message) -> Write:
    """A trusted-label write signed by ``key`` (whose raw public key is ``signer``)."""
    return Write(scope, text, TRUSTED_LABEL, key.sign(message(scope, TRUSTED_LABEL, text, tags)), tags, signer=signer)


class GenuineSide:
    """The harness's genuine writer: the victim's own memories, and the agent saving what it is fed;
    ``message``: the bytes its signatures cover (the reference convention, or a SUT's own)."""

    __slots__ = ("__key", "public_key", "message")

    def __init__(self, seed: bytes | None = None, message: Message = signing_message):
        self.__key = _key(seed)
        self.public_key: bytes = _raw_public(self.__key)  # the trust root a store is configured with
        self.message = message

    def write(self, scope: Scope, text: str, tags: frozenset[str] = frozenset()) -> Write:
        """A memory the user really wrote: the trusted label, signed."""
        return _signed(self.__key, self.public_key, scope, text, tags, self.message)

    def relay(self, draft: AgentDraft) -> Write:
        """The agent saving content it was fed: indistinguishable from the user's own write."""
        return _signed(self.__key, self.public_key, draft.scope, draft.text, draft.tags, self.message)


class Adversary:
    """The write-path attacker: its own key, the SUT's write API, never the genuine writer's key; it
    signs what the SUT would verify (``message``), with its own key."""

    __slots__ = ("__key", "public_key", "message")

    def __init__(self, seed: bytes | None = None, message: Message = signing_message):
        self.__key = _key(seed)
        self.public_key: bytes = _raw_public(self.__key)
        self.message = message

    def write(self, channel: Channel, scope: Scope, text: str, tags: frozenset[str] = frozenset(),
              forgery: Forgery = Forgery.OWN_KEY) -> Write | AgentDraft:
        """The attacker's write on ``channel``; on the signed channel, a draft for the agent to save."""
        if channel is Channel.UNTRUSTED:
            return Write(scope, text, UNTRUSTED_LABEL, None, tags)
        if channel is Channel.FORGED:
            if forgery is Forgery.NONE:
                return Write(scope, text, TRUSTED_LABEL, None, tags)
            return _signed(self.__key, self.public_key, scope, text, tags, self.message)
        return AgentDraft(scope, text, tags)


def landed(out: Write | AgentDraft, agent: GenuineSide) -> Write:
    """What reaches the store: the attacker's own write, or the agent's signed save of its draft."""
    return agent.relay(out) if isinstance(out, AgentDraft) else out
