"""Driver of CrewAI's memory (crewai ``Memory``) on LanceDB: offline, no LLM, no key, no network.

``Memory(llm=<a stand-in that refuses every call>, embedder=<SHA-256 hash embedder>,
storage=LanceDBStorage(path=store/memory))``: the LanceDB database is the folder ``memory`` in
volume ``store`` (table ``memories``). ``CREWAI_TRACING_ENABLED=false`` (else every write waits
on the tracing client), ``CREWAI_DISABLE_TELEMETRY=true`` and ``OTEL_SDK_DISABLED=true`` (else the
anonymous telemetry tries an OTLP export at exit, and every stop waits about 10 s on it),
a dummy ``OPENAI_API_KEY``: set at the top level (the same for every start, so a fork server's
preload sees them too). ``CREWAI_STORAGE_DIR`` inside the volume, set in ``open`` before CrewAI is
imported there. CrewAI resolves its paths at import and acts on them: the storage folder
(``crewai.rag.chromadb.constants``, made), ``~/.config/crewai/settings.json`` (``crewai_core.settings``),
and its event listener's trace client reads ``~/.local/share/crewai/credentials`` (writing a fresh
``secret.key`` there), tests ``~/.config/crewai`` and reads ``.crewai_user.json`` in the storage folder
(whether to register its first-run trace handlers). A fork server therefore imports CrewAI at this
driver's top level under its sealed placeholder (``fork_placeholder``: ``HOME``, ``XDG_CONFIG_HOME``,
``TMPDIR``, ``CREWAI_STORAGE_DIR``), and ``open`` rebinds each start (:func:`rebind_crewai`). Every
``remember`` gives scope,
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

Front door (``frontdoor_*``): each case opens its own ``Memory`` on ``LanceDBStorage(path=
store/frontdoor/<case>/memory)`` (the same folder again after a restart). The scope is CrewAI's own
scope path, built by CrewAI's own views from the parts given, each exactly as sent: ``memory.scope(tenant)``
then ``.subscope(user)`` then ``.subscope(session)`` (a part that is None is left out; no part: the
``Memory`` itself, the root ``/``). CrewAI takes only strings there: an integer id raises in CrewAI
(pydantic refuses ``root_path=42``; ``subscope`` calls ``42.strip``), which the kit answers as a refusal.
A write is ``view.remember(text, scope="/", categories=tags, importance=0.5, source=..., private=...)``:
``scope="/"`` is the view's own path, ``categories`` are CrewAI's own tags (its recall filters on them),
importance is CrewAI's ``default_importance`` -- given, like scope and categories, so the encoding flow
makes no LLM analysis call. A read is ``view.recall(query, limit=k, categories=[tag] or None[, source=...])``,
CrewAI's default ``depth="deep"`` (queries under 250 characters skip the LLM analysis; the one LLM call
deep recall may make, the exploration round, is wrapped in CrewAI's own ``except Exception`` and changes
no result), served in CrewAI's order; CrewAI has no untrusted flag, so no marker. CrewAI keeps no
signature: ``trust_root`` and the signature are not used.

``configuration.private`` chooses what CrewAI's provenance field ``source`` carries:

- ``none`` (the default): ``source`` is the write's label, exactly as sent (CrewAI's own use of it:
  ``source="hitl"`` for human-feedback lessons), ``private=False``; a read gives no ``source``.
- ``every-write``: every write is ``private=True`` with ``source`` the scope's user (CrewAI's
  documented meaning: "e.g. user ID, session ID"); a read gives ``source=`` the reader's user. CrewAI's
  recall then drops each private record whose source is not the reader's. The label is not kept
  (``source`` holds the user), so the profile declares no label.

The embedder of the front-door stores is a 256-dim hashed bag of words (each lower-cased word to a
SHA-256 bucket and sign, normalised), offline: texts sharing words rank close, as with an embedding
model; the whole-text hash of the other measurements would rank recall at random.
"""

import hashlib
import math
import os
import platform
import re
import threading
from pathlib import Path

import memlab_driver as kit  # first: guards stdout, captures import-time signals
from memlab_driver import fork_placeholder

os.environ["CREWAI_TRACING_ENABLED"] = "false"
os.environ["CREWAI_DISABLE_TELEMETRY"] = "true"  # else every exit waits ~10 s on an OTLP export
os.environ["OTEL_SDK_DISABLED"] = "true"
os.environ["OPENAI_API_KEY"] = "sk-memlab-dummy-never-used"

if __name__ == "__memlab_preload__" and fork_placeholder.enter("CREWAI_STORAGE_DIR"):  # the fork server
    import crewai.memory.unified_memory  # noqa: F401  (all of CrewAI; not its LanceDB storage: lancedb starts a thread)

DIMS = 64
WORD_DIMS = 256
WORD = re.compile(r"\w+")
PRIVATE = ("none", "every-write")
SCOPE_PARTS = ("tenant", "user", "session")


def embed(texts):
    """CrewAI's embedder callable: a list of texts to a list of hash vectors."""
    return [kit.hash_embedding(t, DIMS) for t in texts]


def word_vector(text):
    """A hashed bag of words: each lower-cased word adds +-1 to one of WORD_DIMS buckets; unit length."""
    vec = [0.0] * WORD_DIMS
    for word in WORD.findall(text.lower()):
        digest = hashlib.sha256(word.encode()).digest()
        vec[int.from_bytes(digest[:4], "big") % WORD_DIMS] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vec))
    return [v / norm for v in vec] if norm else vec


def embed_words(texts):
    """The front-door stores' embedder callable (see the module docstring)."""
    return [word_vector(t) for t in texts]


def rebind_crewai():
    """In a start forked from a server that imported CrewAI under its placeholder: what the import
    computed from its environment, computed from this start's, and what it did on disk done here.

    Module globals by the kit (``crewai_core.settings.DEFAULT_CONFIG_PATH``, a path object rewritten in place,
    so ``Settings.config_path``'s default follows; ``DEFAULT_STORAGE_PATH`` of ``crewai.rag.chromadb.constants``
    and ``.config``); deeper, chromadb's ``ProductTelemetryClient.USER_ID_PATH`` and portalocker's
    ``BoundedSemaphore`` folder. Then the
    storage folder is made and the trace client built again (a new ``secret.key`` under this start's ``~``,
    its settings folder tested), as the import did. The first-run decision the import took from an empty
    storage folder holds only if this start's has no ``.crewai_user.json``: otherwise the start fails."""
    fork_placeholder.rebind()  # first: before any module copies a global of CrewAI's
    import portalocker.utils
    from chromadb.telemetry.product import ProductTelemetryClient
    from crewai.events.listeners.tracing.trace_listener import TraceCollectionListener
    from crewai_core.auth.token import AuthError, get_auth_token
    from crewai_core.paths import db_storage_path
    from crewai_core.plus_api import PlusAPI
    from crewai_core.settings import Settings

    ProductTelemetryClient.USER_ID_PATH = fork_placeholder.rebound(ProductTelemetryClient.USER_ID_PATH)
    init = portalocker.utils.BoundedSemaphore.__init__
    init.__defaults__ = tuple(fork_placeholder.rebound(v) for v in init.__defaults__)
    if fork_placeholder.under(Settings.model_fields["config_path"].default):  # the global's object, rewritten
        raise RuntimeError("Settings.config_path's default is still the fork server's placeholder")
    if (Path(db_storage_path()) / ".crewai_user.json").exists():
        raise RuntimeError("CrewAI's storage folder holds .crewai_user.json, which the fork server's import did not "
                           "see: start this row without the fork server")
    listener = TraceCollectionListener._instance
    try:
        listener.batch_manager.plus_api = PlusAPI(api_key=get_auth_token())
    except AuthError:
        listener.batch_manager.plus_api = PlusAPI()


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
        if fork_placeholder.ROOT is not None:  # CrewAI was imported by the fork server, under its placeholder
            rebind_crewai()
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

    def frontdoor_open(self, case, trust_root, fresh):
        """The case's own Memory on LanceDBStorage(store/frontdoor/<case>/memory); the same after a restart."""
        from crewai.memory.storage.lancedb_storage import LanceDBStorage
        from crewai.memory.unified_memory import Memory

        self.private = self.choice("private", PRIVATE, default="none") == "every-write"
        [root] = self.need_volumes("store", why="LanceDBStorage keeps each case's database there")
        path = kit.case_store(root, case, fresh, "memory")
        previous = getattr(self, "frontdoor", None)
        if previous is not None:
            self.frontdoor = None
            for thread in threading.enumerate():
                if thread.name == "lancedb-compact":
                    thread.join(timeout=120)
            previous.close()
        self.frontdoor = Memory(llm=NoLLM(), embedder=embed_words, storage=LanceDBStorage(path=str(path)))

    def _view(self, scope):
        """CrewAI's own scoped view of the scope's given parts, in order, each exactly as sent."""
        view = self.frontdoor
        for n, value in enumerate(scope[part] for part in SCOPE_PARTS if scope[part] is not None):
            view = view.scope(value) if n == 0 else view.subscope(value)
        return view

    def frontdoor_write(self, scope, text, label, signature, tags):
        """remember() in the scope's view, the label as source (or, private, the user as source)."""
        source = scope["user"] if self.private else label
        given = {"source": source} if source is not None else {}
        rec = self._view(scope).remember(text, scope="/", categories=list(tags), importance=0.5,
                                         private=self.private, **given)
        if rec is None:  # CrewAI's answer for a read-only memory: nothing stored
            return {"accepted": False, "stored": None}
        return {"accepted": True, "stored": {"id": rec.id, "scope": rec.scope, "source": rec.source,
                                             "private": rec.private, "categories": list(rec.categories)}}

    def frontdoor_read(self, scope, query, k, tag):
        """recall() in the scope's view (deep, CrewAI's default), limit k, the tag as CrewAI's category filter."""
        given = {"source": scope["user"]} if self.private and scope["user"] is not None else {}
        matches = self._view(scope).recall(query, limit=k, categories=[tag] if tag else None, **given)
        return [{"text": m.record.content, "marker": None} for m in matches]

    def close(self):
        """Let CrewAI's background compaction finish, drain pending saves, close the storage.

        LanceDBStorage starts ``table.optimize()`` in a daemon thread whenever it opens an existing
        table; a process that exits under it makes LanceDB's runtime panic (an application that
        exits cleanly waits for it, as here)."""
        for thread in threading.enumerate():
            if thread.name == "lancedb-compact":
                thread.join(timeout=120)
        for name in ("frontdoor", "memory"):
            memory = getattr(self, name, None)
            if memory is not None:
                memory.close()


if __name__ == "__main__":
    kit.serve(CrewAIDriver)
