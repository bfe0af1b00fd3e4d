"""Driver of Mem0 (mem0ai) with a local Qdrant store: offline, no LLM, no key, no network.

``Memory.from_config`` with the qdrant vector store in local mode (``{path, on_disk: true}``,
folder ``qdrant`` in volume ``store``), the ``openai`` embedder built with a dummy key whose
``embed`` is then replaced by a deterministic hash embedder (never a network call), the
SQLite history at ``store/history.db`` and ``MEM0_DIR`` at ``store/mem0``;
``MEM0_TELEMETRY=False`` and a dummy ``OPENAI_API_KEY`` (the LLM client is built, never called),
set at the top level (the same for every start, so a fork server's preload sees them too).
Mem0 is imported in ``open``, after ``MEM0_DIR`` is set: it reads it at import
(``mem0.memory.setup.mem0_dir``), so the profile names mem0ai in ``fork_server.per_start``.

- Write: ``add([{"role": role, "content": text}], user_id=context, infer=False,
  metadata={"source": ...})`` -- stored verbatim, one memory per message.
- Read: ``get_all(filters={"user_id": context}, top_k=100)["results"]``, in the order served.
  Served meta: ``role``, ``created_at``, ``updated_at``, ``hash`` and the ``metadata`` fields.
- Erase: ``delete(memory_id)`` -- one memory.
- Update (lifecycle): ``update(memory_id, text=...)`` -- Mem0's own in-place update (same id, new
  text, hash and vector; history gets an UPDATE event with the old value).

Front door (``frontdoor_*``): each case opens its own Memory (``store/frontdoor/<case>/``: its
Qdrant folder, collection ``memlab``, and its history.db; the same folder again after a restart).
A scope's parts go to Mem0's own entity ids exactly as sent, a part that is None not given: user ->
``user_id``, session -> ``run_id``, tenant -> ``agent_id`` (Mem0 has no tenant; the agent id is
its scope axis above the user). Write: ``add([{"role": "user", "content": text}], <ids>,
infer=False, metadata={"source": label, <tag>: True ...})`` -- the label is Mem0's free metadata
(it has no provenance field), the signature is dropped (Mem0 has none), a tag is a metadata key.
Read: ``search(query, filters={<ids>, <tag>: True, **configuration.search_filters}, top_k=k)``,
Mem0's own filters, served as it returns them, no marker. Mem0 itself coerces an integer id to
str, trims spaces and refuses an empty scope. Search ranks by the dense vector and gates it at
Mem0's default threshold 0.1, so the front door's Memory embeds with a lexical stand-in (signed
feature hashing of the words but stop words, 256 dims) instead of the SHA-256 one, whose
similarities are noise.
"""

import os
import platform

import memlab_driver as kit  # first: guards stdout, captures import-time signals

os.environ["MEM0_TELEMETRY"] = "False"
os.environ["OPENAI_API_KEY"] = "sk-memlab-dummy-never-used"  # add() builds the LLM client even with infer off

COLLECTION = "memlab"
DIMS = 64
FRONTDOOR_DIMS = 256  # the front door's lexical stand-in embedder (its own collection per case)


def hash_embed(text, memory_action=None):
    """Mem0's embed signature over the kit's deterministic SHA-256 embedding."""
    return kit.hash_embedding(text, DIMS)


def lexical_embed(text, memory_action=None):
    """Mem0's embed signature over the kit's lexical stand-in (shared words rank close; its stop words
    left out as Mem0's own keyword path leaves spaCy's out, so a question's topic words are not drowned)."""
    return kit.lexical_embedding(text, FRONTDOOR_DIMS)


def _ids(scope):
    """The scope's given parts as Mem0's entity ids, exactly as sent (Mem0 checks them)."""
    pairs = (("user_id", scope["user"]), ("agent_id", scope["tenant"]), ("run_id", scope["session"]))
    return {name: value for name, value in pairs if value is not None}


def _memory(memory_class, root, dims, embed):
    """Mem0's Memory.from_config on a local Qdrant folder and a history DB under ``root``, its embedder
    (built as OpenAI's, never called) swapped for ``embed`` of ``dims`` dimensions: offline."""
    memory = memory_class.from_config({
        "vector_store": {"provider": "qdrant", "config": {
            "path": str(root / "qdrant"), "on_disk": True, "collection_name": COLLECTION,
            "embedding_model_dims": dims}},
        "embedder": {"provider": "openai", "config": {"api_key": "sk-memlab-dummy-never-used",
                                                       "embedding_dims": dims}},
        "history_db_path": str(root / "history.db"),
    })
    memory.embedding_model.embed = embed
    return memory


def _close_memory(memory):
    """Close a Memory's Qdrant client (releases the folder's lock) and its history DB."""
    if memory is None:
        return
    client = getattr(memory.vector_store, "client", None)
    if client is not None:
        client.close()
    db = getattr(memory, "db", None)
    if db is not None and hasattr(db, "close"):
        db.close()


class Mem0Driver(kit.Driver):
    """Maps the protocol onto one Mem0 Memory over volume ``store``."""

    def open(self, volumes, config):
        """Build Memory.from_config on the volume, then swap in the hash embedder."""
        root = volumes["store"]
        os.environ["MEM0_DIR"] = str(root / "mem0")
        from mem0 import Memory

        self.memory = _memory(Memory, root, DIMS, hash_embed)

    def describe(self):
        """Versions of Mem0 and its store client."""
        libs = {name: kit.dist_version(name) for name in ("qdrant-client", "openai", "SQLAlchemy", "numpy", "portalocker")}
        import sqlite3

        return {"sut": "mem0ai", "version": kit.dist_version("mem0ai"),
                "libraries": {"python": platform.python_version(), "sqlite": sqlite3.sqlite_version, **libs},
                "capabilities": {"erasure": "record", "order": False, "metadata": True, "snapshot": True,
                                 "lifecycle": ["update", "erase"]},
                "configuration": {"infer": False, "vector_store": "qdrant local, on_disk",
                                  "embedder": "openai class, embed replaced by a SHA-256 hash embedder"}}

    def write(self, context, text, meta):
        """One memory, stored verbatim (infer=False)."""
        extra = {k: v for k, v in meta.items() if k != "role"}
        out = self.memory.add([{"role": meta.get("role", "user"), "content": text}], user_id=context,
                              infer=False, metadata=extra or None)
        items = out.get("results", [])
        if len(items) != 1:
            raise RuntimeError(f"add stored {len(items)} memories, expected 1: {out}")
        return {"id": items[0]["id"], "text": items[0]["memory"], "meta": {"role": items[0].get("role")}}

    def read(self, context):
        """get_all for the user, as served."""
        out = []
        for r in self.memory.get_all(filters={"user_id": context}, top_k=100)["results"]:
            meta = {k: r[k] for k in ("role", "user_id", "created_at", "updated_at", "hash") if r.get(k) is not None}
            meta.update(r.get("metadata") or {})
            out.append({"id": str(r["id"]), "text": r.get("memory", ""), "meta": meta})
        return out

    def update(self, context, record_id, text, meta):
        """Memory.update(memory_id, text=...): Mem0's own update of one memory, in place."""
        self.memory.update(record_id, text=text)
        got = self.memory.get(record_id)
        return {"id": record_id, "text": (got or {}).get("memory", text)}

    def erase(self, context, record_id):
        """delete(memory_id): one memory (the whole user through delete_all when no id is given)."""
        if record_id is None:
            ids = [r["id"] for r in self.read(context)]
            self.memory.delete_all(user_id=context)
            return ids
        self.memory.delete(record_id)
        return [record_id]

    def frontdoor_open(self, case, trust_root, fresh):
        """The case's own Memory (Qdrant folder and history.db under store/frontdoor/<case>); the
        same folder after a restart. Mem0 takes no trust root (it has no signature)."""
        from mem0 import Memory

        [folder] = self.need_volumes("store", why="each case's Qdrant folder and history.db")
        root = kit.case_store(folder, case, fresh)
        _close_memory(getattr(self, "frontdoor_memory", None))
        self.frontdoor_memory = None
        self.frontdoor_memory = _memory(Memory, root, FRONTDOOR_DIMS, lexical_embed)

    def frontdoor_write(self, scope, text, label, signature, tags):
        """add(..., infer=False, metadata={"source": label, <tag>: True}); Mem0 keeps no signature."""
        metadata = {"source": label, **{tag: True for tag in tags}}
        out = self.frontdoor_memory.add([{"role": "user", "content": text}], **_ids(scope), infer=False,
                                        metadata=metadata)
        items = out.get("results", [])
        return {"accepted": bool(items), "stored": {"results": items, "metadata": metadata}}

    def frontdoor_read(self, scope, query, k, tag):
        """search(query, filters={ids, tag, configuration.search_filters}, top_k=k), as served."""
        extra = self.config.get("search_filters") or {}
        if not isinstance(extra, dict):
            raise kit.BadRequest("configuration.search_filters must be a mapping (Mem0's filters)")
        filters = {**_ids(scope), **({tag: True} if tag else {}), **extra}
        found = self.frontdoor_memory.search(query, filters=filters, top_k=k)
        return [{"text": str(r.get("memory", "")), "marker": None} for r in found.get("results", [])]

    def close(self):
        """Close the Qdrant clients (releases the folders' locks) and the history DBs."""
        _close_memory(getattr(self, "memory", None))
        _close_memory(getattr(self, "frontdoor_memory", None))


if __name__ == "__main__":
    kit.serve(Mem0Driver)
