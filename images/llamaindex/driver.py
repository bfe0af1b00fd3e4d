"""Driver of LlamaIndex's ``Memory`` on the SQLAlchemy chat store (llama-index-core): offline.

``Memory`` is the chat memory LlamaIndex agents take (``agent.run(..., memory=memory)``); its
short-term queue lives in ``SQLAlchemyChatStore``, here SQLite through aiosqlite. No LLM is
involved: no memory blocks are configured, and the token counter is the tiktoken encoding
LlamaIndex ships in its package (no download).

- Write: ``Memory.aput(ChatMessage(role=role, content=text))`` for the context's session. The
  API returns no id; the answer's id is the message's position in the session.
- Read: ``Memory.aget()`` -- the messages an agent would be given (active messages ordered by
  ``timestamp, id``, within the token limit). Served meta: ``role``.
- Erase: ``Memory.areset()`` -- the whole session. (The chat store's ``delete_message(key,
  id)`` needs a row id that Memory never hands out.)

One ``AsyncEngine`` on ``sqlite+aiosqlite:///<store>/memory.db`` is shared by every session.
"""

import asyncio
import platform
import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "driverkit"))

import memlab_driver as kit  # noqa: E402  (first: guards stdout, captures import-time signals)
from llama_index.core.llms import ChatMessage  # noqa: E402
from llama_index.core.memory import Memory  # noqa: E402
from sqlalchemy.ext.asyncio import create_async_engine  # noqa: E402

ROLES = ("user", "assistant", "system")


class LlamaIndexMemoryDriver(kit.Driver):
    """Maps the protocol onto Memory objects, one per context, over one SQLite file."""

    def open(self, volumes, config):
        """One async engine on memory.db in volume store."""
        self.loop = asyncio.new_event_loop()
        self.engine = create_async_engine(f"sqlite+aiosqlite:///{volumes['store'] / 'memory.db'}")
        self.memories = {}

    def _memory(self, context):
        if context not in self.memories:
            self.memories[context] = Memory.from_defaults(session_id=context, async_engine=self.engine)
        return self.memories[context]

    def _run(self, coro):
        return self.loop.run_until_complete(coro)

    def describe(self):
        """llama-index-core's version and what the chat store runs on."""
        return {"sut": "llama-index-core", "version": kit.dist_version("llama-index-core"),
                "libraries": {"python": platform.python_version(), "sqlite": sqlite3.sqlite_version,
                              "sqlalchemy": kit.dist_version("SQLAlchemy"), "aiosqlite": kit.dist_version("aiosqlite"),
                              "tiktoken": kit.dist_version("tiktoken")},
                "capabilities": {"erasure": "context", "order": True, "metadata": True, "snapshot": True},
                "configuration": {"memory": "Memory.from_defaults", "chat_store": "SQLAlchemyChatStore",
                                  "file": "memory.db", "memory_blocks": []}}

    def write(self, context, text, meta):
        """Memory.aput with one ChatMessage; the id is its position in the session."""
        role = meta.get("role", "user")
        if role not in ROLES:
            raise kit.BadRequest(f"meta.role {role!r}: use one of {list(ROLES)}")
        memory = self._memory(context)
        self._run(memory.aput(ChatMessage(role=role, content=text)))
        count = len(self._run(memory.aget_all()))
        return {"id": str(count - 1), "text": text, "meta": {"role": role}}

    def read(self, context):
        """Memory.aget: what an agent is given."""
        messages = self._run(self._memory(context).aget())
        return [{"id": str(i), "text": m.content, "meta": {"role": getattr(m.role, "value", m.role)}}
                for i, m in enumerate(messages)]

    def erase(self, context, record_id):
        """Memory.areset: the whole session."""
        if record_id is not None:
            raise kit.Unsupported("Memory erases whole sessions only (areset)")
        ids = [r["id"] for r in self.read(context)]
        self._run(self._memory(context).areset())
        return ids

    def close(self):
        """Dispose of the engine (closes the aiosqlite connections) and the loop."""
        if hasattr(self, "engine"):
            self._run(self.engine.dispose())
        if hasattr(self, "loop"):
            self.loop.close()


if __name__ == "__main__":
    kit.serve(LlamaIndexMemoryDriver)
