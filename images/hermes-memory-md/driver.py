"""Driver of Hermes Agent (hermes-agent 0.19.0): its built-in memory file MEMORY.md, read through the
system prompt an agent session builds. Offline: no key, no model, no network.

Hermes keeps the agent's memory in ``$HERMES_HOME/memories/MEMORY.md`` (entries joined by a line
``§``; no ids, no metadata) and one ``HERMES_HOME`` per profile (``~/.hermes/profiles/<name>/``).
Volume ``store`` is the Hermes root; a context is a profile, ``profiles/<context>/`` (the context
percent-encoded as one folder name, so a lifecycle context ``tenant/user`` is one profile).

- Write: ``tools.memory_tool.memory_tool(action="add", target="memory", content=text, store=...)``,
  the memory tool's entry point (the call a model's tool call reaches), on the store Hermes builds
  for a context without a live agent (``load_on_disk_store``). An entry has no id; the answer's id
  is the first 16 hex digits of SHA-256 over the entry's text.
- Read: a new agent session, ``run_agent.AIAgent(...)`` (its init runs ``MemoryStore.load_from_disk``,
  which scans each entry for threat patterns and freezes the snapshot), then
  ``agent.system_prompt.build_system_prompt(agent)``: the prompt the model would get. The served
  records are the entries of its ``MEMORY (your personal notes)`` block, in order. The agent is
  given an unreachable loopback base URL and a dummy key; nothing calls the model.
- Erase: ``memory_tool(action="remove", old_text=<the whole entry>)``: Hermes addresses an entry
  by a unique substring of it; the driver passes the entry's full text.

No ``update``: Hermes's ``replace`` changes the entry's text, its only identity, so an id from a
write answer (which the lifecycle gate reuses after a correction) cannot survive it.

Front door (``frontdoor_*``): Hermes's built-in memory keys on nothing but its home (``HERMES_HOME``,
one per profile: ``get_memory_dir`` is ``get_hermes_home() / "memories"``); a gateway's user, chat or
session id reaches only an external memory provider (``agent/agent_init.py``: ``_init_kwargs``), never
MEMORY.md. So each scope is a Hermes home of its own that the driver opens (``isolation:
separate-store``): ``store/frontdoor/<case>/profiles/<quote(json [tenant, user, session])>/`` (integers
stay numbers, a missing part is null, percent-encoded: two scopes never share a home), kept after the
row. A write is the memory tool call ``memory(action=add, target=memory, content=text)`` on the
scope's on-disk store, as the agent's tool executor makes it (``agent/tool_executor.py``); Hermes
keeps text only, so the label, the lab's signature and the tags go nowhere (one channel) and the
trust root is unused. Hermes answers a refused add (its threat-pattern scan, the char limit) with
``success: false`` in the tool's JSON, not by raising: the driver answers ``accepted: false`` and
writes Hermes's error to stderr (the SUT's log). A read is the memory block of the system prompt a
new session in that home builds, as ``read`` above, whatever the question (no query, no limit, no
filter), with no marker: Hermes replaces an entry its load-time scan flags by a ``[BLOCKED: ...]``
placeholder rather than marking it.
"""

import hashlib
import json
import os
import platform
import re
import sys
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import quote

import memlab_driver as kit  # first: guards stdout, captures import-time signals


def import_hermes(root: Path) -> SimpleNamespace:
    """Import Hermes with HERMES_HOME at the Hermes root (some modules resolve paths at import)."""
    os.environ["HERMES_HOME"] = str(root)
    import hermes_constants
    import run_agent
    from agent.system_prompt import build_system_prompt
    from tools import memory_tool
    # The prompt's memory block (MemoryStore._render_block): separator, header [usage], separator, entries.
    header = re.escape(memory_tool.MEMORY_BLOCK_HEADERS["memory"])
    block = re.compile("═+\n" + header + r" \[[^\]\n]*\]\n═+\n(.*?)(?:\n\n|\Z)", re.S)
    return SimpleNamespace(constants=hermes_constants, AIAgent=run_agent.AIAgent, build_system_prompt=build_system_prompt,
                           tool=memory_tool.memory_tool, store=memory_tool.load_on_disk_store,
                           delimiter=memory_tool.ENTRY_DELIMITER, block=block)


def entry_id(entry: str) -> str:
    """The id the driver gives an entry (Hermes has none): SHA-256 of its text, 16 hex digits."""
    return hashlib.sha256(entry.encode("utf-8")).hexdigest()[:16]


class HermesMemoryDriver(kit.Driver):
    """One Hermes profile per context under the Hermes root in volume ``store``."""

    def open(self, volumes, config):
        """The Hermes root; Hermes imported with HERMES_HOME there; no context is read yet."""
        (self.root,) = self.need_volumes("store")
        (self.root / "profiles").mkdir(exist_ok=True)
        self.h = import_hermes(self.root)

    def _home(self, context):
        """Point Hermes at the context's profile (HERMES_HOME, as ``hermes -p <profile>`` does)."""
        return self._point(self.root / "profiles" / quote(context, safe=""))

    def _point(self, home):
        """HERMES_HOME (and Hermes's in-process override) at ``home``."""
        os.environ["HERMES_HOME"] = str(home)
        self.h.constants.set_hermes_home_override(str(home))
        return home

    def describe(self):
        """Hermes's version and what the read path is."""
        return {"sut": "hermes-agent", "version": kit.dist_version("hermes-agent"),
                "libraries": {"python": platform.python_version(), "openai": kit.dist_version("openai"),
                              "pydantic": kit.dist_version("pydantic")},
                "capabilities": {"erasure": "record", "order": True, "metadata": False, "snapshot": True,
                                 "lifecycle": ["erase"]},
                "configuration": {"memory": "MEMORY.md (target memory)", "profile": "profiles/<context>",
                                  "read": "AIAgent(...) + build_system_prompt: the memory block"}}

    def _tool(self, context, **args):
        """The memory tool on the context's on-disk store; a failed call raises (Hermes refused)."""
        self._home(context)
        answer = json.loads(self.h.tool(target="memory", store=self.h.store(), **args))
        if not answer.get("success"):
            raise RuntimeError(f"memory({args.get('action')}): {answer.get('error')}")
        return answer

    def _entry(self, context, record_id):
        """The live entry whose id is ``record_id`` (the store as the memory tool reloads it)."""
        self._home(context)
        found = [e for e in self.h.store().memory_entries if entry_id(e) == record_id]
        if not found:
            raise KeyError(f"no entry {record_id} in the memory of {context!r}")
        return found[0]

    def write(self, context, text, meta):
        """memory(action=add): one entry appended to MEMORY.md."""
        self._tool(context, action="add", content=text)
        return {"id": entry_id(text.strip()), "text": text}

    def read(self, context):
        """A new session's system prompt; its memory block's entries, in order."""
        self._home(context)
        return [{"id": entry_id(e), "text": e, "meta": {}} for e in self._served()]

    def _served(self):
        """The entries of the memory block of the system prompt a new session in the current home builds."""
        agent = self.h.AIAgent(base_url="http://127.0.0.1:9/v1", api_key="memlab-offline", model="memlab-offline",
                               quiet_mode=True, skip_context_files=True, enabled_toolsets=["memory"])
        found = self.h.block.search(self.h.build_system_prompt(agent))
        return found.group(1).split(self.h.delimiter) if found else []

    def erase_record(self, context, record_id):
        """memory(action=remove) with the entry's whole text as old_text."""
        self._tool(context, action="remove", old_text=self._entry(context, record_id))


    # ---- front door -------------------------------------------------------------------------------
    def frontdoor_open(self, case, trust_root, fresh):
        """The case's own Hermes root of per-scope homes: new when fresh, the kept one after a restart
        (trust_root unused: Hermes takes no public key)."""
        self.case_dir = kit.case_store(self.root, case, fresh)

    def _scope_home(self, scope):
        """The scope's own Hermes home (separate-store): the JSON array [tenant, user, session],
        percent-encoded as one profile folder of the case."""
        if getattr(self, "case_dir", None) is None:
            raise kit.BadRequest("frontdoor_open first")
        key = json.dumps([scope["tenant"], scope["user"], scope["session"]], ensure_ascii=False)
        return self._point(self.case_dir / "profiles" / quote(key, safe=""))

    def frontdoor_write(self, scope, text, label, signature, tags):
        """memory(action=add, target=memory, content=text) on the scope's on-disk store; the label,
        signature and tags go nowhere (Hermes keeps text only). Hermes's success: false is its refusal."""
        self._scope_home(scope)
        answer = json.loads(self.h.tool(action="add", target="memory", content=text, store=self.h.store()))
        if not answer.get("success"):
            print(f"hermes refused memory(add): {answer.get('error')}", file=sys.stderr, flush=True)
        return {"accepted": bool(answer.get("success")), "stored": answer}

    def frontdoor_read(self, scope, query, k, tag):
        """The memory block of a new session's system prompt in the scope's home: every entry, whatever
        the question (Hermes has no query, limit or filter), no marker."""
        self._scope_home(scope)
        return [{"text": e, "marker": None} for e in self._served()]


if __name__ == "__main__":
    kit.serve(HermesMemoryDriver)
