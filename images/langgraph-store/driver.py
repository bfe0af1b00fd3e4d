"""Driver of LangGraph's long-term store (``langgraph.store.base.BaseStore``): offline, no LLM.

``open.config.store`` picks the store: ``memory`` (``InMemoryStore``, held in the driver
process: nothing outlives it), ``sqlite`` (``SqliteStore`` on ``store.db`` in volume
``store``, opened with ``SqliteStore.from_conn_string`` and ``setup()``) or ``postgres``
(``PostgresStore``, langgraph-checkpoint-postgres, on the lab's PostgreSQL service ``db``, opened
with ``PostgresStore.from_conn_string`` and ``setup()``). No index is configured (no embedding
model offline), so no store ranks: a search lists a namespace.

- Namespace: ``(tenant, user)`` when the request carries a lifecycle ``scope`` (capability
  ``tenants``: the two stay apart), else ``(context,)``. Each label is percent-escaped for ``%``,
  ``.`` and NUL, which BaseStore forbids in a label (SqliteStore joins labels with ``.``).
- Write: ``put(namespace, key, {"key": key, "value": text})``. The key is the fact's key
  (``meta.key``): a second write of it replaces the item, as a keyed store does; without one (at
  rest) a fresh ``uuid4().hex``. The record id is the store key.
- Read: ``search(namespace, limit, offset)`` page after page until a short page (its default
  limit, 10, would cut a namespace short), in the order served (SqliteStore: ``updated_at``
  newest first, PostgresStore likewise; InMemoryStore: insertion order). Served meta: the item's ``key``, ``created_at``,
  ``updated_at``.
- Update (lifecycle): ``put`` on the record's key with the new value -- BaseStore's own "store or
  update" (it has no other update).
- Erase: ``delete(namespace, key)`` of one item, or of every item of the namespace.

Front door (``frontdoor_*``): each case opens its own store (``store/frontdoor/<case>/store.db``, a
PostgresStore whose tables sit in the case's own schema ``frontdoor_<case>``, or a new ``InMemoryStore``). A scope is the namespace of its
given parts in order (tenant, user, session; a part not given is left out), each label exactly as sent:
BaseStore refuses an integer, an empty namespace or a ``.`` in a label, and ``search`` takes a namespace
*prefix*. BaseStore keeps no label and no signature, so both are dropped (the channels are one write);
a tag is a value field ``tag_<name>: true`` and a read on a tag is ``search(..., filter={tag_<name>:
true})``, the store's own filter. ``search(namespace, query=..., filter=..., limit=k)`` is served as
the store returns it (no index: newest first), with no marker.

Neither ``put`` nor ``delete`` says whether the key held an item before: an update or erase of a
key the store no longer holds (InMemoryStore after a restart) is done as the store does it, and
answered with the key, as an application calling the store would see it.
"""

import platform
import sqlite3
import uuid
from contextlib import ExitStack

import memlab_driver as kit  # first: guards stdout, captures import-time signals

#: config.store -> the distribution that ships the store class (what describe names as the SUT).
STORES = {"memory": "langgraph-checkpoint", "sqlite": "langgraph-checkpoint-sqlite",
          "postgres": "langgraph-checkpoint-postgres"}
PAGE = 500
LIBRARIES = ("langgraph", "langgraph-checkpoint", "langgraph-checkpoint-sqlite", "orjson")
#: What describe adds for the PostgreSQL store (only there, so the other rows' libraries stay as published).
POSTGRES_LIBRARIES = ("langgraph-checkpoint-postgres", "psycopg", "psycopg-binary")


def label(text):
    """One namespace label: ``%``, ``.`` and NUL escaped (BaseStore refuses the last two in a label)."""
    if not text:
        raise kit.BadRequest("an empty context, tenant or user id cannot name a namespace label")
    return text.replace("%", "%25").replace(".", "%2E").replace("\x00", "%00")


def _namespace(scope):
    """The scope's given parts, in order, exactly as sent (the store checks them)."""
    return tuple(scope[part] for part in ("tenant", "user", "session") if scope[part] is not None)


class LangGraphStoreDriver(kit.Driver):
    """Maps the protocol onto one BaseStore (see the module docstring)."""

    def open(self, volumes, config):
        """Build the store config.store names; SqliteStore creates or migrates its tables."""
        self.kind = self.choice("store", tuple(STORES))
        self.exits = ExitStack()
        if self.kind == "memory":
            from langgraph.store.memory import InMemoryStore

            self.store = InMemoryStore()
            return
        if self.kind == "postgres":
            from langgraph.store.postgres import PostgresStore

            if "db" not in self.services:
                raise kit.BadRequest("store: postgres needs a service named db (services: {db: {kind: postgres}})")
            self.store = self.exits.enter_context(PostgresStore.from_conn_string(self.services["db"]))
            self.store.setup()
            return
        from langgraph.store.sqlite import SqliteStore

        [folder] = self.need_volumes("store", why="SqliteStore keeps store.db there")
        self.store = self.exits.enter_context(SqliteStore.from_conn_string(str(folder / "store.db")))
        self.store.setup()

    def describe(self):
        """The store's distribution and version, what it runs under, and the capabilities."""
        libs = {name: kit.dist_version(name) for name in LIBRARIES}
        if self.kind == "sqlite":
            libs["sqlite"] = sqlite3.sqlite_version
        if self.kind == "postgres":
            libs.update({name: kit.dist_version(name) for name in POSTGRES_LIBRARIES})
            libs["postgresql"] = self.store.conn.execute("SHOW server_version").fetchone()["server_version"]
        return {"sut": STORES[self.kind], "version": kit.dist_version(STORES[self.kind]),
                "libraries": {"python": platform.python_version(), **libs},
                "capabilities": {"erasure": "record", "order": False, "metadata": True,
                                 "snapshot": self.kind != "memory", "lifecycle": ["update", "tenants", "erase"]},
                "configuration": {"store": self.kind, "store_class": type(self.store).__name__, "index": None}}

    def write(self, context, text, meta):
        """put one item: the fact's key, else a fresh one."""
        key = str(meta["key"]) if meta.get("key") is not None else uuid.uuid4().hex
        self.store.put(self._ns(context), key, {"key": key, "value": text})
        return self._record(self.store.get(self._ns(context), key))

    def read(self, context):
        """Every item of the namespace, as search serves them."""
        out, offset = [], 0
        while True:
            page = self.store.search(self._ns(context), limit=PAGE, offset=offset)
            out += [self._record(item) for item in page]
            if len(page) < PAGE:
                return out
            offset += PAGE

    def update(self, context, record_id, text, meta):
        """put on the record's key: the item's value replaced."""
        self.store.put(self._ns(context), record_id, {"key": str(meta.get("key") or record_id), "value": text})
        return self._record(self.store.get(self._ns(context), record_id))

    def erase_record(self, context, record_id):
        """delete one item."""
        self.store.delete(self._ns(context), record_id)

    def erase_context(self, context):
        """delete every item of the namespace."""
        ids = [r["id"] for r in self.read(context)]
        for key in ids:
            self.store.delete(self._ns(context), key)
        return ids

    def frontdoor_open(self, case, trust_root, fresh):
        """The case's own store: a new SQLite file, PostgreSQL schema (or InMemoryStore); the same one after
        a restart."""
        if self.kind == "postgres":
            self._frontdoor_postgres(case, fresh)
            return
        if self.kind == "memory":
            from langgraph.store.memory import InMemoryStore

            self.store = InMemoryStore()  # nothing outlives the process: a restarted case is empty
            return
        from langgraph.store.sqlite import SqliteStore

        [folder] = self.need_volumes("store", why="SqliteStore keeps each case's store.db there")
        path = kit.case_store(folder, case, fresh, "store.db")
        self.exits.close()
        self.exits = ExitStack()
        self.store = self.exits.enter_context(SqliteStore.from_conn_string(str(path)))
        self.store.setup()

    def _frontdoor_postgres(self, case, fresh):
        """PostgresStore on the service db, its tables in the case's own schema ``frontdoor_<case>`` (the
        connection's search_path): made on a fresh open, refused if it exists then or is missing after."""
        from langgraph.store.postgres import PostgresStore

        schema = kit.psycopg_case_schema(self.services["db"], case, fresh)
        self.exits.close()
        self.exits = ExitStack()
        url = kit.on_schema(self.services["db"], schema)
        self.store = self.exits.enter_context(PostgresStore.from_conn_string(url))
        self.store.setup()

    def frontdoor_write(self, scope, text, label, signature, tags):
        """put(namespace, uuid, {text, tag_<name>: true ...}); BaseStore keeps no label or signature."""
        key = uuid.uuid4().hex
        value = {"text": text, **{f"tag_{t}": True for t in tags}}
        self.store.put(_namespace(scope), key, value)
        return {"accepted": True, "stored": {"key": key, "value": value}}

    def frontdoor_read(self, scope, query, k, tag):
        """search(namespace prefix, query, filter on the tag, limit k), as served."""
        found = self.store.search(_namespace(scope), query=query, limit=k,
                                  filter={f"tag_{tag}": True} if tag else None)
        return [{"text": str((item.value or {}).get("text", "")), "marker": None} for item in found]

    def close(self):
        """Close SqliteStore's or PostgresStore's connection (from_conn_string's exit)."""
        if hasattr(self, "exits"):
            self.exits.close()

    # ---- helpers -----------------------------------------------------------------
    def _ns(self, context):
        if self.scope is not None:
            return label(self.scope["tenant_id"]), label(self.scope["user_id"])
        return (label(context),)

    @staticmethod
    def _record(item):
        value = item.value if isinstance(item.value, dict) else {}
        return {"id": item.key, "text": str(value.get("value", "")),
                "meta": {"key": item.key, "created_at": item.created_at.isoformat(),
                         "updated_at": item.updated_at.isoformat()}}


if __name__ == "__main__":
    kit.serve(LangGraphStoreDriver)
