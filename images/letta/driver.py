"""Driver of Letta 0.16.8's memory blocks and their checkpoint history (``BlockManager``), on PostgreSQL
with pgvector. Offline: no key, no model, no network but the lab's PostgreSQL on loopback.

Letta 0.16.8 is the last Python server on PyPI; its wheel ships no migrations, so the driver creates the
schema the way Letta's own tests do, ``letta.orm.Base.metadata.create_all`` (48 tables; two
``VECTOR(4096)`` columns, ``archival_passages.embedding`` and ``source_passages.embedding``, need the
pgvector extension, which the lab's service creates). Letta reads ``LETTA_PG_URI`` when
``letta.settings`` is imported and builds its engine when ``letta.server.db`` is, so the driver sets
``LETTA_PG_URI`` (``?sslmode=disable``) and ``LETTA_DISABLE_SQLALCHEMY_POOLING=true`` first and imports
Letta in ``open``.

A record is a memory block (table ``block``): its ``value`` the record's text, its ``label`` the
context, its ``metadata`` the record's role and source. Letta's own default organization and user are
the actor. Every write and update is followed by ``checkpoint_block_async``, so ``block_history`` holds
each block's states (``sequence_number`` 1, 2, ...), as Letta's undo/redo walk them.

- Write: ``create_or_update_block_async(Block(label=context, value=text, metadata=meta))`` then
  ``checkpoint_block_async``.
- Read: ``get_blocks_async(actor, label=context, limit=None)``: Letta's list, oldest first
  (``created_at``, then ``id``); its values, ids and metadata are the served records.
- Erase: ``delete_block_async`` (the block's history rows go with it: ``ON DELETE CASCADE``); a whole
  context is each of its blocks.
- Update (lifecycle): ``update_block_async(BlockUpdate(value=text))`` then ``checkpoint_block_async``.
- Audit: none (Letta has no integrity check); ``history`` is not a protocol op, so undo/redo are not
  driven by the lab (the row's test walks them over a measured store).

Front door (``frontdoor_*``, row letta-archival): Letta's archival memory, the passages an agent saves
with its ``archival_memory_insert`` tool and searches with ``archival_memory_search``
(``services/tool_executor/core_tool_executor.py``), in table ``archival_passages``.

- Scope: the tenant is a Letta organization (passages and agents are the organization's; every query
  keeps ``organization_id == actor.organization_id``), its id derived from the case and the tenant id
  as sent (JSON, so ``7`` and ``"7"`` are two), with a Letta user of its own as the actor: Letta has
  no lookup of an organization by an application's key, so that directory is the application's. A
  scope with no tenant is the case's own stand-in for Letta's default organization. The user is a
  Letta identity (``identifier_key`` = the user id exactly as sent, ``identity_type`` user) and its
  agent, found through Letta's own ``list_agents_async(identifier_keys=[user])`` and made on first use
  (``create_identity_async``, then ``create_agent_async(identity_ids=[...])``): one agent per user, as
  Letta's identities are meant. The session is not given: archival memory is the agent's, across all
  of its conversations.
- Write: ``PassageManager.insert_passage(agent_state, text, actor, tags=["source:<label>", *tags])``,
  what the tool calls; the label is a passage tag (Letta's only per-passage field on that path), the
  signature is dropped (Letta has none).
- Read: ``AgentManager.search_agent_archival_memory_async(agent_id, actor, query, tags=[tag] or None,
  top_k=k)``, its ``content`` served in its order, no marker.
- Store: each case's Letta tables in a PostgreSQL schema of its own, as core memory's below: the lab reads
  each case's ``archival_passages`` back there (the label among a passage's ``tags``).
- Embeddings: Letta embeds only through a provider over HTTP, so the driver serves an OpenAI-compatible
  ``/v1/embeddings`` on 127.0.0.1 (a deterministic lexical stand-in: signed feature hashing of the words
  but stop words, 256 dimensions, which Letta pads to 4096) at a port derived from the volumes' paths, the
  same after a restart, since each agent keeps the endpoint in its embedding config.

Front door, core memory (row letta-block-history, ``configuration.frontdoor_memory: core``): the blocks an
agent's core-memory tools edit and the agent is always served, compiled into its system prompt.

- Store: each case's Letta tables in a PostgreSQL schema of its own, ``frontdoor_<case>`` (the connection's
  ``search_path``, set on every new connection of Letta's engine, which pools none), made on a fresh open
  with ``create_all`` and found again after a restart: the lab reads each case's ``block_history`` back there.
- Scope: as the archival part (an organization per tenant, an identity and its one agent per user); each
  agent is made with one core-memory block, ``human`` (empty), as Letta's agents are.
- Write: ``LettaCoreToolExecutor.core_memory_append(agent_state, actor, label="human", content=text)``, the
  agent's own tool (it appends a line and saves the block through ``update_memory_if_changed_async``), then
  ``BlockManager.checkpoint_block_async``, as every write of the row: the history state's editor
  (``actor_type``/``actor_id``) is the label, ``letta_agent`` (the agent's id given) for ``external``,
  ``letta_user`` (the actor) for ``user``. Letta keeps no signature (dropped).
- Read: ``AgentManager.rebuild_system_prompt_async(agent_id, actor)``, what the agent loop calls before a step:
  the agent's system message with its blocks compiled in, served as one record, whatever the query, k or tag.
"""

import asyncio
import hashlib
import json
import os
import platform
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace

import memlab_driver as kit  # first: guards stdout, captures import-time signals

META_KEYS = ("role", "source")

#: The front door's namespace for the ids the driver derives (organizations and their actors per case and tenant).
FRONTDOOR_NS = uuid.UUID("5d7c1f0e-3a51-4c8e-9a0b-6f1e2d3c4b5a")
EMBED_DIMS = 256
EMBED_MODEL = "memlab-lexical-256"
#: Core memory (row letta-block-history): the one block each agent is made with, which every write appends to.
CORE_BLOCK = "human"
#: Where the label goes on core memory: the checkpoint's editor, the agent (letta_agent) or the actor (letta_user).
CHECKPOINT_BY_AGENT = {"external": True, "user": False}


def lexical_embed(text):
    """The kit's deterministic, offline lexical stand-in for an embedding model, EMBED_DIMS wide."""
    return kit.lexical_embedding(text, EMBED_DIMS)


class _EmbeddingsHandler(BaseHTTPRequestHandler):
    """OpenAI's POST /v1/embeddings, answered with :func:`lexical_embed` of each input."""

    def do_POST(self):  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        inputs = body.get("input")
        inputs = [inputs] if isinstance(inputs, str) else list(inputs or [])
        data = [{"object": "embedding", "index": i, "embedding": lexical_embed(str(t))} for i, t in enumerate(inputs)]
        out = json.dumps({"object": "list", "data": data, "model": body.get("model", EMBED_MODEL),
                          "usage": {"prompt_tokens": 0, "total_tokens": 0}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args):  # the SUT's log is stderr: keep it to Letta's own lines
        pass


def start_embeddings(seed):
    """The stand-in endpoint on 127.0.0.1, at the first free port of a sequence derived from ``seed`` (the
    volumes' paths, which a restart keeps; the database's port it does not): the same port after a restart,
    as each agent keeps the endpoint's URL in its embedding config."""
    digest = hashlib.sha256(seed.encode()).digest()
    for n in range(64):
        port = 20000 + (int.from_bytes(digest[:4], "big") + 7919 * n) % 40000
        try:
            server = ThreadingHTTPServer(("127.0.0.1", port), _EmbeddingsHandler)
        except OSError:
            continue
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return server
    raise OSError("no free loopback port for the embedding stand-in")


def derived_id(prefix, *parts):
    """A Letta id (``<prefix>-<uuid>``) derived from the parts as JSON, so an integer and its string differ."""
    return f"{prefix}-{uuid.uuid5(FRONTDOOR_NS, json.dumps(parts))}"


def import_letta(pg_url: str) -> SimpleNamespace:
    """Letta, imported with its database settings in the environment (read at import)."""
    os.environ["LETTA_PG_URI"] = pg_url + ("&" if "?" in pg_url else "?") + "sslmode=disable"
    os.environ["LETTA_DISABLE_SQLALCHEMY_POOLING"] = "true"
    from letta.orm import Base
    from letta.schemas.block import Block, BlockUpdate
    from letta.server.db import engine
    from letta.services.block_manager import BlockManager
    from letta.services.organization_manager import OrganizationManager
    from letta.services.user_manager import UserManager
    return SimpleNamespace(Base=Base, Block=Block, BlockUpdate=BlockUpdate, engine=engine, blocks=BlockManager(),
                           orgs=OrganizationManager(), users=UserManager())


def import_archival(letta: SimpleNamespace) -> SimpleNamespace:
    """What the front door adds: Letta's archival memory, agents, identities, organizations and users."""
    from letta.orm.errors import NoResultFound
    from letta.schemas.agent import CreateAgent
    from letta.schemas.embedding_config import EmbeddingConfig
    from letta.schemas.identity import IdentityCreate
    from letta.schemas.llm_config import LLMConfig
    from letta.schemas.organization import Organization
    from letta.schemas.user import User
    from letta.services.agent_manager import AgentManager
    from letta.services.identity_manager import IdentityManager
    from letta.services.passage_manager import PassageManager
    from letta.schemas.block import CreateBlock
    from letta.services.message_manager import MessageManager
    from letta.services.run_manager import RunManager
    from letta.services.tool_executor.core_tool_executor import LettaCoreToolExecutor
    return SimpleNamespace(NoResultFound=NoResultFound, CreateAgent=CreateAgent, EmbeddingConfig=EmbeddingConfig,
                           IdentityCreate=IdentityCreate, LLMConfig=LLMConfig, Organization=Organization, User=User,
                           CreateBlock=CreateBlock, CoreTools=LettaCoreToolExecutor, messages=MessageManager(),
                           runs=RunManager(), agents=AgentManager(), identities=IdentityManager(),
                           passages=PassageManager())


class LettaBlockDriver(kit.Driver):
    """Letta's BlockManager on the profile's PostgreSQL service ``db``."""

    def open(self, volumes, config):
        """Import Letta on the service, create its schema (no-op where it exists), take its default actor."""
        if "db" not in self.services:
            raise kit.BadRequest("letta needs a service named db (services: {db: {kind: postgres, extensions: [vector]}})")
        self.loop = asyncio.new_event_loop()
        self.letta = import_letta(self.services["db"])
        self.actor = self._run(self._actor())

    async def _actor(self):
        async with self.letta.engine.begin() as conn:
            await conn.run_sync(self.letta.Base.metadata.create_all)
        org = await self.letta.orgs.create_default_organization_async()
        return await self.letta.users.create_default_actor_async(org_id=org.id)

    def _run(self, coro):
        return self.loop.run_until_complete(coro)

    def describe(self):
        """Letta's version, the libraries it talks to PostgreSQL with, and the read path."""
        return {"sut": "letta", "version": kit.dist_version("letta"),
                "libraries": {"python": platform.python_version(), "sqlalchemy": kit.dist_version("sqlalchemy"),
                              "asyncpg": kit.dist_version("asyncpg"), "pgvector": kit.dist_version("pgvector")},
                "capabilities": {"erasure": "record", "order": True, "metadata": True, "snapshot": True,
                                 "lifecycle": ["update", "erase"]},
                "configuration": {"record": "a memory block (label = context)", "manager": "BlockManager",
                                  "history": "checkpoint_block_async after every write and update",
                                  "read": "get_blocks_async(actor, label=context), oldest first"}}

    @staticmethod
    def _served(block):
        meta = block.metadata or {}
        return {"id": block.id, "text": block.value, "meta": {k: meta[k] for k in META_KEYS if k in meta}}

    def write(self, context, text, meta):
        """A new block labelled with the context, then its first checkpoint."""
        kept = {k: str(meta[k]) for k in META_KEYS if k in meta}
        block = self._run(self.letta.blocks.create_or_update_block_async(
            self.letta.Block(label=context, value=text, metadata=kept), self.actor))
        return self._served(self._run(self.letta.blocks.checkpoint_block_async(block.id, self.actor)))

    def read(self, context):
        """Letta's block list for the label, oldest first."""
        blocks = self._run(self.letta.blocks.get_blocks_async(self.actor, label=context, limit=None))
        return [self._served(b) for b in blocks]

    def _block(self, context, record_id):
        found = [r for r in self.read(context) if r["id"] == record_id]
        if not found:
            raise KeyError(f"no block {record_id} labelled {context!r}")
        return found[0]

    def update(self, context, record_id, text, meta):
        """update_block_async with the new value, then a checkpoint (a new history state)."""
        self._block(context, record_id)
        self._run(self.letta.blocks.update_block_async(record_id, self.letta.BlockUpdate(value=text), self.actor))
        return self._served(self._run(self.letta.blocks.checkpoint_block_async(record_id, self.actor)))

    def erase_record(self, context, record_id):
        """delete_block_async (its history rows cascade)."""
        self._block(context, record_id)
        self._run(self.letta.blocks.delete_block_async(record_id, self.actor))

    def erase_context(self, context):
        """delete_block_async for every block of the context."""
        ids = [r["id"] for r in self.read(context)]
        for block_id in ids:
            self._run(self.letta.blocks.delete_block_async(block_id, self.actor))
        return ids

    # ---- the front door: archival memory (row letta-archival), core memory (row letta-block-history) -----
    def frontdoor_open(self, case, trust_root, fresh):
        """The case's own organizations, identities, agents and archives or blocks, made on first use in the
        case's own schema and kept in PostgreSQL (found again after a restart: their ids derive from the
        case). Letta takes no trust root."""
        if not hasattr(self, "archival"):
            self.memory = self.choice("frontdoor_memory", ("archival", "core"), "archival")
            self.archival = import_archival(self.letta)
            self.schema = None
            self._case_search_path()
            self.embeddings = start_embeddings(json.dumps({k: str(v) for k, v in sorted(self.volumes.items())}))
        self.case = case
        self._run(self._case_schema(case, fresh))

    def _case_search_path(self):
        """Every new connection of Letta's engine (NullPool: one per session) opens in the current case's
        schema, then public (where pgvector's type lives)."""
        from sqlalchemy import event

        def search_path(dbapi_connection, _record):
            if self.schema:
                cursor = dbapi_connection.cursor()
                cursor.execute(f'SET search_path TO "{self.schema}", public')
                cursor.close()
        event.listen(self.letta.engine.sync_engine, "connect", search_path)

    async def _case_schema(self, case, fresh):
        """The case's schema ``frontdoor_<case>``: made with Letta's tables on a fresh open (refused if it
        exists), the kept one after a restart (refused if it is gone)."""
        from sqlalchemy import text
        schema = kit.case_schema_name(case)
        self.schema = None
        async with self.letta.engine.begin() as conn:
            there = (await conn.execute(text("SELECT 1 FROM pg_namespace WHERE nspname = :s"), {"s": schema})).first()
            kit.check_case_schema(case, schema, fresh, bool(there))
            if fresh:
                await conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        self.schema = schema
        if fresh:
            async with self.letta.engine.begin() as conn:
                await conn.run_sync(lambda sync: self.letta.Base.metadata.create_all(sync, checkfirst=False))
            await self._message_sequence()

    async def _message_sequence(self):
        """The database side of ``messages.sequence_id`` (``server_default=FetchedValue()`` in letta/orm/message.py):
        Letta's migrations give it a sequence, create_all does not, and creating an agent writes its system message."""
        from sqlalchemy import text
        async with self.letta.engine.begin() as conn:
            await conn.execute(text("CREATE SEQUENCE IF NOT EXISTS messages_sequence_id_seq"))
            await conn.execute(text("ALTER TABLE messages ALTER COLUMN sequence_id "
                                    "SET DEFAULT nextval('messages_sequence_id_seq')"))

    def _embedding_config(self):
        host, port = self.embeddings.server_address[:2]
        return self.archival.EmbeddingConfig(
            embedding_endpoint_type="openai", embedding_endpoint=f"http://{host}:{port}/v1",
            embedding_model=EMBED_MODEL, embedding_dim=EMBED_DIMS, embedding_chunk_size=300)

    async def _tenant_actor(self, tenant):
        """The Letta user acting in the tenant's organization (both made on first use)."""
        org_id, user_id = derived_id("org", self.case, tenant), derived_id("user", self.case, tenant)
        try:
            return await self.letta.users.get_actor_by_id_async(user_id)
        except self.archival.NoResultFound:
            pass
        org = await self.letta.orgs.create_organization_async(
            self.archival.Organization(id=org_id, name=f"memlab front door {self.case}"))
        return await self.letta.users.create_actor_async(
            self.archival.User(id=user_id, organization_id=org.id, name="memlab front door"))

    async def _user_agent(self, scope):
        """The actor, and the agent of the scope's user: Letta's list_agents_async(identifier_keys=[user]),
        else a new identity with that key and an agent of its own (Letta checks the key); for core memory,
        the agent is made with one block, ``human``."""
        a = self.archival
        actor = await self._tenant_actor(scope["tenant"])
        found = await a.agents.list_agents_async(actor=actor, identifier_keys=[scope["user"]])
        if found:
            return actor, found[0]
        identity = await a.identities.create_identity_async(
            a.IdentityCreate(identifier_key=scope["user"], name="memlab front-door user", identity_type="user"), actor)
        core = self.memory == "core"
        agent = await a.agents.create_agent_async(
            a.CreateAgent(name="memlab-core" if core else "memlab-archival", identity_ids=[identity.id],
                          memory_blocks=[a.CreateBlock(label=CORE_BLOCK, value="")] if core else [],
                          include_base_tools=False, llm_config=a.LLMConfig.default_config("gpt-4o-mini"),
                          embedding_config=self._embedding_config()), actor=actor)
        return actor, agent

    def frontdoor_write(self, scope, text, label, signature, tags):
        """insert_passage(agent, text, actor, tags=["source:<label>", *tags]); Letta keeps no signature.
        Core memory: core_memory_append(agent, actor, "human", text), then a checkpoint whose editor is the label."""
        if self.memory == "core":
            return self._run(self._core_append(scope, text, label))

        async def write():
            actor, agent = await self._user_agent(scope)
            return await self.archival.passages.insert_passage(
                agent_state=agent, text=text, actor=actor, tags=[f"source:{label}", *tags])
        passages = self._run(write())
        return {"accepted": bool(passages),
                "stored": [{"id": p.id, "archive_id": p.archive_id, "text": p.text, "tags": p.tags} for p in passages]}

    async def _core_append(self, scope, text, label):
        """The agent's core_memory_append tool on its ``human`` block, then checkpoint_block_async: by the agent
        (actor_type letta_agent) for the label external, by the actor (letta_user) for user."""
        a = self.archival
        actor, agent = await self._user_agent(scope)
        agent = await a.agents.get_agent_by_id_async(agent_id=agent.id, actor=actor)
        tools = a.CoreTools(message_manager=a.messages, agent_manager=a.agents, block_manager=self.letta.blocks,
                            run_manager=a.runs, passage_manager=a.passages, actor=actor)
        await tools.core_memory_append(agent, actor, label=CORE_BLOCK, content=text)
        block = agent.memory.get_block(CORE_BLOCK)
        editor = agent.id if CHECKPOINT_BY_AGENT[label] else None
        kept = await self.letta.blocks.checkpoint_block_async(block.id, actor, agent_id=editor)
        return {"accepted": True, "stored": {"block_id": kept.id, "agent_id": agent.id, "value": kept.value}}

    def frontdoor_read(self, scope, query, k, tag):
        """search_agent_archival_memory_async(agent, actor, query, tags=[tag], top_k=k), as served.
        Core memory: the system message rebuild_system_prompt_async gives, one record (no query, k or tag)."""
        if self.memory == "core":
            async def served():
                actor, agent = await self._user_agent(scope)
                _, system, _, _ = await self.archival.agents.rebuild_system_prompt_async(agent_id=agent.id, actor=actor)
                return [] if system is None else [{"text": system.content[0].text, "marker": None}]
            return self._run(served())

        async def read():
            actor, agent = await self._user_agent(scope)
            return await self.archival.agents.search_agent_archival_memory_async(
                agent_id=agent.id, actor=actor, query=query, tags=[tag] if tag else None, top_k=k)
        return [{"text": str(hit.get("content", "")), "marker": None} for hit in self._run(read()) or []]

    def close(self):
        """Dispose of Letta's engine (its connections), the event loop and the embedding stand-in."""
        if hasattr(self, "embeddings"):
            self.embeddings.shutdown()
            self.embeddings.server_close()
        if hasattr(self, "letta"):
            self._run(self.letta.engine.dispose())
        if hasattr(self, "loop"):
            self.loop.close()


if __name__ == "__main__":
    kit.serve(LettaBlockDriver)
