"""refmem: small, real agent-memory stores written for the lab (stdlib only).

Five storage backends (sqlite, jsonl, markdown; postgres and redis in a server) behind one :class:`MemoryStore`,
optionally sealed with an HMAC key the adversary does not hold: per-record MACs
plus a per-context head that commits to the current state of the context.

    >>> store = open_store("/tmp/store", storage="sqlite", seal="read",
    ...                    key_dir="/tmp/keys", head_dir="/tmp/anchor")  # doctest: +SKIP
    >>> store.write("A", "the sky is green", role="user", source="chat")  # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path

from refmem.backends import BACKENDS, Record
from refmem.seal import IntegrityError, Sealer
from refmem.store import SEAL_MODES, MemoryStore

__version__ = "0.1.0"
__all__ = ["MemoryStore", "Record", "Sealer", "IntegrityError", "open_store", "BACKENDS", "SEAL_MODES"]


def open_store(store_dir: str | Path | None, storage: str = "sqlite", seal: str = "none",
               key_dir: str | Path | None = None, head_dir: str | Path | None = None,
               url: str | None = None) -> MemoryStore:
    """Open a memory store in ``store_dir``.

    ``seal``: ``none`` (no integrity), ``read`` (every read verifies and refuses on
    mismatch) or ``audit`` (reads serve unchecked; :meth:`MemoryStore.audit` verifies).
    ``postgres`` and ``redis`` keep the records in the server at ``url``.
    A sealed store needs ``key_dir`` (the key's home) and ``head_dir`` (where
    ``head.json`` lives: off the store, or the store folder itself).
    """
    if storage not in BACKENDS:
        raise ValueError(f"unknown storage {storage!r}; use one of {sorted(BACKENDS)}")
    if seal not in SEAL_MODES:
        raise ValueError(f"unknown seal {seal!r}; use one of {list(SEAL_MODES)}")
    backend = BACKENDS[storage](Path(store_dir) if store_dir else None, url)
    sealer = None
    if seal != "none":
        if key_dir is None or head_dir is None:
            raise ValueError("a sealed store needs key_dir and head_dir")
        sealer = Sealer(Path(key_dir) / "key", Path(head_dir) / "head.json")
    return MemoryStore(backend, sealer=sealer, verify_on_read=(seal == "read"))
