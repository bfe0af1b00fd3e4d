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

Front door (``frontdoor_*``): each case opens its own file, ``store/frontdoor/<case>/memory.db``
(the same file again, unchanged, after a restart), one ``AsyncEngine`` on it and a ``Memory`` per
scope over it.

- Scope: a ``Memory`` has one context, its ``session_id``, which is the chat store's ``key``
  (``SQLAlchemyChatStore.get_messages``: ``WHERE key = ?``, exact string equality; the field is a
  ``str``). The lab's scope has three parts, so the driver builds the one id from them: the JSON
  array ``[tenant, user, session]`` of the parts exactly as sent (an integer stays a JSON number, a
  part not given is ``null``), an injective encoding, so no two scopes share a session. The
  separation of the three parts is then the driver's encoding (the profile declares ``isolation:
  driver``), not LlamaIndex's: an application joining them its own way could collide.
- Write: ``Memory.aput(ChatMessage(role="user", content=text, additional_kwargs={"source":
  label}))`` -- one user message, as an application's memory stores what the user said. The chat
  store keeps ``ChatMessage.model_dump(mode="json")`` in ``data``, ``additional_kwargs`` as given
  (strings unchanged), and Memory never reads it back to decide anything: the label goes there.
  LlamaIndex has no signature and no tags, so the signature, tags and ``trust_root`` go nowhere.
- Read: ``Memory.aget()`` of the scope's session -- every active message it would hand the model
  (within its token limit; it takes no count, query or filter, so ``k``, the query and the tag go
  nowhere). Served as the messages' text, with no marker (LlamaIndex has no untrusted flag).
"""

import asyncio
import platform
import sqlite3

import memlab_driver as kit  # first: guards stdout, captures import-time signals
from llama_index.core.llms import ChatMessage
from llama_index.core.memory import Memory
from sqlalchemy.ext.asyncio import create_async_engine

ROLES = ("user", "assistant", "system")


class LlamaIndexMemoryDriver(kit.Driver):
    """Maps the protocol onto Memory objects, one per context, over one SQLite file."""

    def open(self, volumes, config):
        """One async engine on memory.db in volume store."""
        self.loop = asyncio.new_event_loop()
        self.engine = create_async_engine(f"sqlite+aiosqlite:///{volumes['store'] / 'memory.db'}")
        self.memories = {}
        self.folder = volumes["store"]

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

    # ---- front door --------------------------------------------------------------
    def frontdoor_open(self, case, trust_root, fresh):
        """The case's own memory.db (a new file when fresh, else the one kept); no trust root taken."""
        path = kit.case_store(self.folder, case, fresh, "memory.db")
        self._close_frontdoor()
        self.frontdoor_engine = create_async_engine(f"sqlite+aiosqlite:///{path}")
        self.frontdoor_memories = {}
        if fresh:  # the file and the chat store's table, made by LlamaIndex on a first read (no row written)
            self._run(Memory.from_defaults(session_id=case, async_engine=self.frontdoor_engine).aget_all())

    def _frontdoor_memory(self, scope):
        if getattr(self, "frontdoor_engine", None) is None:
            raise kit.BadRequest("frontdoor_open first")
        sid = _session_id(scope)
        if sid not in self.frontdoor_memories:
            self.frontdoor_memories[sid] = Memory.from_defaults(session_id=sid, async_engine=self.frontdoor_engine)
        return self.frontdoor_memories[sid]

    def frontdoor_write(self, scope, text, label, signature, tags):
        """Memory.aput of one user message, the label in its additional_kwargs; no signature or tag kept."""
        memory = self._frontdoor_memory(scope)
        message = ChatMessage(role="user", content=text, additional_kwargs={"source": label})
        self._run(memory.aput(message))
        return {"accepted": True, "stored": {"session_id": memory.session_id,
                                             "message": message.model_dump(mode="json")}}

    def frontdoor_read(self, scope, query, k, tag):
        """Memory.aget of the scope's session: every message it would hand the model, no marker."""
        messages = self._run(self._frontdoor_memory(scope).aget())
        return [{"text": m.content if isinstance(m.content, str) else "", "marker": None} for m in messages]

    def _close_frontdoor(self):
        if getattr(self, "frontdoor_engine", None) is not None:
            self._run(self.frontdoor_engine.dispose())
        self.frontdoor_engine = None
        self.frontdoor_memories = {}

    def close(self):
        """Dispose of the engines (closes the aiosqlite connections) and the loop."""
        if hasattr(self, "loop"):
            self._close_frontdoor()
        if hasattr(self, "engine"):
            self._run(self.engine.dispose())
        if hasattr(self, "loop"):
            self.loop.close()


def _session_id(scope):
    """The one session id of a scope: the JSON array of its parts as sent (injective; ints stay numbers)."""
    return kit.scope_key(scope)


if __name__ == "__main__":
    kit.serve(LlamaIndexMemoryDriver)
