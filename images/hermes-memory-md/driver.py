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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "driverkit"))

import memlab_driver as kit  # noqa: E402  (first: guards stdout, captures import-time signals)


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
        home = self.root / "profiles" / quote(context, safe="")
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
        agent = self.h.AIAgent(base_url="http://127.0.0.1:9/v1", api_key="memlab-offline", model="memlab-offline",
                               quiet_mode=True, skip_context_files=True, enabled_toolsets=["memory"])
        found = self.h.block.search(self.h.build_system_prompt(agent))
        entries = found.group(1).split(self.h.delimiter) if found else []
        return [{"id": entry_id(e), "text": e, "meta": {}} for e in entries]

    def erase_record(self, context, record_id):
        """memory(action=remove) with the entry's whole text as old_text."""
        self._tool(context, action="remove", old_text=self._entry(context, record_id))


if __name__ == "__main__":
    kit.serve(HermesMemoryDriver)
