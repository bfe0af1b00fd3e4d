"""Driver of LangGraph's RedisSaver checkpointer (langgraph-checkpoint-redis): offline, no LLM.

The same graph and protocol mapping as the SqliteSaver / PostgresSaver driver (the kit's
``memlab_driver.langgraph_thread``, which both drivers use): a compiled graph whose state has one
``messages`` channel
(``add_messages``) and one no-op node, checkpointed by ``RedisSaver`` on the profile's
Redis Stack service ``stack`` (RedisJSON documents indexed by RediSearch; ``setup()`` creates
the indexes on open).

- Write: ``graph.invoke({"messages": [HumanMessage(text)]}, {"configurable": {"thread_id":
  context}})``; ``version`` is the checkpoint id current after the write.
- Read: ``graph.get_state(cfg).values["messages"]`` -- the checkpoint the thread's
  ``checkpoint_latest`` pointer names, with its pending writes applied. An element that is no
  message (RedisSaver's deserializer logs an ERROR and leaves the raw JSON constructor dict in
  the list when LangChain's class refuses the stored fields) is ``open.config.unusable``'s:
  ``refuse`` (the default) refuses the read, naming the element (``UnusableMessage``): the
  driver's judgement that no application could use it, not an error of get_state; ``serve``
  serves it as get_state returned it (the constructor's ``kwargs.content`` and ``kwargs.type``),
  so what the SUT itself raised is only its ERROR log.
- Erase: ``saver.delete_thread(context)`` (whole thread); one message (lifecycle) through
  ``update_state`` with ``RemoveMessage(id)``. Update (lifecycle): ``update_state`` with a message
  of the same id.

``open.config``: ``saver`` redis (the only one here), ``serde`` plain, ``unusable`` refuse | serve.

Front door (``frontdoor_*``, memlab frontdoor run --sut): each case opens its own RedisSaver on the
same ``stack`` server under RedisSaver's own key prefixes, ``checkpoint_prefix`` =
``frontdoor:<case>:checkpoint`` and ``checkpoint_write_prefix`` = ``frontdoor:<case>:checkpoint_write``
(its constructor's arguments): the case's checkpoint documents, its ``..._latest`` pointers and its
pending writes sit under ``frontdoor:<case>:`` and ``setup()`` makes the case's own two RediSearch
indexes, named by the prefixes (a fresh case whose index or keys exist, or a reopened one whose index
is gone, is refused). The only key RedisSaver does not prefix is its per-checkpoint registry
``write_keys_zset:<thread>:<ns>:<checkpoint_id>`` (a fixed prefix), named by the checkpoint id, which
is new for every checkpoint, so no case reaches another's.

- Scope: RedisSaver keys a thread on ``thread_id`` (+ ``checkpoint_ns``, ``""`` here) and nothing
  else; the driver builds the one thread id from the lab's three parts as the JSON array
  ``[tenant, user, session]`` of the parts exactly as sent (an integer stays a JSON number, a part not
  given is ``null``), an injective encoding (the profile declares ``isolation: driver``).
- Write: one graph turn, ``graph.invoke({"messages": [HumanMessage(text)]}, cfg)``; a message keeps no
  caller-set source and LangGraph has no signature or tags, so the label, signature, tags and
  ``trust_root`` go nowhere: the channels are one write.
- Read: ``graph.get_state(cfg).values["messages"]`` -- the thread's whole message list, no query, limit
  or filter; each message's content, no marker (LangGraph has no untrusted flag). An element that is
  no message is ``config.unusable``'s, as for ``read``.
"""

import platform

import memlab_driver as kit  # first: guards stdout, captures import-time signals
from langchain_core.messages import BaseMessage
from memlab_driver.langgraph_thread import MessageThread, compile_graph

SUT = "langgraph-checkpoint-redis"


class UnusableMessage(ValueError):
    """get_state served an element of the message list that is not a message."""


class LangGraphRedisDriver(MessageThread, kit.Driver):
    """The checkpointer drivers' mapping (memlab_driver.langgraph_thread) over RedisSaver on service ``stack``."""

    def open(self, volumes, config):
        """RedisSaver on the stack service (indexes set up), and the one-node graph over it."""
        from langgraph.checkpoint.redis import RedisSaver

        if config.get("saver", "redis") != "redis" or config.get("serde", "plain") != "plain":
            raise kit.BadRequest("this driver runs saver: redis with serde: plain "
                                 "(images/langgraph-sqlite runs sqlite, postgres and aes)")
        if "stack" not in self.services:
            raise kit.BadRequest("saver: redis needs a service named stack (services: {stack: {kind: redis-stack}})")
        self.unusable = self.choice("unusable", ("refuse", "serve"), "refuse")
        self.saver = RedisSaver(redis_url=self.services["stack"])
        self.saver.setup()
        self.graph = compile_graph(self.saver)

    def read(self, context):
        """The thread's state as get_state serves it; an element that is no message: config.unusable."""
        messages = self._usable(self._messages(context))
        return [self._record(m) if isinstance(m, BaseMessage) else _raw_record(m) for m in messages]

    def _usable(self, messages):
        """``messages`` as served, once config.unusable (refuse) found no element that is no message."""
        for i, message in enumerate(messages):
            if not isinstance(message, BaseMessage) and self.unusable == "refuse":
                raise UnusableMessage(f"get_state served a {type(message).__name__} as message {i}, not a message "
                                      "(the checkpointer could not deserialize it; see its ERROR log)")
        return messages

    def frontdoor_open(self, case, trust_root, fresh):
        """The case's own RedisSaver (its key prefixes and indexes) and graph; no trust root taken."""
        from langgraph.checkpoint.redis import RedisSaver

        prefix, client = f"frontdoor:{case}:checkpoint", self.saver._redis
        indexes = {name.decode() if isinstance(name, bytes) else name for name in client.execute_command("FT._LIST")}
        found = prefix in indexes
        if fresh and (found or next(iter(client.scan_iter(match=f"frontdoor:{case}:*", count=1000)), None)):
            raise kit.BadRequest(f"frontdoor_open {case}: fresh=True but keys or the index {prefix} exist")
        if not fresh and not found:
            raise kit.BadRequest(f"frontdoor_open {case}: fresh=False but the index {prefix} does not exist")
        saver = RedisSaver(redis_client=client, checkpoint_prefix=prefix, checkpoint_write_prefix=f"{prefix}_write")
        saver.setup()  # the case's two indexes, as the saver makes them on first use (no checkpoint written)
        self.frontdoor_graph = compile_graph(saver)

    def _served_texts(self, messages):
        """The messages a usable checkpoint serves (this driver's ``_usable``), as the at-rest read gives them."""
        return [(self._record(m) if isinstance(m, BaseMessage) else _raw_record(m))["text"]
                for m in self._usable(messages)]

    def describe(self):
        """Versions of the checkpointer, LangGraph, the Redis client libraries and the server's modules."""
        client = self.saver._redis
        modules = {m[b"name"].decode() if isinstance(m[b"name"], bytes) else m[b"name"]: m[b"ver"]
                   for m in client.module_list()}
        libs = {name: kit.dist_version(name) for name in ("langgraph", "langgraph-checkpoint", "langchain-core",
                                                           "ormsgpack", "redis", "redisvl")}
        return {"sut": SUT, "version": kit.dist_version(SUT),
                "libraries": {"python": platform.python_version(), "redis-server": client.info("server")["redis_version"],
                              **{f"module.{name}": str(ver) for name, ver in sorted(modules.items())}, **libs},
                "capabilities": {"erasure": "context", "order": True, "metadata": True, "snapshot": True,
                                 "sealed": False, "lifecycle": ["update", "erase"]},
                "configuration": {"saver": "redis", "serde": "plain"}}

    def close(self):
        """Close the saver's connection pool."""
        if hasattr(self, "saver"):
            self.saver._redis.close()


def _raw_record(element):
    """A record of an element get_state left undeserialized: a constructor dict's kwargs, or its text."""
    kwargs = element.get("kwargs") if isinstance(element, dict) else None
    if not isinstance(kwargs, dict):
        return {"id": None, "text": str(element), "meta": {}}
    content = kwargs.get("content")
    return {"id": kwargs.get("id"), "text": content if isinstance(content, str) else str(content),
            "meta": {"role": kwargs.get("type")}}


if __name__ == "__main__":
    kit.serve(LangGraphRedisDriver)
