"""Broken: a correct primary store behind a lagging search index that still serves what was deleted,
superseded or expired, in the index's own rendering (issue 37), in either contract.

The primary store is the example shim's (memlab's contract) or the peer shim's ``correct`` mode
(memorycheck's): it supersedes, deletes and expires as it should and serves the current values
plainly, so every mutation confirms. Beside it an :class:`Index` keeps every value ever written to
a scope and, at a query, adds each one the primary no longer serves there, passed through
``RENDERINGS[rendering]``:

- ``plain``: verbatim; ``highlight``: ``<em>Ber<b>lin</b></em>``; ``html-double``: ``&amp;#66;erlin``;
- ``json-escape``: the record as JSON, ``{"value": "Z\\u00fcrich"}``; ``percent``: ``Z%C3%BCrich``;
- ``ansi``: a colour code inside each word; ``ascii-fold``: ``Lodz`` for ``Łódź`` (anyascii);
- ``homoglyph``: Latin e, o, a as Cyrillic е, о, а;
- ``opaque``: base64 of the UTF-8 bytes XOR-ed with a keystream: no judge can read it back.

Key lookups (``What is the <key> for this user?``, the prompt the gate confirms mutations with) are
answered by the primary store alone, as in a stack whose exact-key route skips the search index:
the index's residue reaches the scenarios' own queries only. ``Index(lookups=True)`` routes them
through the index as well; ``tenant_only=True`` keys the index by tenant, so it serves another
user's values too. ``store.index = Index(...)`` (or None: the primary alone) switches a running
shim; the gate's reset empties it. ``serve(shape)`` runs one answering in each of ``SHAPES``.
"""
from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import threading
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from anyascii import anyascii
from shims import example, peer, serve as serve_example

BROKEN = "deleted and superseded values stay served by a search index, rendered"
LOOKUP = re.compile(r"What is the .+ for this user\?")
_PIECE = re.compile(r"(\w+)|\W+")
_HOMOGLYPHS = str.maketrans("eoa", "\u0435\u043e\u0430")


def _words(word: Callable[[str], str], other: Callable[[str], str] = html.escape) -> Callable[[str], str]:
    """Each run of word characters through ``word``, every other run through ``other``."""
    return lambda value: "".join(word(m[0]) if m[1] else other(m[0]) for m in _PIECE.finditer(value))


def _cut(join: Callable[[str, str], str]) -> Callable[[str], str]:
    """A word cut in its middle and put back by ``join(head, tail)``."""
    return lambda w: join(w[:len(w) // 2], w[len(w) // 2:]) if len(w) > 1 else w


def _enciphered(value: str) -> str:
    raw = value.encode("utf-8")
    stream = b"".join(hashlib.sha256(b"memlab-index-%d" % i).digest() for i in range(len(raw) // 32 + 1))
    return base64.b64encode(bytes(a ^ b for a, b in zip(raw, stream))).decode()


RENDERINGS: dict[str, Callable[[str], str]] = {
    "plain": str,
    "highlight": lambda v: " ".join(f"<em>{w}</em>" for w in _words(_cut(
        lambda a, b: f"{html.escape(a)}<b>{html.escape(b)}</b>"))(v).split(" ")),
    "html-double": lambda v: html.escape(_words(lambda w: f"&#{ord(w[0])};{w[1:]}")(v)),
    "json-escape": lambda v: json.dumps({"value": v}),
    "percent": lambda v: quote(v, safe=""),
    "ansi": _words(_cut(lambda a, b: f"{a}\x1b[1;33m{b}\x1b[0m"), str),
    "ascii-fold": anyascii,
    "homoglyph": lambda v: unicodedata.normalize("NFC", unicodedata.normalize("NFD", v).translate(_HOMOGLYPHS)),
    "opaque": _enciphered,
}


class Index:
    """(tenant, user) -> every (key, value) ever written there; served rendered once not current."""

    def __init__(self, rendering: str = "plain", *, tenant_only: bool = False, lookups: bool = False):
        self.render, self.tenant_only, self.lookups = RENDERINGS[rendering], tenant_only, lookups
        self.lock = threading.Lock()
        self.written: dict[tuple[str, str], list[tuple[str, str]]] = {}

    def clear(self) -> None:
        with self.lock:
            self.written.clear()

    def add(self, tenant: str, user: str, key: str, value: str) -> None:
        with self.lock:
            self.written.setdefault((tenant, user), []).append((key, value))

    def hits(self, tenant: str, user: str, prompt: str, current: set[str]) -> list[tuple[str, str]]:
        """(key, rendered value) of each value it holds for the scope that is not in ``current``."""
        if not self.lookups and LOOKUP.fullmatch(prompt):
            return []
        with self.lock:
            held = [pair for (t, u), pairs in self.written.items() if t == tenant and (self.tenant_only or u == user)
                    for pair in pairs]
        return [(key, self.render(value)) for key, value in dict.fromkeys(held) if value not in current]


class _Indexed:
    """A store with an index beside it (None: the store alone); the store's reset empties both."""

    index: Index | None = None

    def reset(self) -> None:
        super().reset()
        if self.index:
            self.index.clear()


class Store(_Indexed, example.Store):
    """memlab's contract: the example's store, the index's hits as further memories."""

    def write(self, scope, key, value, ttl_steps):
        super().write(scope, key, value, ttl_steps)
        if self.index:
            self.index.add(*scope, key, value)

    def query(self, scope, prompt):
        live = super().query(scope, prompt)
        if not self.index:
            return live
        return live + [{"text": text, "key": key}
                       for key, text in self.index.hits(*scope, prompt, {m["text"] for m in live})]


class PeerStore(_Indexed, peer.Store):
    """memorycheck's contract: the peer shim's correct store, the index's hits in its answer and retrieved."""

    def write(self, tenant, user, key, value, ttl):
        super().write(tenant, user, key, value, ttl)
        if self.index:
            self.index.add(tenant, user, key, value)

    def live(self, tenant, user, prompt=""):
        seen = super().live(tenant, user, prompt)
        return seen + (self.index.hits(tenant, user, prompt, {v for _, v in seen}) if self.index else [])


class AnswerHandler(example.Handler):
    """memlab's contract in prose: ``{"answer": every memory quoted, "memories": what reached the agent}``."""

    def on_query(self, body, store):
        memories = super().on_query(body, store)["memories"]
        return {"answer": "From memory: " + "; ".join(m["text"] for m in memories), "memories": memories}


#: The answer shapes served: memlab's contract with memories or with an answer beside them, memorycheck's.
SHAPES = ("memlab", "memlab-answer", "memorycheck")


@contextmanager
def serve(shape: str) -> Iterator[tuple[str, Store | PeerStore]]:
    """(base URL, store) of a lagging-index shim answering in ``shape``, on 127.0.0.1:0 in a thread."""
    if shape == "memorycheck":
        with peer.serve(store=PeerStore()) as served:
            yield served
        return
    with serve_example(Store(), AnswerHandler if shape == "memlab-answer" else None) as server:
        yield server.url, server.store


def config(shape: str, folder: Path, url: str, convergence: float = 5.0) -> Path:
    """A config file in ``folder`` for the shim at ``url`` answering in ``shape`` (memlab's declares TTL)."""
    if shape == "memorycheck":
        return peer.config(folder, url, convergence_timeout_seconds=convergence)
    path = folder / "lagging-index.yaml"
    path.write_text(f"name: lagging-index\nbase_url: {url}\ntimeouts: {{convergence: {convergence}}}\n"
                    "capabilities: {ttl: true, tenants: true}\n")
    return path
