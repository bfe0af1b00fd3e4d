"""A LangGraph thread of messages mapped onto the protocol, for the drivers of LangGraph checkpointers.

The graph an application builds around a chat model, with the model left out: one ``messages``
channel merged by ``add_messages`` and one no-op node, compiled over the driver's checkpointer.
A context is a thread (``thread_id``). Imported only by drivers whose environment has LangGraph
(the rest of the kit is stdlib only); the drivers of SqliteSaver / PostgresSaver, RedisSaver and
langgraph-ledger share it instead of copying it.

- write: ``graph.invoke({"messages": [HumanMessage(text)]}, cfg)`` (``AIMessage`` for role
  assistant, ``SystemMessage`` for system); answers the id ``add_messages`` assigned and the
  checkpoint id now current (``version``, which the lab uses to name earlier states).
- read: ``graph.get_state(cfg).values["messages"]``; served meta: ``role`` = the message's
  ``type``, ``name`` when set.
- update (lifecycle): ``update_state`` with a message of the same id (``add_messages`` replaces it).
- erase: ``saver.delete_thread(context)`` (whole thread); one message through ``update_state`` with
  ``RemoveMessage(id)``, LangGraph's documented removal (older checkpoints keep it).
- front door (``self.frontdoor_graph``, set by the driver's ``frontdoor_open`` over the case's own
  saver): a write is one graph turn carrying the text as a ``HumanMessage`` (no label, signature or tag
  goes anywhere: a message's ``type`` names the speaker), a read ``get_state`` of the scope's thread,
  every message served (no query, limit or filter, no marker); the thread is :func:`thread_of` the
  scope, the one injective key a checkpointer has.
- close (``SaverConnections``, for the drivers whose saver holds a connection, ``self.conn``, and the
  front-door case its own, ``self.frontdoor_conn``): both connections closed.
"""

from __future__ import annotations

import json
from typing import Annotated, TypedDict

from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, SystemMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages

from memlab_driver.frontdoor import scope_key as thread_of  # a checkpointer's one context: the thread
from memlab_driver.protocol import BadRequest

MESSAGES = {"user": HumanMessage, "assistant": AIMessage, "system": SystemMessage}


class State(TypedDict):
    """The graph state: one message list, merged by add_messages."""

    messages: Annotated[list, add_messages]


def compile_graph(saver):
    """The one-node graph over ``saver``."""
    graph = StateGraph(State)
    graph.add_node("remember", lambda state: {})
    graph.add_edge(START, "remember")
    graph.add_edge("remember", END)
    return graph.compile(checkpointer=saver)


class MessageThread:
    """Write, read, update and erase over ``self.graph`` and ``self.saver`` (a driver's mixin)."""

    def _cfg(self, context):
        return {"configurable": {"thread_id": context}}

    def write(self, context, text, meta):
        """One graph turn carrying the message; its id and the checkpoint now current."""
        cls = MESSAGES.get(meta.get("role", "user"))
        if cls is None:
            raise BadRequest(f"meta.role {meta.get('role')!r}: use one of {sorted(MESSAGES)}")
        self.graph.invoke({"messages": [cls(content=text)]}, self._cfg(context))
        state = self.graph.get_state(self._cfg(context))
        last = state.values["messages"][-1]
        return {"id": last.id, "text": last.content, "meta": self._meta(last),
                "version": state.config["configurable"]["checkpoint_id"]}

    def read(self, context):
        """The thread's state as get_state serves it."""
        return [self._record(m) for m in self._messages(context)]

    def update(self, context, record_id, text, meta):
        """update_state with a message of the same id: add_messages replaces it in place."""
        old = next((m for m in self._messages(context) if m.id == record_id), None)
        if old is None:
            raise KeyError(f"no message {record_id} in thread {context}")
        self.graph.update_state(self._cfg(context), {"messages": [type(old)(content=text, id=record_id)]})
        return {"id": record_id, "text": text, "meta": self._meta(old)}

    def erase(self, context, record_id):
        """delete_thread (the whole thread); one message through update_state with RemoveMessage(id)."""
        if record_id is not None:
            if all(m.id != record_id for m in self._messages(context)):
                raise KeyError(f"no message {record_id} in thread {context}")
            self.graph.update_state(self._cfg(context), {"messages": [RemoveMessage(id=record_id)]})
            return [record_id]
        ids = [r["id"] for r in self.read(context)]
        self.saver.delete_thread(context)
        return ids

    def _messages(self, context):
        return (self.graph.get_state(self._cfg(context)).values or {}).get("messages", [])

    def _record(self, m):
        """One served message as a record."""
        return {"id": m.id, "text": m.content if isinstance(m.content, str) else str(m.content), "meta": self._meta(m)}

    def _meta(self, message):
        meta = {"role": message.type}
        if message.name:
            meta["name"] = message.name
        return meta

    # ---- front door (over ``self.frontdoor_graph``) -------------------------------------------
    def _frontdoor_cfg(self, scope):
        if getattr(self, "frontdoor_graph", None) is None:
            raise BadRequest("frontdoor_open first")
        return {"configurable": {"thread_id": thread_of(scope)}}

    def frontdoor_write(self, scope, text, label, signature, tags):
        """One graph turn carrying the text as the user's message; no label, signature or tag kept."""
        cfg = self._frontdoor_cfg(scope)
        values = self.frontdoor_graph.invoke({"messages": [HumanMessage(content=text)]}, cfg)
        last = values["messages"][-1] if values.get("messages") else None
        return {"accepted": True, "stored": {"thread_id": cfg["configurable"]["thread_id"],
                                             "message_id": getattr(last, "id", None), "type": "human"}}

    def frontdoor_read(self, scope, query, k, tag):
        """get_state(thread).values["messages"]: the thread's whole message list, no marker."""
        state = self.frontdoor_graph.get_state(self._frontdoor_cfg(scope))
        return [{"text": text, "marker": None} for text in self._served_texts((state.values or {}).get("messages", []))]

    def _served_texts(self, messages):
        """The texts of the messages the graph is handed (a driver whose saver serves others overrides it)."""
        return [m.content if isinstance(m.content, str) else json.dumps(m.content) for m in messages]


class SaverConnections:
    """``close`` for a driver whose saver holds the connection ``self.conn`` and whose front-door case, its
    own ``self.frontdoor_conn`` (a driver's mixin, before ``kit.Driver``): the SQLite and PostgreSQL savers'."""

    def _close_frontdoor(self):
        if getattr(self, "frontdoor_conn", None) is not None:
            self.frontdoor_conn.close()
        self.frontdoor_conn = None

    def close(self):
        """Close the connections (closing SqliteSaver's folds its WAL back into the file)."""
        self._close_frontdoor()
        if hasattr(self, "conn"):
            self.conn.close()
