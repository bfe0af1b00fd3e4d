"""Driver of langchain-postgres's ``PostgresChatMessageHistory``: a chat history on PostgreSQL.

The store is the one the class's docstring sets up (langchain_postgres/chat_message_histories.py):
a psycopg 3 connection to the profile's PostgreSQL service ``db``, the table made once by
``PostgresChatMessageHistory.create_tables(conn, "chat_history")`` (``id SERIAL PRIMARY KEY,
session_id UUID, message JSONB, created_at TIMESTAMPTZ``, an index on session_id), and one
``PostgresChatMessageHistory("chat_history", session_id, sync_connection=conn)`` per conversation.

- Context: the class takes a session id that must be a UUID (it raises otherwise); the lab's
  context (a name) is mapped to ``uuid5(NAMESPACE, context)``, as an application keeps its own
  conversation names. The name is also kept in the message as ``additional_kwargs.conversation``
  -- a label for the lab's editor to find a conversation's rows by (the SUT never reads it back to
  check it; its read filters on session_id alone).
- write: ``add_messages([message])``, a ``HumanMessage`` / ``AIMessage`` / ``SystemMessage`` by
  ``meta.role`` with a fresh id (``message.id``, kept in ``message.data.id`` by
  ``message_to_dict``); the record id is that id.
- read: ``history.messages`` (``get_messages``: ``SELECT message ... WHERE session_id = %s
  ORDER BY id``, then ``messages_from_dict``), in the order served. Served meta: ``role`` (the
  message's type: human -> user, ai -> assistant, system -> system).
- erase (whole context): ``clear()`` (``DELETE ... WHERE session_id = %s``); the class has no
  per-message delete.
- lifecycle: ``update`` and the erase of one message set ``history.messages`` (the class's setter:
  ``clear()`` then ``add_messages(...)``) to the served list with the message replaced (same id)
  or left out: the class's one way to change or drop a message of a session.

Front door (``frontdoor_*``, row langchain-postgres-history): each case has its own schema in the
service's database, ``frontdoor_<case>``, and a connection of its own whose ``search_path`` is that
schema, so the class's table (``chat_history``, made by ``PostgresChatMessageHistory.create_tables``
when the case opens fresh, found again as it is after a restart, kept after the row) is the case's.

- Scope: the class's one context is ``session_id`` (``WHERE session_id = %(session_id)s``), which
  must be a UUID (``__init__`` raises otherwise). The driver builds it from the lab's three parts:
  ``uuid5(NAMESPACE, JSON array [tenant, user, session])`` of the parts exactly as sent (an integer
  stays a JSON number, a part not given is ``null``): the JSON array is injective and uuid5 a SHA-1
  name hash, so two scopes share a session only by a hash collision. That separation is the
  driver's mapping (the profile declares ``isolation: driver``), not the class's.
- Write: ``add_messages([HumanMessage(content=text, id=<uuid4>)])``, the user's turn as
  ``RunnableWithMessageHistory`` adds it (``_exit_history``). The label goes to langchain-core's own
  provenance field of a human message, ``additional_kwargs["lc_source"]``, set by
  ``add_notification_metadata(message, source=label)`` (``langchain_core/messages/notification.py``:
  "which feature added a message"; read by ``get_notification_metadata``); ``message_to_dict`` keeps it
  in the stored JSONB and ``messages_from_dict`` serves it back. Nothing on the read path reads it
  (langchain-core's own docstring: "Don't use them to decide whether to trust a message"). The class
  and langchain-core have no signature and no tags, so the signature, tags and ``trust_root`` go
  nowhere.
- Read: ``history.messages`` (``get_messages``: every message of the session ``ORDER BY id``), what
  ``RunnableWithMessageHistory._enter_history`` hands the chain, whole: no query, count or filter, so
  the query, ``k`` and the tag go nowhere. Served as the messages' content, no marker (the class has
  no untrusted flag; ``lc_source`` is not one and is not sent to a model).
"""

import json
import platform
import uuid

import memlab_driver as kit  # first: guards stdout, captures import-time signals

import psycopg
from langchain_core.messages import (
    AIMessage, HumanMessage, SystemMessage, add_notification_metadata, message_to_dict)
from langchain_postgres import PostgresChatMessageHistory

TABLE = "chat_history"  # the table name of the class's docstring example
NAMESPACE = uuid.UUID("6f1b0c52-5d1e-4c7a-9a43-1d3c0b7e2a10")  # the driver's namespace for uuid5(context)
MESSAGES = {"user": HumanMessage, "assistant": AIMessage, "system": SystemMessage}
ROLES = {"human": "user", "ai": "assistant", "system": "system"}
LIBRARIES = ("langchain-core", "psycopg", "psycopg-binary", "psycopg-pool")


class LangchainPostgresHistoryDriver(kit.Driver):
    """Maps the protocol onto PostgresChatMessageHistory (see the module docstring)."""

    def open(self, volumes, config):
        """A psycopg connection to the service db and the table made by create_tables."""
        if "db" not in self.services:
            raise kit.BadRequest("needs a service named db (services: {db: {kind: postgres}})")
        self.conn = psycopg.connect(self.services["db"])
        PostgresChatMessageHistory.create_tables(self.conn, TABLE)

    def describe(self):
        """The package, what it runs under, and the capabilities."""
        server = self.conn.execute("SHOW server_version").fetchone()[0]
        self.conn.commit()
        return {"sut": "langchain-postgres", "version": kit.dist_version("langchain-postgres"),
                "libraries": {"python": platform.python_version(), "postgresql": server,
                              "libpq": f"{psycopg.pq.version()} ({psycopg.pq.__impl__})",
                              **{name: kit.dist_version(name) for name in LIBRARIES}},
                "capabilities": {"erasure": "context", "order": True, "metadata": True, "snapshot": True,
                                 "lifecycle": ["update", "erase"]},
                "configuration": {"table": TABLE, "session_id": "uuid5(namespace, context)",
                                  "connection": "psycopg.connect(<service db>), sync"}}

    def _history(self, context):
        session = str(uuid.uuid5(NAMESPACE, context))
        return PostgresChatMessageHistory(TABLE, session, sync_connection=self.conn)

    def write(self, context, text, meta):
        """add_messages with one message of the role, a fresh id, the conversation's name."""
        cls = MESSAGES.get(meta.get("role", "user"))
        if cls is None:
            raise kit.BadRequest(f"meta.role {meta.get('role')!r}: use one of {sorted(MESSAGES)}")
        message = cls(content=text, id=str(uuid.uuid4()), additional_kwargs={"conversation": context})
        self._history(context).add_messages([message])
        return _record(message)

    def read(self, context):
        """history.messages: the session's messages as get_messages serves them."""
        return [_record(m) for m in self._history(context).messages]

    def erase_context(self, context):
        """clear(): every message of the session."""
        history = self._history(context)
        ids = [m.id for m in history.messages]
        history.clear()
        return ids

    def erase_record(self, context, record_id):
        """Lifecycle: the messages setter with the served list less that message."""
        history = self._history(context)
        kept = history.messages
        if not any(m.id == record_id for m in kept):
            raise KeyError(f"no message {record_id} in conversation {context}")
        history.messages = [m for m in kept if m.id != record_id]
        return [record_id]

    def update(self, context, record_id, text, meta):
        """Lifecycle: the messages setter with that message's content replaced (same class and id)."""
        history = self._history(context)
        served = history.messages
        at = next((i for i, m in enumerate(served) if m.id == record_id), None)
        if at is None:
            raise KeyError(f"no message {record_id} in conversation {context}")
        served[at] = served[at].model_copy(update={"content": text})
        history.messages = served
        return _record(served[at])

    # ---- the front door: one table per case, one session per scope ----------------------------------
    def frontdoor_open(self, case, trust_root, fresh):
        """The case's own schema, frontdoor_<case>, on a connection of its own (search_path), its table made
        by create_tables when fresh, else the one kept; no trust root taken."""
        schema = kit.psycopg_case_schema(self.services["db"], case, fresh)
        self._frontdoor_close()
        self.fd_conn = psycopg.connect(kit.on_schema(self.services["db"], schema))
        if fresh:
            PostgresChatMessageHistory.create_tables(self.fd_conn, TABLE)

    def _frontdoor_close(self):
        conn, self.fd_conn = getattr(self, "fd_conn", None), None
        if conn is not None:
            conn.close()

    def _frontdoor_history(self, scope):
        if getattr(self, "fd_conn", None) is None:
            raise kit.BadRequest("frontdoor_open first")
        return PostgresChatMessageHistory(TABLE, _session_id(scope), sync_connection=self.fd_conn)

    def frontdoor_write(self, scope, text, label, signature, tags):
        """add_messages of one HumanMessage, the label as its lc_source; no signature or tag kept."""
        history = self._frontdoor_history(scope)
        message = HumanMessage(content=text, id=str(uuid.uuid4()))
        if label is not None:
            message = add_notification_metadata(message, source=label)
        try:
            history.add_messages([message])
        except Exception:
            self.fd_conn.rollback()  # the SUT raised: its refusal stands, the connection is usable again
            raise
        return {"accepted": True, "stored": {"table": TABLE, "session_id": _session_id(scope),
                                             "message": message_to_dict(message)}}

    def frontdoor_read(self, scope, query, k, tag):
        """history.messages of the scope's session: every message, as the chain is handed them, no marker."""
        history = self._frontdoor_history(scope)
        try:
            messages = history.messages
        finally:
            self.fd_conn.rollback()  # get_messages leaves its transaction open
        return [{"text": m.content if isinstance(m.content, str) else json.dumps(m.content), "marker": None}
                for m in messages]

    def close(self):
        self._frontdoor_close()
        if hasattr(self, "conn"):
            self.conn.close()


def _session_id(scope):
    """The session id of a scope: uuid5 of the JSON array of its parts as sent (ints stay numbers)."""
    parts = kit.scope_key(scope)
    return str(uuid.uuid5(NAMESPACE, parts))


def _record(message):
    text = message.content if isinstance(message.content, str) else str(message.content)
    return {"id": message.id, "text": text, "meta": {"role": ROLES.get(message.type, message.type)}}


if __name__ == "__main__":
    kit.serve(LangchainPostgresHistoryDriver)
