"""Driver of the OpenAI Agents SDK's ``SQLiteSession`` (openai-agents): offline, no key, no model.

The session is the SDK's conversation memory: ``Runner.run(agent, input, session=...)`` reads
it before a turn and appends the turn's items after. The driver calls the same session API
directly, without a model:

- Write: ``SQLiteSession(context, sessions.db).add_items([{"role": role, "content": text}])``
  (an EasyInputMessage, the item shape the Runner stores for user input). The SDK returns no
  id; the answer's id is the item's position in the session.
- Read: ``get_items()`` -- every item of the session, ``ORDER BY id``. Served meta: ``role``.
- Erase: ``clear_session()`` -- the whole session (``pop_item`` removes only the newest item,
  so no single record of the lab's choosing can be erased).

``sessions.db`` lives in volume ``store``. Tracing is off (``OPENAI_AGENTS_DISABLE_TRACING``):
nothing here runs an agent, and nothing may reach the network.
"""

import asyncio
import os
import platform
import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "driverkit"))

import memlab_driver as kit  # noqa: E402  (first: guards stdout, captures import-time signals)

os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")
from agents.memory import SQLiteSession  # noqa: E402

ROLES = ("user", "assistant", "system", "developer")


class OpenAIAgentsSessionDriver(kit.Driver):
    """Maps the protocol onto SQLiteSession objects, one per context, over one database file."""

    def open(self, volumes, config):
        """Remember where sessions.db lives; sessions open on first use of a context."""
        self.db = volumes["store"] / "sessions.db"
        self.loop = asyncio.new_event_loop()
        self.sessions = {}

    def _session(self, context):
        if context not in self.sessions:
            self.sessions[context] = SQLiteSession(context, str(self.db))
        return self.sessions[context]

    def _run(self, coro):
        return self.loop.run_until_complete(coro)

    def describe(self):
        """The SDK's version and the SQLite it links against."""
        return {"sut": "openai-agents", "version": kit.dist_version("openai-agents"),
                "libraries": {"python": platform.python_version(), "sqlite": sqlite3.sqlite_version,
                              "openai": kit.dist_version("openai"), "pydantic": kit.dist_version("pydantic")},
                "capabilities": {"erasure": "context", "order": True, "metadata": True, "snapshot": True},
                "configuration": {"session": "SQLiteSession", "file": "sessions.db"}}

    def write(self, context, text, meta):
        """add_items with one message item; the id is its position in the session."""
        role = meta.get("role", "user")
        if role not in ROLES:
            raise kit.BadRequest(f"meta.role {role!r}: use one of {list(ROLES)}")
        session = self._session(context)
        self._run(session.add_items([{"role": role, "content": text}]))
        items = self._run(session.get_items())
        return {"id": str(len(items) - 1), "text": text, "meta": {"role": role}}

    def read(self, context):
        """get_items, served in order."""
        items = self._run(self._session(context).get_items())
        return [{"id": str(i), "text": item.get("content") if isinstance(item.get("content"), str)
                 else str(item.get("content")), "meta": {"role": item.get("role")}}
                for i, item in enumerate(items)]

    def erase(self, context, record_id):
        """clear_session: the SDK erases whole sessions (pop_item only takes the newest item)."""
        if record_id is not None:
            raise kit.Unsupported("SQLiteSession erases whole sessions only (clear_session)")
        ids = [r["id"] for r in self.read(context)]
        self._run(self._session(context).clear_session())
        return ids

    def close(self):
        """Close every session (its connections) and the event loop."""
        for session in getattr(self, "sessions", {}).values():
            session.close()
        if hasattr(self, "loop"):
            self.loop.close()


if __name__ == "__main__":
    kit.serve(OpenAIAgentsSessionDriver)
