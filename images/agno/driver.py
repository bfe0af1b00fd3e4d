"""Driver of Agno's SQLite storage (``agno.db.sqlite.SqliteDb``): offline, no model, no key.

Agno keeps an agent's memory in the database its ``Agent(db=...)`` is given; the configuration its
storage docs give for a local store is ``SqliteDb(db_file="tmp/agno.db")`` with the default table
names. The driver opens ``SqliteDb(db_file=<store>/agno.db)`` and calls the same store-facing API an
agent calls, without a model. ``config.part`` picks the memory a row measures:

- ``memories`` (table ``agno_memories``): the user memories an agent puts in its system message
  (``<memories_from_previous_interactions>``, agno/agent/_messages.py). Write is
  ``MemoryManager(db=db).add_user_memory(UserMemory(memory=text), user_id)``; read is
  ``MemoryManager.get_user_memories(user_id)`` (``db.get_user_memories(user_id=...)``, no ORDER BY:
  the table's order), served in that order; update ``replace_user_memory``; erase
  ``delete_user_memory`` (one memory). Served meta: ``timestamp`` (updated_at), ``created_at``,
  ``topics``.
- ``sessions`` (tables ``agno_sessions`` and ``agno_runs``): an agent session's chat history.
  Write is one run of the session (``RunOutput`` with one message of the record's role), saved as an
  agent saves it: ``db.upsert_session(AgentSession)`` and ``db.upsert_run(run, session_id,
  user_id, run_index)`` with the run's place in the session (``resolve_run_index``); read is
  ``db.get_session(session_id, SessionType.AGENT, user_id).get_chat_history()``, every user and
  assistant message of the session's runs, in run order; update ``upsert_run`` of the same run id;
  erase ``db.delete_run(run_id)`` (one run). Served meta: ``role``, ``timestamp`` (the message's
  created_at), ``run_id``.

The lab's context is the user_id (memories) or the session_id and user_id (sessions); with the
lifecycle gate's folded scope it is ``tenant/user``.

Front door (``frontdoor_*``): each case its own ``SqliteDb`` at ``store/frontdoor/<case>/agno.db``
(kept after the row; reopened as it is after a restart).

- Part ``memories``: write is the same ``MemoryManager(db).add_user_memory(UserMemory(memory=text,
  topics=tags), user_id=user)``: the scope's user is Agno's user_id as sent (None: not given, and Agno
  files it under ``"default"``); Agno's user memory has no tenant and no session (UserMemory: memory,
  topics, user_id, input, feedback, agent_id, team_id), so neither is passed; it keeps no source, role
  or signature, so the label and signature go nowhere (one channel). The tags are the memory's
  ``topics``. Read is Agno's list API as AgentOS's ``GET /memories`` calls it:
  ``db.get_user_memories(user_id=user, topics=[tag], limit=k, sort_by="updated_at",
  sort_order="desc")`` (no user: no filter, Agno's own answer); the question goes nowhere (Agno ranks
  memories by nothing but time without a model). Agno flags no memory as untrusted: the marker is None.
- Part ``sessions``: the application is one ``Agent(id=AGENT, db=<the case's SqliteDb>)`` (no model),
  and each op runs the Agent's own session code. Write is one run of the session as ``Agent.run``
  saves it: ``initialize_session(agent, session_id=session, user_id=user)`` (the ids as sent; a
  session not given is the Agent's sticky one, a uuid4 kept on the Agent instance only),
  ``read_or_create_session`` (``db.get_session(session_id, AGENT, user_id)``, a new AgentSession when
  none is found), ``session.upsert_run(run)`` with a RunOutput holding ``Message(role="user",
  content=text)``, ``resolve_run_index``, then ``save_session`` (``db.upsert_session``) and
  ``save_run`` (``db.upsert_run(run, session_id, session.user_id, run_index)``), as
  ``persist_run_in_session`` does (agno/agent/_run.py). The tenant goes nowhere (a session has none);
  a message's role names the speaker, not a source, and Agno takes no signature and no tag, so the
  label, signature, tags and trust root go nowhere (one channel). Read is the history the Agent puts
  in a run's messages (``add_history_to_context``): the same ``initialize_session`` and
  ``read_or_create_session``, then ``session.get_messages(last_n_runs=k, limit=None,
  skip_roles=["system"], agent_id=None)`` as ``_history_for_run`` fetches it with
  ``num_history_runs=k`` (agno/agent/_messages.py; a run here holds one message); the question goes
  nowhere. Agno flags no history message as untrusted: the marker is None.
"""

import json
import platform
import sqlite3
import time
import uuid

import memlab_driver as kit  # first: guards stdout, captures import-time signals

from agno.agent import Agent
from agno.agent._session import initialize_session, save_run, save_session
from agno.agent._storage import read_or_create_session
from agno.db.base import SessionType
from agno.db.schemas.memory import UserMemory
from agno.db.sqlite import SqliteDb
from agno.memory import MemoryManager
from agno.models.message import Message
from agno.run.agent import RunOutput
from agno.run.base import RunStatus
from agno.session import AgentSession
from agno.session._utils import resolve_run_index

PARTS = ("memories", "sessions")
AGENT = "memlab_agent"  # the agent id a session's runs carry
ROLES = ("user", "assistant")
LIBRARIES = ("agno", "sqlalchemy", "pydantic")


class AgnoDriver(kit.Driver):
    """Maps the protocol onto one SqliteDb (see the module docstring)."""

    def open(self, volumes, config):
        self.part = self.choice("part", PARTS, default="memories")
        [folder] = self.need_volumes("store", why="SqliteDb keeps agno.db there")
        self.db = SqliteDb(db_file=str(folder / "agno.db"))
        self.memory = MemoryManager(db=self.db)  # no model: only its store-facing methods are called

    def describe(self):
        memories = self.part == "memories"
        return {"sut": "agno", "version": kit.dist_version("agno"),
                "libraries": {"python": platform.python_version(), "sqlite": sqlite3.sqlite_version,
                              **{name: kit.dist_version(name) for name in LIBRARIES}},
                "capabilities": {"erasure": "record", "order": True, "metadata": True, "snapshot": True,
                                 "lifecycle": ["update", "erase"]},
                "configuration": {"db": 'SqliteDb(db_file="agno.db")', "part": self.part,
                                  "api": "MemoryManager" if memories else "upsert_session/upsert_run/get_session"}}

    # ---- memories ------------------------------------------------------------------
    def write(self, context, text, meta):
        if self.part == "memories":
            memory_id = self.memory.add_user_memory(UserMemory(memory=text), user_id=context)
            return {"id": memory_id, "text": text}
        run = self._run_of(context, str(uuid.uuid4()), text, meta)
        session = self._session(context) or AgentSession(session_id=context, agent_id=AGENT, user_id=context,
                                                         created_at=int(time.time()))
        session.upsert_run(run)
        self.db.upsert_session(session)
        self.db.upsert_run(run, session_id=context, user_id=context, run_index=resolve_run_index(session, run))
        return {"id": run.run_id, "text": text}

    def read(self, context):
        if self.part == "memories":
            return [{"id": m.memory_id, "text": m.memory,
                     "meta": {"timestamp": m.updated_at, "created_at": m.created_at, "topics": m.topics}}
                    for m in self.memory.get_user_memories(user_id=context)]
        session = self._session(context)
        if session is None:
            return []
        run_of = {id(m): run.run_id for run in session.runs or [] for m in run.messages or []}
        return [{"id": run_of.get(id(m)), "text": m.content if isinstance(m.content, str) else str(m.content),
                 "meta": {"role": m.role, "timestamp": m.created_at, "message_id": m.id}}
                for m in session.get_chat_history()]

    def update(self, context, record_id, text, meta):
        if self.part == "memories":
            self.memory.replace_user_memory(record_id, UserMemory(memory=text), user_id=context)
            return {"id": record_id, "text": text}
        session = self._session(context)
        if session is None or session.get_run(record_id) is None:
            raise kit.BadRequest(f"no run {record_id!r} in session {context!r}")
        run = self._run_of(context, record_id, text, meta)
        self.db.upsert_run(run, session_id=context, user_id=context)  # run_index kept (Agno never updates it)
        return {"id": record_id, "text": text}

    def erase_record(self, context, record_id):
        if self.part == "memories":
            self.memory.delete_user_memory(record_id, user_id=context)
        else:
            self.db.delete_run(record_id)
        return [record_id]

    # ---- front door ----------------------------------------------------------------
    def frontdoor_open(self, case, trust_root, fresh):
        """The case's own SqliteDb (store/frontdoor/<case>/agno.db); the same file after a restart.
        Agno takes no trust root (it keeps no signature). Part sessions: the application's one Agent
        over it, made anew after a restart (so its sticky session id is a new one, as Agno's is)."""
        [folder] = self.need_volumes("store", why="each case's agno.db")
        root = kit.case_store(folder, case, fresh)
        self._frontdoor_close()
        self.frontdoor_db = SqliteDb(db_file=str(root / "agno.db"))
        if self.part == "memories":
            self.frontdoor_memory = MemoryManager(db=self.frontdoor_db)
        else:
            self.frontdoor_agent = Agent(id=AGENT, db=self.frontdoor_db)  # no model: only its session code runs

    def frontdoor_write(self, scope, text, label, signature, tags):
        """Part memories: add_user_memory(UserMemory(memory=text, topics=tags), user_id=user): Agno keeps
        no label, signature, tenant or session for a memory. Part sessions: one run holding the user's
        message, saved as Agent.run saves it (module docstring); no label, signature, tag or tenant."""
        if self.part == "memories":
            memory = UserMemory(memory=text, topics=list(tags) or None)
            memory_id = self.frontdoor_memory.add_user_memory(memory, user_id=scope["user"])
            return {"accepted": memory_id is not None,
                    "stored": {"memory_id": memory_id, "user_id": memory.user_id, "topics": memory.topics}}
        agent = self.frontdoor_agent
        session_id, user_id = initialize_session(agent, session_id=scope["session"], user_id=scope["user"])
        session = read_or_create_session(agent, session_id=session_id, user_id=user_id)
        run = RunOutput(run_id=str(uuid.uuid4()), agent_id=agent.id, session_id=session_id, user_id=user_id,
                        messages=[Message(role="user", content=text)], status=RunStatus.completed)
        session.upsert_run(run=run)
        run_index = resolve_run_index(session, run)
        save_session(agent, session=session)
        save_run(agent, run=run, session_id=session.session_id, user_id=session.user_id, run_index=run_index)
        return {"accepted": True, "stored": {"session_id": session.session_id, "user_id": session.user_id,
                                             "run_id": run.run_id, "run_index": run_index}}

    def frontdoor_read(self, scope, query, k, tag):
        """Part memories: db.get_user_memories(user_id, topics=[tag], limit=k, updated_at newest first).
        Part sessions: the history the Agent replays, session.get_messages(last_n_runs=k), as served."""
        if self.part == "memories":
            found = self.frontdoor_db.get_user_memories(user_id=scope["user"], topics=[tag] if tag else None,
                                                        limit=k, sort_by="updated_at", sort_order="desc")
            return [{"text": m.memory if isinstance(m.memory, str) else str(m.memory), "marker": None}
                    for m in found or []]
        agent = self.frontdoor_agent
        session_id, user_id = initialize_session(agent, session_id=scope["session"], user_id=scope["user"])
        session = read_or_create_session(agent, session_id=session_id, user_id=user_id)
        history = session.get_messages(last_n_runs=k, limit=None, skip_roles=[agent.system_message_role],
                                       agent_id=None)
        return [{"text": m.content if isinstance(m.content, str) else json.dumps(m.content, default=str),
                 "marker": None} for m in history]

    def close(self):
        self._frontdoor_close()
        if hasattr(self, "db"):
            self.db.close()

    def _frontdoor_close(self):
        db = getattr(self, "frontdoor_db", None)
        self.frontdoor_db = self.frontdoor_memory = self.frontdoor_agent = None
        if db is not None:
            db.close()

    # ---- helpers -----------------------------------------------------------------
    def _session(self, context):
        return self.db.get_session(session_id=context, session_type=SessionType.AGENT, user_id=context)

    @staticmethod
    def _run_of(context, run_id, text, meta):
        role = meta.get("role", "user")
        if role not in ROLES:
            raise kit.BadRequest(f"meta.role {role!r}: a chat history message is the user's or the assistant's")
        return RunOutput(run_id=run_id, agent_id=AGENT, session_id=context, user_id=context,
                         messages=[Message(role=role, content=text)], status=RunStatus.completed)


if __name__ == "__main__":
    kit.serve(AgnoDriver)
