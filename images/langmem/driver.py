"""Driver of LangMem's memory tools over LangGraph's SqliteStore: offline, no model.

LangMem (``langmem``) gives an agent two tools over a LangGraph ``BaseStore``:
``create_manage_memory_tool`` (create, update, delete a memory) and ``create_search_memory_tool``
(list or search the memories of a namespace). An agent's model decides when to call them; here the
driver calls them itself, with explicit arguments, through the tools' own ``invoke`` (LangChain's
``StructuredTool``: the arguments validated by the tool's schema, the namespace filled from the
call's ``config``), so every write, read and erase goes through LangMem's code and nothing else.
No model, no embedding: the store has no index, so a search lists a namespace.

- Store: ``SqliteStore`` on ``store.db`` in volume ``store`` (``from_conn_string``, ``setup()``),
  handed to both tools (their ``store=`` argument).
- Namespace: LangMem's runtime template ``("{langgraph_user_id}",)``, the lab's context as
  ``configurable.langgraph_user_id``; with a lifecycle ``scope`` (capability ``tenants``)
  ``("{org_id}", "{langgraph_user_id}")``, the tenant and the user. The labels are passed as they
  are: BaseStore itself refuses a ``.`` in a label.
- Write: ``manage_memory(content=text, action="create")``: LangMem makes the key, a fresh
  ``uuid4``, and stores ``{"content": text}``; its answer ``"created memory <id>"`` names it.
- Read: ``search_memory(query="", limit, offset)`` page after page until a short page; the tool
  answers a JSON list of items (namespace, key, value, created_at, updated_at, score), served in
  that order (SqliteStore: ``updated_at`` newest first). Served meta: the key, created_at, updated_at.
- Update (lifecycle): ``manage_memory(content=text, action="update", id=<id>)``.
- Erase: ``manage_memory(action="delete", id=<id>)``, one memory at a time.
"""

import json
import platform
import sqlite3
import uuid
from contextlib import ExitStack

import memlab_driver as kit  # first: guards stdout, captures import-time signals

PAGE = 500
LIBRARIES = ("langmem", "langgraph", "langgraph-checkpoint", "langgraph-checkpoint-sqlite", "langchain-core")
AT_REST = ("{langgraph_user_id}",)
SCOPED = ("{org_id}", "{langgraph_user_id}")


class LangMemDriver(kit.Driver):
    """Maps the protocol onto LangMem's manage and search memory tools (see the module docstring)."""

    def open(self, volumes, config):
        """SqliteStore on store.db, and LangMem's two tools over it for each namespace template."""
        from langgraph.store.sqlite import SqliteStore
        from langmem import create_manage_memory_tool, create_search_memory_tool

        self.choice("store", ("sqlite",), default="sqlite")
        [folder] = self.need_volumes("store", why="SqliteStore keeps store.db there")
        self.exits = ExitStack()
        self.store = self.exits.enter_context(SqliteStore.from_conn_string(str(folder / "store.db")))
        self.store.setup()
        self.tools = {ns: (create_manage_memory_tool(namespace=ns, store=self.store),
                           create_search_memory_tool(namespace=ns, store=self.store)) for ns in (AT_REST, SCOPED)}

    def describe(self):
        """LangMem's version, what it runs under, and the capabilities."""
        libs = {name: kit.dist_version(name) for name in LIBRARIES}
        return {"sut": "langmem", "version": kit.dist_version("langmem"),
                "libraries": {"python": platform.python_version(), **libs, "sqlite": sqlite3.sqlite_version},
                "capabilities": {"erasure": "record", "order": False, "metadata": True, "snapshot": True,
                                 "lifecycle": ["update", "tenants", "erase"]},
                "configuration": {"store": "sqlite", "store_class": type(self.store).__name__, "index": None,
                                  "tools": ["manage_memory", "search_memory"]}}

    def write(self, context, text, meta):
        """manage_memory create: LangMem picks the key."""
        answer = self._manage(context, {"content": text, "action": "create"})
        return self._get(context, self._key(answer, "created memory "))

    def read(self, context):
        """Every memory of the namespace, as search_memory serves them."""
        _, search = self.tools[self._template()]
        out, offset = [], 0
        while True:
            page = json.loads(search.invoke({"query": "", "limit": PAGE, "offset": offset}, config=self._config(context)))
            out += [self._record(item) for item in page]
            if len(page) < PAGE:
                return out
            offset += PAGE

    def update(self, context, record_id, text, meta):
        """manage_memory update of the memory's id."""
        answer = self._manage(context, {"content": text, "action": "update", "id": record_id})
        return self._get(context, self._key(answer, "updated memory "))

    def erase_record(self, context, record_id):
        """manage_memory delete of one memory."""
        self._manage(context, {"action": "delete", "id": record_id})

    def erase_context(self, context):
        """manage_memory delete of every memory the namespace serves."""
        ids = [r["id"] for r in self.read(context)]
        for key in ids:
            self.erase_record(context, key)
        return ids

    def close(self):
        """Close SqliteStore's connection."""
        if hasattr(self, "exits"):
            self.exits.close()

    # ---- helpers -----------------------------------------------------------------
    def _template(self):
        return SCOPED if self.scope is not None else AT_REST

    def _config(self, context):
        if self.scope is not None:
            return {"configurable": {"org_id": self.scope["tenant_id"], "langgraph_user_id": self.scope["user_id"]}}
        return {"configurable": {"langgraph_user_id": context}}

    def _manage(self, context, args):
        if "id" in args:
            try:
                uuid.UUID(str(args["id"]))
            except ValueError as exc:
                raise kit.BadRequest(f"LangMem's memory ids are UUIDs, not {args['id']!r}") from exc
        manage, _ = self.tools[self._template()]
        return manage.invoke(args, config=self._config(context))

    @staticmethod
    def _key(answer, prefix):
        if not isinstance(answer, str) or not answer.startswith(prefix):
            raise RuntimeError(f"manage_memory answered {answer!r}, not {prefix!r}<id>")
        return answer[len(prefix):].strip()

    def _get(self, context, key):
        """The memory just written, as the search tool serves it."""
        found = [r for r in self.read(context) if r["id"] == key]
        if len(found) != 1:
            raise RuntimeError(f"memory {key} written but served {len(found)} time(s)")
        return found[0]

    @staticmethod
    def _record(item):
        value = item.get("value") if isinstance(item.get("value"), dict) else {}
        content = value.get("content", "")
        return {"id": item["key"], "text": content if isinstance(content, str) else json.dumps(content),
                "meta": {"key": item["key"], "created_at": item.get("created_at"), "updated_at": item.get("updated_at")}}


if __name__ == "__main__":
    kit.serve(LangMemDriver)
