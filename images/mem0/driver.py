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
"""

import os
import platform
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "driverkit"))

import memlab_driver as kit  # noqa: E402  (first: guards stdout, captures import-time signals)

os.environ["MEM0_TELEMETRY"] = "False"
os.environ["OPENAI_API_KEY"] = "sk-memlab-dummy-never-used"  # add() builds the LLM client even with infer off

COLLECTION = "memlab"
DIMS = 64


def hash_embed(text, memory_action=None):
    """Mem0's embed signature over the kit's deterministic SHA-256 embedding."""
    return kit.hash_embedding(text, DIMS)


class Mem0Driver(kit.Driver):
    """Maps the protocol onto one Mem0 Memory over volume ``store``."""

    def open(self, volumes, config):
        """Build Memory.from_config on the volume, then swap in the hash embedder."""
        root = volumes["store"]
        os.environ["MEM0_DIR"] = str(root / "mem0")
        from mem0 import Memory

        self.memory = Memory.from_config({
            "vector_store": {"provider": "qdrant", "config": {
                "path": str(root / "qdrant"), "on_disk": True, "collection_name": COLLECTION,
                "embedding_model_dims": DIMS}},
            "embedder": {"provider": "openai", "config": {"api_key": "sk-memlab-dummy-never-used",
                                                           "embedding_dims": DIMS}},
            "history_db_path": str(root / "history.db"),
        })
        self.memory.embedding_model.embed = hash_embed

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

    def close(self):
        """Close the Qdrant client (releases the folder's lock) and the history DB."""
        memory = getattr(self, "memory", None)
        if memory is not None:
            client = getattr(memory.vector_store, "client", None)
            if client is not None:
                client.close()
            db = getattr(memory, "db", None)
            if db is not None and hasattr(db, "close"):
                db.close()


if __name__ == "__main__":
    kit.serve(Mem0Driver)
