"""Driver of LangGraph's SqliteSaver and PostgresSaver checkpointers: offline, no LLM.

The SUT is a compiled LangGraph graph whose state has one ``messages`` channel
(``add_messages``) and one no-op node, checkpointed by ``SqliteSaver`` into
``checkpoints.db`` in volume ``store`` (``open.config.saver: sqlite``, the default), or
by ``PostgresSaver`` (langgraph-checkpoint-postgres) on the profile's PostgreSQL service
``db`` (``saver: postgres``; ``setup()`` creates its tables) -- the graph an application
builds around a chat model, with the model left out.

- Write: ``graph.invoke({"messages": [HumanMessage(text)]}, {"configurable":
  {"thread_id": context}})`` (an ``AIMessage`` for role assistant, ``SystemMessage``
  for system). The answer's ``id`` is the message id ``add_messages`` assigned;
  ``version`` is the checkpoint id current after the write
  (``graph.get_state(cfg).config``), which the lab uses to name earlier states.
- Read: ``graph.get_state(cfg).values["messages"]`` -- the newest checkpoint of the
  thread with its pending writes applied. Served meta: ``role`` = the message's
  ``type`` (human / ai / system), ``name`` when set.
- Erase: ``saver.delete_thread(context)`` -- the whole thread (``record: null``, what the at-rest
  method asks: capabilities.erasure context). For the lifecycle gate an erase naming one message is
  ``graph.update_state(cfg, {"messages": [RemoveMessage(id)]})``, LangGraph's documented removal of
  one message from the state (older checkpoints keep it).
- Update (lifecycle): ``graph.update_state(cfg, {"messages": [<message with the same id>]})`` --
  ``add_messages`` replaces a message whose id it already holds (LangGraph's own update by id).

``open.config``: ``serde`` plain | aes. With ``aes`` the saver serialises through
``EncryptedSerializer.from_pycryptodome_aes(key=...)`` (AES-EAX); the 32-byte key
lives in volume ``keys`` (``aes.key``, created on the first open), which the
adversary does not hold.

Front door (``frontdoor_*``, memlab frontdoor run --sut): each case opens its own checkpointer over
an empty store -- SqliteSaver on ``store/frontdoor/<case>/checkpoints.db`` (the same file again,
unchanged, after a restart; the same serde, so with ``aes`` every blob is sealed), or PostgresSaver
on the case's own PostgreSQL schema ``frontdoor_<case>`` (the connection's ``search_path``; made
when fresh, found again after a restart) -- and the same one-node graph over it.

- Scope: a checkpointer keys a thread on ``thread_id`` (+ ``checkpoint_ns``, the subgraph's, ``""``
  here) and nothing else (SqliteSaver.get_tuple: ``WHERE thread_id = ? AND checkpoint_ns = ?``, the
  id as ``str()``). The lab's scope has three parts, so the driver builds the one thread id from
  them: the JSON array ``[tenant, user, session]`` of the parts exactly as sent (an integer stays a
  JSON number, a part not given is ``null``), an injective encoding (the profile declares
  ``isolation: driver``).
- Write: one graph turn, ``graph.invoke({"messages": [HumanMessage(text)]}, cfg)`` -- LangGraph
  itself merges it into the thread (``add_messages``) and checkpoints it. A message keeps no
  caller-set source: its ``type`` (human / ai / system / tool) names the speaker and nothing on the
  read path reads it for provenance, and LangGraph has no signature or tags, so the label,
  signature, tags and ``trust_root`` go nowhere: the channels are one write.
- Read: ``graph.get_state(cfg).values["messages"]`` -- the thread's whole message list as the graph
  (and the model node it would call) is served it: no query, limit or filter. Each message's
  content, with no marker (LangGraph has no untrusted flag).
"""


import os
import platform
import sqlite3

import memlab_driver as kit  # first: guards stdout, captures import-time signals
from memlab_driver.langgraph_thread import MessageThread, SaverConnections, compile_graph

SAVERS = {"sqlite": "langgraph-checkpoint-sqlite", "postgres": "langgraph-checkpoint-postgres"}


class LangGraphSqliteDriver(MessageThread, SaverConnections, kit.Driver):
    """Maps the protocol onto a checkpointed graph (memlab_driver.langgraph_thread) over volume ``store``."""

    def open(self, volumes, config):
        """Open the checkpointer config.saver names (encrypted serde when config.serde is aes)."""
        self.saver_kind = config.get("saver", "sqlite")
        if self.saver_kind not in SAVERS:
            raise kit.BadRequest(f"config.saver {self.saver_kind!r}: use one of {sorted(SAVERS)}")
        self.serde_kind = config.get("serde", "plain")
        if self.serde_kind not in ("plain", "aes"):
            raise kit.BadRequest(f"config.serde {self.serde_kind!r}: use plain or aes")
        kwargs = self.serde_kwargs = {}
        if self.serde_kind == "aes":
            if "keys" not in volumes:
                raise kit.BadRequest("serde: aes needs a volume named keys (held off the store)")
            from langgraph.checkpoint.serde.encrypted import EncryptedSerializer

            kwargs["serde"] = EncryptedSerializer.from_pycryptodome_aes(key=_key(volumes["keys"] / "aes.key"))
        self.saver = self._postgres(kwargs) if self.saver_kind == "postgres" else self._sqlite(volumes, kwargs)
        self.graph = compile_graph(self.saver)

    def _sqlite(self, volumes, kwargs):
        from langgraph.checkpoint.sqlite import SqliteSaver

        self.conn = sqlite3.connect(str(volumes["store"] / "checkpoints.db"), check_same_thread=False)
        return SqliteSaver(self.conn, **kwargs)

    def _postgres(self, kwargs):
        """PostgresSaver on a connection as its docs set one up (autocommit, no prepared statements)."""
        import psycopg
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg.rows import dict_row

        if "db" not in self.services:
            raise kit.BadRequest("saver: postgres needs a service named db (services: {db: {kind: postgres}})")
        self.conn = psycopg.connect(self.services["db"], autocommit=True, prepare_threshold=0, row_factory=dict_row)
        self.libpq = f"{psycopg.pq.version()} ({psycopg.pq.__impl__})"
        saver = PostgresSaver(self.conn, **kwargs)
        saver.setup()
        return saver

    def describe(self):
        """Versions of the checkpointer, LangGraph and what they link against."""
        libs = {name: kit.dist_version(name) for name in ("langgraph", "langgraph-checkpoint", "langchain-core",
                                                "ormsgpack", "pycryptodome", "psycopg", "psycopg-binary")}
        backend = ({"postgresql": self.conn.execute("SHOW server_version").fetchone()["server_version"],
                    "libpq": self.libpq}
                   if self.saver_kind == "postgres" else {"sqlite": sqlite3.sqlite_version})
        return {"sut": SAVERS[self.saver_kind], "version": kit.dist_version(SAVERS[self.saver_kind]),
                "libraries": {"python": platform.python_version(), **backend, **libs},
                "capabilities": {"erasure": "context", "order": True, "metadata": True, "snapshot": True,
                                 "sealed": self.serde_kind == "aes", "lifecycle": ["update", "erase"]},
                "configuration": {"serde": self.serde_kind,
                                  **({"saver": "postgres"} if self.saver_kind == "postgres" else {})}}

    def frontdoor_open(self, case, trust_root, fresh):
        """The case's own checkpointer and graph (a new, empty store when fresh); no trust root taken."""
        self._close_frontdoor()
        if self.saver_kind == "postgres":
            saver = self._frontdoor_postgres(case, fresh)
        else:
            from langgraph.checkpoint.sqlite import SqliteSaver

            path = kit.case_store(self.volumes["store"], case, fresh, "checkpoints.db")
            self.frontdoor_conn = sqlite3.connect(str(path), check_same_thread=False)
            saver = SqliteSaver(self.frontdoor_conn, **self.serde_kwargs)
            saver.setup()  # the file's tables, as the saver makes them on first use (no checkpoint written)
        self.frontdoor_graph = compile_graph(saver)

    def _frontdoor_postgres(self, case, fresh):
        """PostgresSaver on the case's own schema (search_path), its tables made by setup()."""
        import psycopg
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg.rows import dict_row

        schema = kit.psycopg_case_schema(self.services["db"], case, fresh)
        conn = psycopg.connect(kit.on_schema(self.services["db"], schema), autocommit=True, prepare_threshold=0,
                               row_factory=dict_row)
        self.frontdoor_conn = conn
        saver = PostgresSaver(conn, **self.serde_kwargs)
        saver.setup()
        return saver


def _key(path):
    """The AES key in the key volume, made once (32 random bytes) when absent."""
    if not path.exists():
        path.write_bytes(os.urandom(32))
        path.chmod(0o600)
    key = path.read_bytes()
    if len(key) != 32:
        raise ValueError(f"{path}: an AES-256 key is 32 bytes, found {len(key)}")
    return key


if __name__ == "__main__":
    kit.serve(LangGraphSqliteDriver)
