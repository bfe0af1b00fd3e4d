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

Front door (``frontdoor_*``): each case opens its own file, ``store/frontdoor/<case>/sessions.db``
(the same file again, unchanged, after a restart), and a ``SQLiteSession`` per scope over it.

- Scope: a ``SQLiteSession`` has one context, its ``session_id`` (``WHERE session_id = ?``, exact
  TEXT equality). The lab's scope has three parts, so the driver builds the one id from them: the
  JSON array ``[tenant, user, session]`` of the parts exactly as sent (an integer stays a JSON
  number, a part not given is ``null``), an injective encoding, so no two scopes share a session.
  The separation of the three parts is then the driver's encoding (the profile declares
  ``isolation: driver``), not the SDK's: an application joining them its own way could collide.
- Write: ``add_items([{"role": "user", "content": text}])`` -- one user message, the shape the
  Runner stores for a user's turn (``ItemHelpers.input_to_new_input_list``) and what an
  application's memory adds for what the user said. The SDK returns nothing; the answer's
  ``stored`` is the session id and the item handed to it. The item format keeps no caller-set
  provenance field (``role`` is a closed set naming the speaker: user, assistant, system,
  developer) and the SDK has no signature and no tags, so the label, signature, tags and
  ``trust_root`` go nowhere: the channels are one write.
- Read: ``get_items(limit=k)`` of the scope's session -- the newest k items in id order; the
  SDK takes no query and no filter, so the query and tag go nowhere. Served as the items'
  ``content``, with no marker (the SDK has no untrusted flag).
"""

import asyncio
import json
import os
import platform
import sqlite3

import memlab_driver as kit  # first: guards stdout, captures import-time signals

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

    def frontdoor_open(self, case, trust_root, fresh):
        """The case's own sessions.db (a new file when fresh, else the one kept); no trust root taken."""
        path = kit.case_store(self.db.parent, case, fresh, "sessions.db")
        self._close_frontdoor()
        self.frontdoor_db = path
        self.frontdoor_sessions = {}
        if fresh:  # the file and the SDK's tables, made by the SDK as a session opens (no row written)
            SQLiteSession(case, str(path)).close()

    def _frontdoor_session(self, scope):
        if not hasattr(self, "frontdoor_db"):
            raise kit.BadRequest("frontdoor_open first")
        sid = _session_id(scope)
        if sid not in self.frontdoor_sessions:
            self.frontdoor_sessions[sid] = SQLiteSession(sid, str(self.frontdoor_db))
        return self.frontdoor_sessions[sid]

    def frontdoor_write(self, scope, text, label, signature, tags):
        """add_items of one user message in the scope's session; no label, signature or tag kept."""
        session = self._frontdoor_session(scope)
        item = {"role": "user", "content": text}
        self._run(session.add_items([item]))
        return {"accepted": True, "stored": {"session_id": session.session_id, "item": item}}

    def frontdoor_read(self, scope, query, k, tag):
        """get_items(limit=k) of the scope's session, each item's content served, no marker."""
        items = self._run(self._frontdoor_session(scope).get_items(limit=k))
        return [{"text": item.get("content") if isinstance(item.get("content"), str)
                 else json.dumps(item.get("content")), "marker": None} for item in items]

    def _close_frontdoor(self):
        for session in getattr(self, "frontdoor_sessions", {}).values():
            session.close()
        self.frontdoor_sessions = {}

    def close(self):
        """Close every session (its connections) and the event loop."""
        for session in getattr(self, "sessions", {}).values():
            session.close()
        self._close_frontdoor()
        if hasattr(self, "loop"):
            self.loop.close()


def _session_id(scope):
    """The one session id of a scope: the JSON array of its parts as sent (injective; ints stay numbers)."""
    return kit.scope_key(scope)


if __name__ == "__main__":
    kit.serve(OpenAIAgentsSessionDriver)
