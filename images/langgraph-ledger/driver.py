"""Driver of langgraph-ledger (0.3.0): a hash-chained trace ledger beside LangGraph's SqliteSaver.

The SUT is a compiled LangGraph graph (one ``messages`` channel with ``add_messages``, one no-op
node: the graph an application builds around a chat model, with the model left out) whose
checkpointer is ``TracingCheckpointSaver(SqliteSaver(conn), trace_root=<volume>/trace)``: every
checkpoint goes to ``checkpoints.db`` as usual, and its round-trip-normalised SHA-256 is chained
into ``trace/<thread>.jsonl``. Where the trace folder lives is the user's choice (``trace_root``
is a required argument): ``open.config.trace`` ``beside`` (the default: volume ``store``, with
``checkpoints.db``, as the README's ``./traces`` beside the application) or ``off`` (volume
``trace``, which a profile may declare the adversary does not hold).

- write: ``graph.invoke({"messages": [HumanMessage(text)]}, thread_id=context)``; answers the
  message id and the checkpoint id now current (``version``, which the lab uses to name states).
- read: ``graph.get_state(cfg).values["messages"]``: reads pass straight through the wrapper.
- erase: ``delete_thread(context)`` (whole thread only).
- audit: ``langgraph_ledger.verify_thread(saver.inner, trace/<thread>.jsonl)``: the chain, then
  every logged checkpoint re-read from the saver and re-hashed. Keyless, as SUT notes advise:
  keyed mode cannot be verified through ``verify_thread``.

Front door (``frontdoor_*``): each case opens its own ``store/frontdoor/<case>/checkpoints.db``
(the same file again after a restart) under its own ``TracingCheckpointSaver(SqliteSaver(conn),
trace_root=<trace volume>/frontdoor/<case>/trace)`` -- the trace beside it in volume ``store``, or in
volume ``trace`` with ``config.trace: off`` -- and the same one-node graph over it. As for
images/langgraph-sqlite: the one thread id is the JSON array ``[tenant, user, session]`` of the scope's
parts as sent (injective: a checkpointer keys on ``thread_id`` only); a write is one graph turn carrying
the text as a ``HumanMessage`` (no label, signature or tag goes anywhere: a message's ``type`` names the
speaker); a read is ``graph.get_state(cfg).values["messages"]``, which passes straight through the
wrapper (``TracingCheckpointSaver.get_tuple`` delegates to the inner saver; the ledger is checked only
by ``verify_thread``, the audit), served with no marker.
"""


import platform
import sqlite3

import memlab_driver as kit  # first: guards stdout, captures import-time signals
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph_ledger import TracingCheckpointSaver, verify_thread
from memlab_driver.langgraph_thread import MessageThread, SaverConnections, compile_graph


class LedgerDriver(MessageThread, SaverConnections, kit.Driver):
    """A checkpointed graph (memlab_driver.langgraph_thread) whose saver is wrapped by langgraph-ledger's
    TracingCheckpointSaver."""

    def open(self, volumes, config):
        """checkpoints.db in volume store; trace/ beside it or in volume trace (config.trace)."""
        self.placement = self.choice("trace", ("beside", "off"), "beside")
        trace_volume = (self.need_volumes("trace", why="config.trace: off")[0] if self.placement == "off"
                        else volumes["store"])
        self.trace_volume = trace_volume
        self.conn = sqlite3.connect(str(volumes["store"] / "checkpoints.db"), check_same_thread=False)
        self.trace_root = trace_volume / "trace"
        self.saver = TracingCheckpointSaver(SqliteSaver(self.conn), trace_root=self.trace_root)
        self.graph = compile_graph(self.saver)

    def describe(self):
        """Versions of langgraph-ledger, the checkpointer and LangGraph."""
        libs = {name: kit.dist_version(name) for name in ("langgraph", "langgraph-checkpoint", "langgraph-checkpoint-sqlite",
                                                "langchain-core", "ormsgpack")}
        return {"sut": "langgraph-ledger", "version": kit.dist_version("langgraph-ledger"),
                "libraries": {"python": platform.python_version(), "sqlite": sqlite3.sqlite_version, **libs},
                "capabilities": {"erasure": "context", "order": True, "metadata": True, "snapshot": True},
                "configuration": {"ledger": "keyless", "trace_root": "trace/ beside checkpoints.db" if self.placement == "beside"
                                  else "trace/ in volume trace, off the store"}}

    def erase(self, context, record_id):
        """delete_thread: whole threads only."""
        if record_id is not None:
            raise kit.Unsupported("SqliteSaver erases whole threads only (delete_thread)")
        return super().erase(context, None)

    def audit(self, context):
        """verify_thread(inner saver, the thread's trace log)."""
        path = self.saver.recorder_for(context).path
        report = verify_thread(self.saver.inner, path)
        problems = [f"seq {e.get('seq')}: {e.get('error')}" for e in report.get("errors") or []]
        return {"ok": bool(report.get("ok")), "problems": problems,
                "call": f"langgraph_ledger.verify_thread(SqliteSaver(checkpoints.db), {path})"}

    def frontdoor_open(self, case, trust_root, fresh):
        """The case's own checkpoints.db and trace folder under a wrapper of their own; no trust root taken."""
        path = kit.case_store(self.volumes["store"], case, fresh, "checkpoints.db")
        self._close_frontdoor()
        self.frontdoor_conn = sqlite3.connect(str(path), check_same_thread=False)
        inner = SqliteSaver(self.frontdoor_conn)
        inner.setup()  # the file's tables, as the saver makes them on first use (no checkpoint written)
        trace_root = self.trace_volume / "frontdoor" / case / "trace"
        self.frontdoor_graph = compile_graph(TracingCheckpointSaver(inner, trace_root=trace_root))


if __name__ == "__main__":
    kit.serve(LedgerDriver)
