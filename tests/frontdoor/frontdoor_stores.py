"""Stores the front-door tests measure beside the four reference ones: each breaks one thing."""

from __future__ import annotations

import unicodedata

from lab.frontdoor.observations import Served
from lab.frontdoor.reference import NaiveStore
from lab.frontdoor.scope import Scope


class SilentStore(NaiveStore):
    """Accepts every write and serves nothing: silence must never pass."""

    def read(self, scope, query, k, tag=None) -> list[Served]:
        return []


class RefusingStore(NaiveStore):
    """Refuses every write."""

    def admits(self, scope, kept) -> bool:
        return False


class TagBlindStore(NaiveStore):
    """Ignores the tag a read filters on."""

    def read(self, scope, query, k, tag=None) -> list[Served]:
        return super().read(scope, query, k)


class SharedPoolStore(NaiveStore):
    """One pool for every scope."""

    def key_of(self, scope: Scope) -> str:
        return "pool"


class FoldingStore(NaiveStore):
    """Normalises ids before keying (NFKC, casefold, trimmed, zero-width dropped, str of an int)."""

    def key_of(self, scope: Scope) -> str:
        def fold(part):
            if part is None:
                return None
            text = unicodedata.normalize("NFKC", str(part)).casefold().strip().replace("\u200b", "")
            return text
        return Scope(tenant=fold(scope.tenant), user=fold(scope.user), session=fold(scope.session)).key()


class RecordingStore(NaiveStore):
    """A naive store that records every call exactly as it was made."""

    def __init__(self, trust_root: bytes):
        super().__init__(trust_root)
        self.calls: list[tuple] = []

    def write(self, scope, text, label, signature, tags=frozenset(), signer=None) -> bool:
        self.calls.append((scope, text, label, signature, tags))
        return super().write(scope, text, label, signature, tags)


class MarkEverythingStore(NaiveStore):
    """Serves every record under its untrusted marker, the user's own too: marking must never pass."""

    def read(self, scope, query, k, tag=None) -> list[Served]:
        return [Served(text=s.text, marker="untrusted") for s in super().read(scope, query, k, tag=tag)]


class LabelRefusingTagBlindStore(TagBlindStore):
    """Refuses a write not carrying the trusted label (as atmem refuses a note from any source but the
    user) and has no tag filter: its untrusted trust-tag fixtures are refused, the trust filter's
    negative control fails all the same."""

    def admits(self, scope, kept) -> bool:
        return kept.label == "user"



class MarkUntrustedTagBlindStore(TagBlindStore):
    """Serves a write not carrying the trusted label under its own untrusted marker (as ADK fences another
    author's event) and has no tag filter."""

    def marker(self, kept) -> str | None:
        return None if kept.label == "user" else "untrusted"
