"""Driver of CrewAI's memory (crewai ``Memory``) on LanceDB: offline, no LLM, no key, no network.

``Memory(llm=<a stand-in that refuses every call>, embedder=<SHA-256 hash embedder>,
storage=LanceDBStorage(path=store/memory))``: the LanceDB database is the folder ``memory`` in
volume ``store`` (table ``memories``). ``CREWAI_TRACING_ENABLED=false`` (else every write waits
on the tracing client), ``CREWAI_DISABLE_TELEMETRY=true`` and ``OTEL_SDK_DISABLED=true`` (else the
anonymous telemetry tries an OTLP export at exit, and every stop waits about 10 s on it),
a dummy ``OPENAI_API_KEY``: set at the top level (the same for every start, so a fork server's
preload sees them too). ``CREWAI_STORAGE_DIR`` inside the volume, set in ``open``; CrewAI is
imported there, after it: CrewAI resolves its storage paths and ``~`` at import
(``crewai.rag.*.constants``, ``crewai_core.settings``), so the profile names crewai and
crewai-core in ``fork_server.per_start``. Every ``remember`` gives scope,
categories and importance, so CrewAI's encoding flow needs no LLM analysis (and the hash
embedder keeps distinct texts far below the consolidation threshold): the stand-in LLM raises
if it is ever called, so a call would show up as a refused write, never as a network call.

- Write: ``remember(text, scope="/" + context, categories=["memlab"], importance=0.5,
  source=meta["source"], metadata={"role": meta["role"]})`` -- one record per call.
- Read: ``list_records(scope="/" + context)``. CrewAI serves the records newest first (sorted by
  ``created_at`` descending); the driver hands them to the lab oldest first (the list reversed),
  so the lab's order is the store's order key ascending. Served meta: ``role`` (from the
  record's metadata), ``source``, ``created_at``, ``scope``, ``importance``, ``categories``.
- Erase: ``forget(record_ids=[id])`` -- one record (the whole scope when no id is given).
- Update (lifecycle): ``Memory.update(record_id, content=text)`` -- CrewAI's own in-place update (same
  id, the content re-embedded).
"""

import os
import platform
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "driverkit"))

import memlab_driver as kit  # noqa: E402  (first: guards stdout, captures import-time signals)

os.environ["CREWAI_TRACING_ENABLED"] = "false"
os.environ["CREWAI_DISABLE_TELEMETRY"] = "true"  # else every exit waits ~10 s on an OTLP export
os.environ["OTEL_SDK_DISABLED"] = "true"
os.environ["OPENAI_API_KEY"] = "sk-memlab-dummy-never-used"

DIMS = 64


def embed(texts):
    """CrewAI's embedder callable: a list of texts to a list of hash vectors."""
    return [kit.hash_embedding(t, DIMS) for t in texts]


class NoLLM:
    """Stands in for the analysis LLM: the driver gives every field, so CrewAI must never call it."""

    def __getattr__(self, name):
        raise RuntimeError(f"CrewAI asked the analysis LLM for {name!r}; the offline driver has none")


class CrewAIDriver(kit.Driver):
    """Maps the protocol onto one CrewAI Memory over volume ``store``."""

    def open(self, volumes, config):
        """Build Memory on LanceDBStorage in the volume."""
        root = volumes["store"]
        os.environ["CREWAI_STORAGE_DIR"] = str(root / "crewai")
        from crewai.memory.storage.lancedb_storage import LanceDBStorage
        from crewai.memory.unified_memory import Memory

        self.memory = Memory(llm=NoLLM(), embedder=embed, storage=LanceDBStorage(path=str(root / "memory")))

    def describe(self):
        """Versions of CrewAI and its store."""
        libs = {name: kit.dist_version(name) for name in ("crewai-core", "lancedb", "pylance", "pyarrow", "pydantic")}
        return {"sut": "crewai", "version": kit.dist_version("crewai"),
                "libraries": {"python": platform.python_version(), **libs},
                "capabilities": {"erasure": "record", "order": True, "metadata": True, "snapshot": True,
                                 "lifecycle": ["update", "erase"]},
                "configuration": {"storage": "LanceDBStorage(path=store/memory), table memories",
                                  "embedder": "a 64-dim SHA-256 hash embedder (callable)",
                                  "llm": "none: every remember() gives scope, categories and importance"}}

    def write(self, context, text, meta):
        """One record through remember(), every field given (no LLM analysis)."""
        rec = self.memory.remember(text, scope=f"/{context}", categories=["memlab"], importance=0.5,
                                   source=meta.get("source"), metadata={"role": meta.get("role", "user")})
        if rec is None:
            raise RuntimeError("remember() stored nothing")
        return {"id": rec.id, "text": rec.content, "meta": {"role": rec.metadata.get("role")}}

    def read(self, context):
        """list_records for the scope, reversed to oldest first."""
        out = []
        for r in reversed(self.memory.list_records(scope=f"/{context}")):
            meta = {"role": r.metadata.get("role"), "source": r.source, "created_at": r.created_at.isoformat(),
                    "scope": r.scope, "importance": r.importance, "categories": list(r.categories)}
            out.append({"id": r.id, "text": r.content, "meta": {k: v for k, v in meta.items() if v is not None}})
        return out

    def update(self, context, record_id, text, meta):
        """Memory.update(record_id, content=text): CrewAI's own update of one record, in place."""
        rec = self.memory.update(record_id, content=text)
        return {"id": rec.id, "text": rec.content, "meta": {"role": rec.metadata.get("role")}}

    def erase(self, context, record_id):
        """forget(record_ids=[id]): one record (the whole scope when no id is given)."""
        if record_id is None:
            ids = [r["id"] for r in self.read(context)]
            self.memory.forget(scope=f"/{context}")
            return ids
        if self.memory.forget(record_ids=[record_id]) != 1:
            raise RuntimeError(f"forget(record_ids=[{record_id!r}]) deleted no record")
        return [record_id]

    def close(self):
        """Let CrewAI's background compaction finish, drain pending saves, close the storage.

        LanceDBStorage starts ``table.optimize()`` in a daemon thread whenever it opens an existing
        table; a process that exits under it makes LanceDB's runtime panic (an application that
        exits cleanly waits for it, as here)."""
        for thread in threading.enumerate():
            if thread.name == "lancedb-compact":
                thread.join(timeout=120)
        memory = getattr(self, "memory", None)
        if memory is not None:
            memory.close()


if __name__ == "__main__":
    kit.serve(CrewAIDriver)
