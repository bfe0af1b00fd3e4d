"""Sealing: a secret key, a MAC per record and a head per context.

A record's MAC is HMAC-SHA256(key, canonical JSON of [ctx, id, seq, role, source,
ts, text]): it binds the content to its place (context, id, position) and its
metadata. A context's head is HMAC-SHA256(key, canonical JSON of [ctx, [MAC, ...]])
over the records in served order, rewritten on every write and erase, so it
commits to the current state (catching truncation, deletion, insertion, and --
when ``head.json`` is kept off the store -- whole-store rollback and resurrection).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path

from refmem.backends import Record

KEY_BYTES = 32


class IntegrityError(Exception):
    """The stored memory does not match its seal: the store refuses to serve it."""


def canonical(value: object) -> bytes:
    """The canonical JSON encoding MACs are computed over."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


class Sealer:
    """Holds the key (``key_path``, created on first use) and the heads file (``head_path``)."""

    def __init__(self, key_path: Path, head_path: Path):
        self.key = self._load_key(key_path)
        self.head_path = head_path

    @staticmethod
    def _load_key(path: Path) -> bytes:
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(secrets.token_bytes(KEY_BYTES))
        key = path.read_bytes()
        if len(key) != KEY_BYTES:
            raise IntegrityError(f"key file {path} holds {len(key)} bytes, not {KEY_BYTES}")
        return key

    def _hmac(self, value: object) -> str:
        return hmac.new(self.key, canonical(value), hashlib.sha256).hexdigest()

    def mac(self, rec: Record) -> str:
        """The MAC of one record."""
        return self._hmac([rec.ctx, rec.id, rec.seq, rec.role, rec.source, rec.ts, rec.text])

    def head(self, ctx: str, records: list[Record]) -> str:
        """The head of a context: a MAC over its record MACs in order."""
        return self._hmac([ctx, [rec.mac for rec in records]])

    def _heads(self) -> dict[str, str]:
        if not self.head_path.exists():
            return {}
        try:
            heads = json.loads(self.head_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise IntegrityError(f"head file {self.head_path.name} unreadable: {exc}") from None
        if not isinstance(heads, dict):
            raise IntegrityError(f"head file {self.head_path.name} is not a mapping")
        return heads

    def commit(self, ctx: str, records: list[Record]) -> None:
        """Store the head of the context's current records (atomically)."""
        heads = self._heads()
        heads[ctx] = self.head(ctx, records)
        self.head_path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.head_path.with_name(self.head_path.name + ".tmp")
        tmp.write_text(json.dumps(heads, sort_keys=True, indent=1), encoding="utf-8")
        os.replace(tmp, self.head_path)

    def problems(self, ctx: str, records: list[Record]) -> list[str]:
        """Every mismatch between the context's records and their seals (empty = intact)."""
        out = [f"record {rec.id}: {'no MAC' if not rec.mac else 'MAC mismatch'}"
               for rec in records if not (rec.mac and hmac.compare_digest(rec.mac, self.mac(rec)))]
        try:
            stored = self._heads().get(ctx)
        except IntegrityError as exc:
            return out + [str(exc)]
        if stored is None:
            if records:
                out.append(f"context {ctx!r}: {len(records)} record(s) but no head")
        elif not hmac.compare_digest(str(stored), self.head(ctx, records)):
            out.append(f"context {ctx!r}: head mismatch ({len(records)} record(s) served)")
        return out
