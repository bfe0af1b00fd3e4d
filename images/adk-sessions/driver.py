"""Driver of Google ADK's ``DatabaseSessionService`` (google-adk): offline, no model, no key.

The session service is what an ADK ``Runner`` reads before a turn and appends to after it: a
session's events (the conversation) and its state, in three scopes (the session's own keys, the
user's ``user:`` keys, the app's ``app:`` keys). The driver calls the same service API directly,
as the Runner does, without a model:

- Store: ``DatabaseSessionService(db_url="sqlite+aiosqlite:///<store>/sessions.db")``, the
  configuration ADK's session docs give for a persistent local store (tables ``sessions``,
  ``events``, ``user_states``, ``app_states``, schema v1); ``config.db: postgres`` the same on the
  profile's PostgreSQL service ``db`` (``postgresql+asyncpg://``, the async driver ADK names for it).
- Who: ``app_name`` is ``config.app`` (``per-context``: the lab's context, each context an app of
  its own), ``user_id`` and ``session_id`` the lab's context; with a lifecycle ``scope`` (capability
  ``tenants``) the tenant is the app and the user the user.
- ``config.part`` picks the memory a row measures, written and read through the service:

  - ``events``: write appends an ``Event`` (author ``user`` or the agent, ``content`` one text
    part with role ``user`` or ``model``); read is ``get_session(...).events``, every event that
    has text, in the order served (timestamp, then id). Served meta: ``role``, ``author``,
    ``timestamp``. Erase: ``delete_session`` (the session's events go with it).
  - ``session_state``, ``user_state``, ``app_state``: write appends an event whose
    ``actions.state_delta`` sets one key (no prefix, ``user:``, ``app:``) to the text; read is the
    merged ``get_session(...).state``, the keys of that scope, in the order served. The key is the
    fact's key (``meta.key``) in the lifecycle gate, else a fresh one; the record id is the key.
    Update: the same state_delta on the key. Erase: ``delete_session`` for session state (the
    session's row holds it); ADK offers none for user and app state.
"""

import asyncio
import platform
import sqlite3
import sys
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "driverkit"))

import memlab_driver as kit  # noqa: E402  (first: guards stdout, captures import-time signals)

from google.adk.events import Event, EventActions  # noqa: E402
from google.adk.sessions import DatabaseSessionService  # noqa: E402
from google.genai import types  # noqa: E402

PARTS = ("events", "session_state", "user_state", "app_state")
PREFIX = {"session_state": "", "user_state": "user:", "app_state": "app:"}
AGENT = "memlab_agent"  # the agent's name: the author of an assistant's event
ROLES = {"user": ("user", "user"), "assistant": (AGENT, "model")}  # lab's role -> (author, content role)
LIBRARIES = ("google-adk", "google-genai", "sqlalchemy", "aiosqlite", "asyncpg", "pydantic")
DATABASES = ("sqlite", "postgres")


class AdkSessionsDriver(kit.Driver):
    """Maps the protocol onto one DatabaseSessionService (see the module docstring)."""

    def open(self, volumes, config):
        """The service on the store's database; its tables are made (or checked) on first use."""
        self.part = self.choice("part", PARTS, default="events")
        self.app = str(config.get("app") or "memlab_app")
        self.db = self.choice("db", DATABASES, default="sqlite")
        self.loop = asyncio.new_event_loop()
        self.service = DatabaseSessionService(db_url=self._url())
        self._run(self.service.prepare_tables())

    def _url(self):
        """The database URL: sessions.db in volume store, or the PostgreSQL service db with asyncpg."""
        if self.db == "postgres":
            if "db" not in self.services:
                raise kit.BadRequest("db: postgres needs a service named db (services: {db: {kind: postgres}})")
            return self.services["db"].replace("postgresql://", "postgresql+asyncpg://", 1)
        [folder] = self.need_volumes("store", why="DatabaseSessionService keeps sessions.db there")
        return f"sqlite+aiosqlite:///{folder / 'sessions.db'}"

    def describe(self):
        """The service's distribution, what it runs under, and the capabilities of the part."""
        state = self.part != "events"
        erasure = "context" if self.part in ("events", "session_state") else "none"
        backend = ({"postgresql": self._run(self._server_version())} if self.db == "postgres"
                   else {"sqlite": sqlite3.sqlite_version})
        return {"sut": "google-adk", "version": kit.dist_version("google-adk"),
                "libraries": {"python": platform.python_version(), **backend,
                              **{name: kit.dist_version(name) for name in LIBRARIES}},
                "capabilities": {"erasure": erasure, "order": not state, "metadata": not state, "snapshot": True,
                                 "lifecycle": ["tenants", *(["update"] if state else [])]},
                "configuration": {"service": "DatabaseSessionService", "part": self.part, "app": self.app,
                                  "db_url": "postgresql+asyncpg://<service db>" if self.db == "postgres"
                                  else "sqlite+aiosqlite:///sessions.db"}}

    def write(self, context, text, meta):
        """One event appended to the context's session: a message, or a state delta of one key."""
        session = self._session(context, create=True)
        if self.part == "events":
            author, role = self._role(meta)
            event = Event(author=author, invocation_id=f"e-{uuid.uuid4()}",
                          content=types.Content(role=role, parts=[types.Part(text=text)]))
            self._run(self.service.append_event(session, event))
            return {"id": event.id, "text": text, "meta": self._meta(event)}
        key = str(meta["key"]) if meta.get("key") is not None else f"note-{uuid.uuid4().hex[:12]}"
        self._set(session, key, text)
        return {"id": key, "text": text, "meta": {"key": key}}

    def read(self, context):
        """What a Runner resumes the session with: its events with text, or the state of the part."""
        session = self._session(context)
        if session is None:
            return []
        if self.part == "events":
            return [{"id": e.id, "text": text, "meta": self._meta(e)} for e in session.events
                    if (text := _text(e)) is not None]
        return [{"id": key, "text": value if isinstance(value, str) else str(value), "meta": {"key": key}}
                for key, value in self._scoped(session.state).items()]

    def update(self, context, record_id, text, meta):
        """State: the key set again by a state delta (ADK's one way to change state); events have none."""
        if self.part == "events":
            raise kit.Unsupported("ADK appends events; it updates none")
        self._set(self._session(context, create=True), record_id, text)
        return {"id": record_id, "text": text, "meta": {"key": record_id}}

    def erase_context(self, context):
        """delete_session: the session's events and its own state (user and app state stay)."""
        if self.part in ("user_state", "app_state"):
            raise kit.Unsupported("ADK deletes sessions; no user or app state is erased with them")
        ids = [r["id"] for r in self.read(context)]
        app, user, sid = self._ids(context)
        self._run(self.service.delete_session(app_name=app, user_id=user, session_id=sid))
        return ids

    def close(self):
        """Dispose the service's engine (its pooled connections), then the loop."""
        if hasattr(self, "service"):
            self._run(self.service.close())
        if hasattr(self, "loop"):
            self.loop.close()

    # ---- helpers -----------------------------------------------------------------
    async def _server_version(self):
        from sqlalchemy import text

        async with self.service.db_engine.connect() as conn:
            return (await conn.execute(text("SHOW server_version"))).scalar()

    def _run(self, coro):
        return self.loop.run_until_complete(coro)

    def _ids(self, context):
        """(app_name, user_id, session_id) of a context (of the request's scope, with tenants)."""
        if self.scope is not None:
            return self.scope["tenant_id"], self.scope["user_id"], context
        return (context if self.app == "per-context" else self.app), context, context

    def _session(self, context, create=False):
        app, user, sid = self._ids(context)
        session = self._run(self.service.get_session(app_name=app, user_id=user, session_id=sid))
        if session is None and create:
            session = self._run(self.service.create_session(app_name=app, user_id=user, session_id=sid))
        return session

    def _set(self, session, key, text):
        event = Event(author="user", invocation_id=f"e-{uuid.uuid4()}",
                      actions=EventActions(state_delta={PREFIX[self.part] + key: text}))
        self._run(self.service.append_event(session, event))

    def _scoped(self, state):
        """The part's keys of a merged state, without their prefix, in the order served."""
        prefix = PREFIX[self.part]
        if prefix:
            return {k[len(prefix):]: v for k, v in state.items() if k.startswith(prefix)}
        return {k: v for k, v in state.items() if not k.startswith(("app:", "user:", "temp:"))}

    @staticmethod
    def _role(meta):
        role = meta.get("role", "user")
        if role not in ROLES:
            raise kit.BadRequest(f"meta.role {role!r}: ADK events are the user's or the agent's ({list(ROLES)})")
        return ROLES[role]

    @staticmethod
    def _meta(event):
        role = event.content.role if event.content else None
        return {"role": "assistant" if role == "model" else role, "author": event.author,
                "timestamp": event.timestamp}


def _text(event):
    """The text of an event's parts, or None for an event with none (a state delta only)."""
    parts = [p.text for p in (event.content.parts or []) if p.text is not None] if event.content else []
    return "".join(parts) if parts else None


if __name__ == "__main__":
    kit.serve(AdkSessionsDriver)
