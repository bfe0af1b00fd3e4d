"""Driver of Pydantic AI's Memory capability (pydantic-ai-harness): offline, no LLM, no key.

The harness's ``Memory`` capability gives an agent a notebook of Markdown files: ``MEMORY.md``, the
main notebook, is injected into the conversation as a ``<memory>`` block (user-role data) on the
first request of a run, and the model changes it with the ``write_memory`` tool (append a line, or
replace one unique passage ``old_text``; an empty ``content`` removes it). ``config.store`` picks the
backend, each in the configuration the capability's README gives:

- ``sqlite``: ``Memory(SqliteMemoryStore(database='.agent-memory.db'))``, the file in volume store
  (table ``memory_files``: one row per file, ``path`` = ``{namespace}/main/MEMORY.md``, ``content``);
- ``file``: ``Memory(FileStore('.agent-memory'))`` with ``LocalWorkspace(<store>)`` as the run's
  workspace (``.agent-memory/{namespace}/main/MEMORY.md`` in volume store).

One agent serves every context, as the README's multi-user example does: ``Memory(store,
namespace=lambda ctx: ctx.deps)`` on ``Agent(deps_type=str)``, the run's deps the namespace. The
lab's context is that namespace: as it is when it is one path segment of letters, digits and
``-``; otherwise ``_`` and its UTF-8 bytes in hex (the lifecycle gate's ``ns:tenant/ns:user``), since a
namespace allows ``[A-Za-z0-9_.-]`` segments only.

Every op is one ``Agent.run`` with the capability on it and pydantic_ai's own ``FunctionModel``
standing in for the model: it makes exactly the tool call the driver names, with explicit arguments,
so the call goes through the capability's tool, its store and its snapshot as a model's would.

- Write: the tool call ``write_memory(content='- <text>')`` (append, file ``MEMORY.md``): one bullet
  line, as the capability's guidance asks for short durable facts. A line has no id; the answer's id
  is the first 16 hex digits of SHA-256 over the line.
- Read: a run with a fresh conversation; the served records are the lines of the ``### MEMORY.md``
  section of the ``<memory>`` block the capability records with the prompt (the first model request's
  messages), in order, without the ``- `` bullet. An empty memory records no block: no records.
- Erase: the tool call ``write_memory(content='', old_text=<the line and its newline>)``, the removal
  the tool documents (when the line is not unique in the file, ``old_text`` is the whole file and
  ``content`` the file without its last copy of the line); the line is found with ``read_memory``.

No ``update``: a correction with ``old_text`` changes the line, its only identity, so an id from a
write answer (which the lifecycle gate reuses after a correction) cannot survive it.

Front door (``frontdoor_*``): each case its own store in the configured backend under
``store/frontdoor/<case>/`` (``.agent-memory.db``, or ``.agent-memory/`` in ``LocalWorkspace`` of that
folder), its own ``Memory`` and ``Agent`` configured as above; kept after the row and reopened as it is
after a restart. Write is the same tool call, ``write_memory(content='- <text>', file='MEMORY.md')``,
the text as sent (a text with a newline is one content of several lines, as the tool takes it); the
model repeats the call while the tool asks it to retry, so a refusal the capability keeps up ends in
pydantic_ai's own error (the SUT's refusal). A memory keeps no source, tag or signature: the tool takes
``content``, ``file`` and ``old_text`` only, and ``Memory(write_metadata=...)`` is the application's
per-file metadata, replaced by every later write, so the label, the signature and the tags go
nowhere. Read is the victim's question as the prompt of a fresh run, served the ``<memory>`` snapshot
the capability records with it: every line of its ``### MEMORY.md`` section, in order, without the
bullet (no query, count or filter: the snapshot is the whole notebook within ``max_lines`` and
``max_tokens``); the harness marks no memory untrusted, so the marker is None. Scope: the capability's
one context is the namespace, one path of ``[A-Za-z0-9_.-]`` segments; the driver makes it one
segment from the lab's three parts, injectively (``scope_namespace``), so the separation of tenant,
user and session is the driver's key (``isolation: driver``).
"""

import asyncio
import hashlib
import json
import platform
import re
import sqlite3

import memlab_driver as kit  # first: guards stdout, captures import-time signals

from pydantic_ai import Agent
from pydantic_ai.capabilities import LocalWorkspace
from pydantic_ai.messages import (ModelResponse, RetryPromptPart, TextContent, TextPart, ToolCallPart,
                                  ToolReturnPart, UserPromptPart)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai_harness import Memory
from pydantic_ai_harness.memory import FileStore, SqliteMemoryStore

STORES = ("sqlite", "file")
DATABASE = ".agent-memory.db"   # SqliteMemoryStore(database=...) as the README gives it
DIRECTORY = ".agent-memory"     # FileStore(...) as the README gives it
MAIN = "MEMORY.md"
BULLET = "- "
ORIGIN = "pydantic-ai-harness.memory.v1"  # the metadata origin of a snapshot's TextContent
PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,199}")
LIBRARIES = ("pydantic-ai-slim", "pydantic", "pydantic-graph")


def namespace_of(context: str) -> str:
    """The capability's namespace for a lab context (see the module docstring)."""
    return context if PLAIN.fullmatch(context) else "_" + context.encode("utf-8").hex()


def scope_namespace(scope: dict) -> str:
    """The namespace of a front-door scope: its tenant, user and session, in that order, each as it is
    when it is a plain string (letters, digits and '-', starting with a letter or digit), else '_' and
    the hex of its JSON (an integer, a null, any other string), joined by '.'. Injective: a plain part
    has no '_' or '.', an encoded one starts with '_' and has neither '.' nor a second '_'. A key over
    200 characters is refused by the capability itself (validate_store_path: a segment is 1-200)."""
    parts = []
    for name in ("tenant", "user", "session"):
        value = scope[name]
        plain = isinstance(value, str) and PLAIN.fullmatch(value) is not None
        parts.append(value if plain else "_" + json.dumps(value).encode("utf-8").hex())
    return ".".join(parts)


def line_id(line: str) -> str:
    """The id the driver gives a MEMORY.md line (the store has none): SHA-256 of the line, 16 hex digits."""
    return hashlib.sha256(line.encode("utf-8")).hexdigest()[:16]


def memory_lines(snapshot: str) -> list[str]:
    """The lines of the ``### MEMORY.md`` section of a rendered ``<memory>`` block (render_memory_prompt)."""
    body = snapshot.removeprefix("<memory>\n").removesuffix("\n</memory>")
    head = f"### {MAIN}\n\n"
    if head not in body:
        return []
    section = body.split(head, 1)[1].split("\n\n### Other memory files", 1)[0]
    return [line for line in section.split("\n") if line.strip()]


def snapshot_of(messages) -> str:
    """The ``<memory>`` block the capability recorded in a request's messages ('' if none)."""
    blocks = [c.content for m in messages for p in m.parts if isinstance(p, UserPromptPart)
              and not isinstance(p.content, str) for c in p.content
              if isinstance(c, TextContent) and (c.metadata or {}).get("origin") == ORIGIN]
    return blocks[-1] if blocks else ""


class PydanticAiMemoryDriver(kit.Driver):
    """Maps the protocol onto the Memory capability's tools and snapshot (see the module docstring)."""

    def open(self, volumes, config):
        self.store_kind = self.choice("store", STORES, default="sqlite")
        [self.folder] = self.need_volumes("store", why="the memory store (database or Markdown files) is kept there")
        store = (SqliteMemoryStore(database=str(self.folder / DATABASE)) if self.store_kind == "sqlite"
                 else FileStore(DIRECTORY))
        memory = Memory(store, namespace=lambda ctx: ctx.deps)  # the README's per-user namespace resolver
        capabilities = [memory] if self.store_kind == "sqlite" else [LocalWorkspace(str(self.folder)), memory]
        self.agent = Agent(deps_type=str, capabilities=capabilities)  # the model is given to each run

    def describe(self):
        store = (f"SqliteMemoryStore(database='{DATABASE}')" if self.store_kind == "sqlite"
                 else f"FileStore('{DIRECTORY}') in LocalWorkspace(<store>)")
        return {"sut": "pydantic-ai-harness", "version": kit.dist_version("pydantic-ai-harness"),
                "libraries": {"python": platform.python_version(), "sqlite": sqlite3.sqlite_version,
                              **{name: kit.dist_version(name) for name in LIBRARIES}},
                "capabilities": {"erasure": "record", "order": True, "metadata": False, "snapshot": True,
                                 "lifecycle": ["erase"]},
                "configuration": {"store": store, "memory": "Memory(store, namespace=lambda ctx: ctx.deps), defaults",
                                  "agent": "Agent(deps_type=str), deps the namespace of the context",
                                  "model": "FunctionModel making the named tool call (no LLM)"}}

    # ---- ops -----------------------------------------------------------------------
    def write(self, context, text, meta):
        if "\n" in text or not text.strip():
            raise kit.BadRequest("a record is one non-empty line of MEMORY.md: text without a newline")
        line = BULLET + text
        self._tool(context, "write_memory", {"content": line, "file": MAIN})
        return {"id": line_id(line), "text": text}

    def read(self, context):
        served = []
        for line in memory_lines(self._snapshot(context)):
            text = line[len(BULLET):] if line.startswith(BULLET) else line
            served.append({"id": line_id(line), "text": text, "meta": {}})
        return served

    def erase_record(self, context, record_id):
        content = self._tool(context, "read_memory", {"file": MAIN})
        lines = content.split("\n")
        found = [i for i, line in enumerate(lines) if line and line_id(line) == record_id]
        if not found:
            raise LookupError(f"no line of {MAIN} has id {record_id!r}")
        line = lines[found[-1]]
        if content.count(line + "\n") == 1:
            args = {"content": "", "file": MAIN, "old_text": line + "\n"}
        else:  # not unique: replace the whole file by the file without its last copy of the line
            args = {"content": "\n".join(lines[:found[-1]] + lines[found[-1] + 1:]), "file": MAIN, "old_text": content}
        self._tool(context, "write_memory", args)
        return [record_id]

    # ---- the front door (images/README.md, "Front-door additions") -----------------------
    def frontdoor_open(self, case, trust_root, fresh):
        """The case's own store under store/frontdoor/<case>/, its own Memory and Agent as open() makes
        them; the same files after a restart. The harness takes no trust root (it keeps no signature)."""
        root = kit.case_store(self.folder, case, fresh)
        store = (SqliteMemoryStore(database=str(root / DATABASE)) if self.store_kind == "sqlite"
                 else FileStore(DIRECTORY))
        memory = Memory(store, namespace=lambda ctx: ctx.deps)
        capabilities = [memory] if self.store_kind == "sqlite" else [LocalWorkspace(str(root)), memory]
        self.frontdoor_agent = Agent(deps_type=str, capabilities=capabilities)

    def frontdoor_write(self, scope, text, label, signature, tags):
        """The tool call write_memory(content='- <text>', file='MEMORY.md') in the scope's namespace;
        the label, signature and tags go nowhere (a memory keeps none)."""
        namespace = scope_namespace(scope)
        args = {"content": BULLET + text, "file": MAIN}

        def model(messages, info: AgentInfo):
            last = messages[-1].parts if messages else []
            if any(isinstance(p, ToolReturnPart) and p.tool_name == "write_memory" for p in last):
                return ModelResponse(parts=[TextPart("saved")])
            return ModelResponse(parts=[ToolCallPart("write_memory", args)])  # again while the tool asks a retry

        result = asyncio.run(self.frontdoor_agent.run("memlab: remember this", deps=namespace,
                                                      model=FunctionModel(model)))
        answer = [p.content for m in result.all_messages() for p in m.parts
                  if isinstance(p, ToolReturnPart) and p.tool_name == "write_memory"]
        return {"accepted": bool(answer), "stored": {"namespace": namespace, **(answer[-1] if answer else {})}}

    def frontdoor_read(self, scope, query, k, tag):
        """The lines of the <memory> snapshot a fresh run with the question as its prompt is given."""
        first = []

        def model(messages, info: AgentInfo):
            first.append(list(messages))
            return ModelResponse(parts=[TextPart("ok")])

        asyncio.run(self.frontdoor_agent.run(query, deps=scope_namespace(scope), model=FunctionModel(model)))
        return [{"text": line[len(BULLET):] if line.startswith(BULLET) else line, "marker": None}
                for line in memory_lines(snapshot_of(first[0]))]

    # ---- the capability, one run per op -------------------------------------------------
    def _run(self, context, prompt, model):
        """One run of the agent in the context's namespace, ``model`` standing in for the model."""
        return asyncio.run(self.agent.run(prompt, deps=namespace_of(context), model=FunctionModel(model)))

    def _tool(self, context, name, args):
        """One run whose model calls tool ``name`` with ``args``; the tool's return, or its refusal raised."""
        def model(messages, info: AgentInfo):
            if not any(isinstance(m, ModelResponse) for m in messages):
                return ModelResponse(parts=[ToolCallPart(name, args)])
            return ModelResponse(parts=[TextPart("done")])

        result = self._run(context, f"memlab: {name}", model)
        for message in result.all_messages():
            for part in message.parts:
                if isinstance(part, ToolReturnPart) and part.tool_name == name:
                    return part.content
                if isinstance(part, RetryPromptPart) and part.tool_name == name:
                    raise RuntimeError(f"{name} asked the model to retry: {part.content}")
        raise RuntimeError(f"{name}: no tool return in the run")

    def _snapshot(self, context):
        """The ``<memory>`` block the capability records with the prompt of a fresh run ('' if none)."""
        first = []

        def model(messages, info: AgentInfo):
            first.append(list(messages))
            return ModelResponse(parts=[TextPart("ok")])

        self._run(context, "memlab: what do you remember?", model)
        return snapshot_of(first[0])


if __name__ == "__main__":
    kit.serve(PydanticAiMemoryDriver)
