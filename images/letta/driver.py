"""Driver of Letta 0.16.8's memory blocks and their checkpoint history (``BlockManager``), on PostgreSQL
with pgvector. Offline: no key, no model, no network but the lab's PostgreSQL on loopback.

Letta 0.16.8 is the last Python server on PyPI; its wheel ships no migrations, so the driver creates the
schema the way Letta's own tests do, ``letta.orm.Base.metadata.create_all`` (48 tables; two
``VECTOR(4096)`` columns, ``archival_passages.embedding`` and ``source_passages.embedding``, need the
pgvector extension, which the lab's service creates). Letta reads ``LETTA_PG_URI`` when
``letta.settings`` is imported and builds its engine when ``letta.server.db`` is, so the driver sets
``LETTA_PG_URI`` (``?sslmode=disable``) and ``LETTA_DISABLE_SQLALCHEMY_POOLING=true`` first and imports
Letta in ``open``.

A record is a memory block (table ``block``): its ``value`` the record's text, its ``label`` the
context, its ``metadata`` the record's role and source. Letta's own default organization and user are
the actor. Every write and update is followed by ``checkpoint_block_async``, so ``block_history`` holds
each block's states (``sequence_number`` 1, 2, ...), as Letta's undo/redo walk them.

- Write: ``create_or_update_block_async(Block(label=context, value=text, metadata=meta))`` then
  ``checkpoint_block_async``.
- Read: ``get_blocks_async(actor, label=context, limit=None)``: Letta's list, oldest first
  (``created_at``, then ``id``); its values, ids and metadata are the served records.
- Erase: ``delete_block_async`` (the block's history rows go with it: ``ON DELETE CASCADE``); a whole
  context is each of its blocks.
- Update (lifecycle): ``update_block_async(BlockUpdate(value=text))`` then ``checkpoint_block_async``.
- Audit: none (Letta has no integrity check); ``history`` is not a protocol op, so undo/redo are not
  driven by the lab (the row's test walks them over a measured store).
"""

import asyncio
import os
import platform
import sys
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "driverkit"))

import memlab_driver as kit  # noqa: E402  (first: guards stdout, captures import-time signals)

META_KEYS = ("role", "source")


def import_letta(pg_url: str) -> SimpleNamespace:
    """Letta, imported with its database settings in the environment (read at import)."""
    os.environ["LETTA_PG_URI"] = pg_url + ("&" if "?" in pg_url else "?") + "sslmode=disable"
    os.environ["LETTA_DISABLE_SQLALCHEMY_POOLING"] = "true"
    from letta.orm import Base
    from letta.schemas.block import Block, BlockUpdate
    from letta.server.db import engine
    from letta.services.block_manager import BlockManager
    from letta.services.organization_manager import OrganizationManager
    from letta.services.user_manager import UserManager
    return SimpleNamespace(Base=Base, Block=Block, BlockUpdate=BlockUpdate, engine=engine, blocks=BlockManager(),
                           orgs=OrganizationManager(), users=UserManager())


class LettaBlockDriver(kit.Driver):
    """Letta's BlockManager on the profile's PostgreSQL service ``db``."""

    def open(self, volumes, config):
        """Import Letta on the service, create its schema (no-op where it exists), take its default actor."""
        if "db" not in self.services:
            raise kit.BadRequest("letta needs a service named db (services: {db: {kind: postgres, extensions: [vector]}})")
        self.loop = asyncio.new_event_loop()
        self.letta = import_letta(self.services["db"])
        self.actor = self._run(self._actor())

    async def _actor(self):
        async with self.letta.engine.begin() as conn:
            await conn.run_sync(self.letta.Base.metadata.create_all)
        org = await self.letta.orgs.create_default_organization_async()
        return await self.letta.users.create_default_actor_async(org_id=org.id)

    def _run(self, coro):
        return self.loop.run_until_complete(coro)

    def describe(self):
        """Letta's version, the libraries it talks to PostgreSQL with, and the read path."""
        return {"sut": "letta", "version": kit.dist_version("letta"),
                "libraries": {"python": platform.python_version(), "sqlalchemy": kit.dist_version("sqlalchemy"),
                              "asyncpg": kit.dist_version("asyncpg"), "pgvector": kit.dist_version("pgvector")},
                "capabilities": {"erasure": "record", "order": True, "metadata": True, "snapshot": True,
                                 "lifecycle": ["update", "erase"]},
                "configuration": {"record": "a memory block (label = context)", "manager": "BlockManager",
                                  "history": "checkpoint_block_async after every write and update",
                                  "read": "get_blocks_async(actor, label=context), oldest first"}}

    @staticmethod
    def _served(block):
        meta = block.metadata or {}
        return {"id": block.id, "text": block.value, "meta": {k: meta[k] for k in META_KEYS if k in meta}}

    def write(self, context, text, meta):
        """A new block labelled with the context, then its first checkpoint."""
        kept = {k: str(meta[k]) for k in META_KEYS if k in meta}
        block = self._run(self.letta.blocks.create_or_update_block_async(
            self.letta.Block(label=context, value=text, metadata=kept), self.actor))
        return self._served(self._run(self.letta.blocks.checkpoint_block_async(block.id, self.actor)))

    def read(self, context):
        """Letta's block list for the label, oldest first."""
        blocks = self._run(self.letta.blocks.get_blocks_async(self.actor, label=context, limit=None))
        return [self._served(b) for b in blocks]

    def _block(self, context, record_id):
        found = [r for r in self.read(context) if r["id"] == record_id]
        if not found:
            raise KeyError(f"no block {record_id} labelled {context!r}")
        return found[0]

    def update(self, context, record_id, text, meta):
        """update_block_async with the new value, then a checkpoint (a new history state)."""
        self._block(context, record_id)
        self._run(self.letta.blocks.update_block_async(record_id, self.letta.BlockUpdate(value=text), self.actor))
        return self._served(self._run(self.letta.blocks.checkpoint_block_async(record_id, self.actor)))

    def erase_record(self, context, record_id):
        """delete_block_async (its history rows cascade)."""
        self._block(context, record_id)
        self._run(self.letta.blocks.delete_block_async(record_id, self.actor))

    def erase_context(self, context):
        """delete_block_async for every block of the context."""
        ids = [r["id"] for r in self.read(context)]
        for block_id in ids:
            self._run(self.letta.blocks.delete_block_async(block_id, self.actor))
        return ids

    def close(self):
        """Dispose of Letta's engine (its connections) and the event loop."""
        if hasattr(self, "letta"):
            self._run(self.letta.engine.dispose())
        if hasattr(self, "loop"):
            self.loop.close()


if __name__ == "__main__":
    kit.serve(LettaBlockDriver)
