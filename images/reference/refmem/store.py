"""MemoryStore: the write, read, erase and audit paths of refmem over any backend.

Unsealed, it serves whatever the backend holds. Sealed (``seal=read``), every
read, write and erase first verifies the context and refuses with
:class:`~refmem.seal.IntegrityError` (logged at ERROR on logger ``refmem``) on
any mismatch. With ``seal=audit`` reads serve unchecked and only
:meth:`MemoryStore.audit` verifies (logging its findings at WARNING).
"""

from __future__ import annotations

import logging
import time

from refmem.backends import Record
from refmem.seal import IntegrityError, Sealer

SEAL_MODES = ("none", "read", "audit")
log = logging.getLogger("refmem")


class MemoryStore:
    """Agent memory: records of text with role, source and timestamp, grouped by context."""

    def __init__(self, backend, sealer: Sealer | None = None, verify_on_read: bool = True):
        if sealer is not None and not backend.sealable:
            raise ValueError(f"{type(backend).__name__} cannot be sealed")
        self.backend, self.sealer, self.verify_on_read = backend, sealer, verify_on_read

    def _checked(self, ctx: str) -> list[Record]:
        """The context's records, verified first when the store seals on read."""
        records = self.backend.records(ctx)
        if self.sealer is not None and self.verify_on_read:
            problems = self.sealer.problems(ctx, records)
            if problems:
                log.error("integrity check failed for context %r: %s", ctx, "; ".join(problems))
                raise IntegrityError(f"integrity check failed for context {ctx!r}: {'; '.join(problems)}")
        return records

    def _reseal(self, ctx: str) -> None:
        if self.sealer is not None:
            self.sealer.commit(ctx, self.backend.records(ctx))

    def _verify(self, ctx: str) -> None:
        """Refuse to build on a context whose seal does not match (nothing to check when unsealed)."""
        if self.sealer is not None and self.verify_on_read:
            self._checked(ctx)

    def write(self, ctx: str, text: str, role: str | None = "user", source: str | None = None) -> Record:
        """Append one record to the context and return it."""
        self._verify(ctx)
        seal = self.sealer.mac if self.sealer is not None else None
        rec = self.backend.append(ctx, role, source, time.time(), text, seal=seal)
        self._reseal(ctx)
        return rec

    def read(self, ctx: str) -> list[Record]:
        """The context's records in order (refused on a seal mismatch when sealed on read)."""
        return self._checked(ctx)

    def erase(self, ctx: str, record_id: str | None = None) -> list[str]:
        """Erase one record, or the whole context when ``record_id`` is None; return the ids erased."""
        self._verify(ctx)
        erased = self.backend.delete(ctx, record_id)
        self._reseal(ctx)
        return erased

    def audit(self, ctx: str) -> list[str]:
        """Verify the context against its seals without refusing; return the problems found."""
        if self.sealer is None:
            raise ValueError("an unsealed store has nothing to audit")
        problems = self.sealer.problems(ctx, self.backend.records(ctx))
        if problems:
            log.warning("integrity audit of context %r found %d problem(s): %s",
                        ctx, len(problems), "; ".join(problems))
        return problems

    def close(self) -> None:
        """Release the backend."""
        self.backend.close()
