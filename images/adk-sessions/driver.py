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

Front door (``frontdoor_*``): each case opens its own store, ``store/frontdoor/<case>/sessions.db`` on
SQLite, on PostgreSQL a schema of its own in the service's database (``frontdoor_<case>``, made by
``CREATE SCHEMA``, first on the search_path of the case's connections, so ADK's tables are made and
read there); the same file or schema again, unchanged, after a restart; and a
``DatabaseSessionService`` over it.

- Scope: the tenant is ``app_name``, the user ``user_id``, the session ``session_id``, each exactly as
  sent (an integer stays an integer, a missing tenant or user is None), but a missing session: ADK
  has no read of a conversation without its id (``get_session``'s ``session_id`` is a required str,
  as is ``Runner.run_async``'s), so a scope with no session is the one conversation of its app and
  user, under the empty session id ``""`` (the lab never sends ``""``, so no two scopes share one).
  ADK keys sessions and events by all three, app state by ``app_name`` alone, user state by
  (``app_name``, ``user_id``); the driver never filters.
- Write: as a Runner does (``runners.py``: ``_get_or_create_session`` then the appended event),
  ``get_session`` of the scope, ``create_session`` of its ids where there is none, then
  ``append_event`` of one ``Event``. ``events``: the event's ``author`` is the
  write's label as sent (``user``, ADK's own author of the user's turns; ``external``, any other name
  being another agent's), its ``content`` one text part of role ``user``. The state parts: an event of
  author ``user`` whose ``actions.state_delta`` sets a fresh key of the part's prefix to the text (the
  label goes nowhere: the state keeps no author). ADK has no signature, tags or trust root: they go
  nowhere.
- Read: ``get_session`` of the scope, then what the agent is served from it. ``events``: the
  contents ``_ContentLlmRequestProcessor`` builds for a model request
  (``flows/llm_flows/context/_contents.py``: ``_get_contents(branch, session.events, agent.name)``,
  the default ``include_contents``, every event, no query or limit), one record per content, its text
  parts joined; a content ADK fenced as another agent's (``context/_fencing.py``:
  ``_present_other_agent_message``, its first part the preamble saying the quoted text is data, not
  instructions) is served with that as its marker. The state parts: the merged ``session.state``'s keys
  of the part, as an instruction's ``{app:key}`` template would be filled, no marker.
"""

import asyncio
import platform
import sqlite3
import uuid

import memlab_driver as kit  # first: guards stdout, captures import-time signals

from google.adk.events import Event, EventActions
from google.adk.flows.llm_flows.context._contents import _get_contents
from google.adk.flows.llm_flows.context._fencing import OTHER_AGENT_CONTEXT_PREAMBLE
from google.adk.sessions import DatabaseSessionService
from google.genai import types

PARTS = ("events", "session_state", "user_state", "app_state")
PREFIX = {"session_state": "", "user_state": "user:", "app_state": "app:"}
AGENT = "memlab_agent"  # the agent's name: the author of an assistant's event
ROLES = {"user": ("user", "user"), "assistant": (AGENT, "model")}  # lab's role -> (author, content role)
LIBRARIES = ("google-adk", "google-genai", "sqlalchemy", "aiosqlite", "asyncpg", "pydantic")
DATABASES = ("sqlite", "postgres")
NO_SESSION = ""  # the session id of a scope that gives none: ADK reads no conversation without one
FENCED = "fenced by ADK as another agent's quoted content (data, not instructions)"  # the read's marker


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

    # ---- the front door ------------------------------------------------------------
    def frontdoor_open(self, case, trust_root, fresh):
        """The case's own store (a new one when fresh, else the one kept) and a service over it; ADK
        takes no trust root."""
        self._close_frontdoor()
        if self.db == "postgres":  # the service's database, the case's schema first on the search_path
            schema = self._run(self._case_schema(case, fresh))
            self.frontdoor = DatabaseSessionService(db_url=self._url(),
                                                    connect_args={"server_settings": {"search_path": schema}})
        else:
            [folder] = self.need_volumes("store", why="DatabaseSessionService keeps sessions.db there")
            path = kit.case_store(folder, case, fresh, "sessions.db")
            self.frontdoor = DatabaseSessionService(db_url=f"sqlite+aiosqlite:///{path}")
        self._run(self.frontdoor.prepare_tables())  # a fresh store's tables, made by ADK (no row written)

    def frontdoor_write(self, scope, text, label, signature, tags):
        """One event appended to the scope's session (made first where there is none, as the Runner's
        auto_create_session does): a message authored by the label, or a state delta of a fresh key."""
        session = self._run(self._frontdoor_session(scope, create=True))
        if self.part == "events":
            event = Event(author=label, invocation_id=f"e-{uuid.uuid4()}",
                          content=types.Content(role="user", parts=[types.Part(text=text)]))
        else:
            key = PREFIX[self.part] + f"note-{uuid.uuid4().hex[:12]}"
            event = Event(author="user", invocation_id=f"e-{uuid.uuid4()}",
                          actions=EventActions(state_delta={key: text}))
        self._run(self.frontdoor.append_event(session, event))
        return {"accepted": True, "stored": {"app_name": session.app_name, "user_id": session.user_id,
                                             "session_id": session.id, "event_id": event.id,
                                             "author": event.author, "state_delta": event.actions.state_delta}}

    def frontdoor_read(self, scope, query, k, tag):
        """What the agent is served from the scope's session: the contents of a model request built
        from its events (ADK's fence as the marker), or the part's state; no query, limit or tag."""
        session = self._run(self._frontdoor_session(scope))
        if session is None:
            return []
        if self.part == "events":
            return [_served_content(c) for c in _get_contents(None, session.events, AGENT)]
        return [{"text": v if isinstance(v, str) else str(v), "marker": None}
                for v in self._scoped(session.state).values()]

    async def _frontdoor_session(self, scope, create=False):
        """get_session of the scope's ids as sent; create_session where there is none and ``create``."""
        if not hasattr(self, "frontdoor"):
            raise kit.BadRequest("frontdoor_open first")
        ids = {"app_name": scope["tenant"], "user_id": scope["user"],
               "session_id": NO_SESSION if scope["session"] is None else scope["session"]}
        session = await self.frontdoor.get_session(**ids)
        if session is None and create:
            session = await self.frontdoor.create_session(**ids)
        return session

    async def _case_schema(self, case, fresh):
        """The case's own schema, frontdoor_<case>, in the service's database (CREATE SCHEMA when fresh;
        a fresh case whose schema exists, or a reopened one whose schema is gone, is refused)."""
        from sqlalchemy import text

        schema = kit.case_schema_name(case)
        engine = self.service.db_engine.execution_options(isolation_level="AUTOCOMMIT")
        async with engine.connect() as conn:
            found = (await conn.execute(text("SELECT 1 FROM pg_namespace WHERE nspname = :n"), {"n": schema})).scalar()
            kit.check_case_schema(case, schema, fresh, bool(found))
            if fresh:
                await conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        return schema

    def _close_frontdoor(self):
        if hasattr(self, "frontdoor"):
            self._run(self.frontdoor.close())
            del self.frontdoor

    def close(self):
        """Dispose the services' engines (their pooled connections), then the loop."""
        if hasattr(self, "loop"):
            self._close_frontdoor()
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


def _served_content(content):
    """One content of a model request as served: its text parts joined; ADK's fence as the marker."""
    texts = [p.text for p in (content.parts or []) if p.text is not None]
    fenced = bool(texts) and texts[0] == OTHER_AGENT_CONTEXT_PREAMBLE
    return {"text": "\n".join(texts), "marker": FENCED if fenced else None}


def _text(event):
    """The text of an event's parts, or None for an event with none (a state delta only)."""
    parts = [p.text for p in (event.content.parts or []) if p.text is not None] if event.content else []
    return "".join(parts) if parts else None


if __name__ == "__main__":
    kit.serve(AdkSessionsDriver)
