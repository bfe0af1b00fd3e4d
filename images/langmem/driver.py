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

Front door (``frontdoor_*``): each case opens its own SqliteStore (``store/frontdoor/<case>/store.db``,
the same file again after a restart) and LangMem's two tools over it. The lab's scope goes to LangMem's
own namespace mechanism: the tools' template has a placeholder for each given part, in order
(``{org_id}`` the tenant, ``{langgraph_user_id}`` the user, ``{thread_id}`` the session; a part not
given is left out, as an application with no such id would template it), and
``NamespaceTemplate`` fills them from the call's ``configurable``, each id exactly as sent (an integer
stays one; BaseStore refuses it, an empty namespace or a ``.`` in a label, and ``search`` takes a
namespace *prefix*). A write is ``manage_memory(content=text, action="create")``: LangMem stores
``{"content": text}`` under a fresh uuid4, nothing else, so the label, signature and tags go nowhere
(the channels are one write; the search tool's ``filter`` could only match a value field, and a create
writes none but ``content``). A read is ``search_memory(query, limit=k)``: each item's ``content`` as
the tool answers it (no index: newest ``updated_at`` first, the query unused), with no marker.
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


#: The front door's scope parts and the configurable key LangMem's namespace template names each by.
FD_PLACEHOLDERS = (("tenant", "org_id"), ("user", "langgraph_user_id"), ("session", "thread_id"))


def _fd_template(scope):
    """A placeholder for each given part of the scope, in order (a part not given is left out)."""
    return tuple(f"{{{key}}}" for part, key in FD_PLACEHOLDERS if scope[part] is not None)


def _fd_config(scope):
    """The run config LangMem fills its template from: each given id exactly as sent."""
    return {"configurable": {key: scope[part] for part, key in FD_PLACEHOLDERS if scope[part] is not None}}


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

    def frontdoor_open(self, case, trust_root, fresh):
        """The case's own SqliteStore file (the same one after a restart); LangMem's tools over it."""
        from langgraph.store.sqlite import SqliteStore

        [folder] = self.need_volumes("store", why="SqliteStore keeps each case's store.db there")
        path = kit.case_store(folder, case, fresh, "store.db")
        if hasattr(self, "fd_exits"):
            self.fd_exits.close()
        self.fd_exits = ExitStack()
        self.fd_store = self.fd_exits.enter_context(SqliteStore.from_conn_string(str(path)))
        self.fd_store.setup()
        self.fd_tools = {}

    def frontdoor_write(self, scope, text, label, signature, tags):
        """manage_memory create in the scope's namespace; LangMem keeps {content} only."""
        manage, _ = self._fd_tools(scope)
        answer = manage.invoke({"content": text, "action": "create"}, config=_fd_config(scope))
        return {"accepted": True, "stored": {"answer": answer}}

    def frontdoor_read(self, scope, query, k, tag):
        """search_memory(query, limit=k) in the scope's namespace, each item's content as answered."""
        _, search = self._fd_tools(scope)
        items = json.loads(search.invoke({"query": query, "limit": k}, config=_fd_config(scope)))
        return [{"text": self._record(item)["text"], "marker": None} for item in items]

    def close(self):
        """Close SqliteStore's connection (and a front-door case's)."""
        if hasattr(self, "fd_exits"):
            self.fd_exits.close()
        if hasattr(self, "exits"):
            self.exits.close()

    # ---- helpers -----------------------------------------------------------------
    def _fd_tools(self, scope):
        """LangMem's two tools over the case's store, their namespace template of the scope's given parts."""
        template = _fd_template(scope)
        if template not in self.fd_tools:
            from langmem import create_manage_memory_tool, create_search_memory_tool

            self.fd_tools[template] = (create_manage_memory_tool(namespace=template, store=self.fd_store),
                                       create_search_memory_tool(namespace=template, store=self.fd_store))
        return self.fd_tools[template]

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
