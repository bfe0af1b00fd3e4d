"""Driver of AutoGen AgentChat's saved agent state (``AssistantAgent.save_state``/``load_state``),
persisted as a JSON file the way AutoGen's "Managing State" tutorial does: offline, no model, no key.

An ``AssistantAgent``'s state is its model context (``AssistantAgentState`` in
autogen_agentchat/state/_states.py: ``{"type": "AssistantAgentState", "version": "1.0.0",
"llm_context": {"messages": [...]}}``; the messages are the ``UserMessage``/``AssistantMessage``
dumps of ``ChatCompletionContextState``, autogen_core/model_context/_chat_completion_context.py).
The tutorial's "Persisting State (File or Database)" writes ``json.dump(await x.save_state(), f)``
to a file and later ``await new_x.load_state(json.load(f))``; an application that serves several
users keeps one such file per conversation, as a stateless web endpoint does (load, run, save).

The lab's context is one conversation: the file ``<store>/<context, percent-encoded>.json``. Every op
is one such endpoint: it builds a fresh ``AssistantAgent`` (with a model client that is never
called: ``ReplayChatCompletionClient([])`` from autogen-ext), ``load_state`` of the file when it
exists, does its one thing and, for a mutation, ``save_state`` back to the file.

- write: the message an agent's turn adds to its model context, ``model_context.add_message``:
  ``TextMessage(content=text, source="user").to_model_message()`` (a ``UserMessage``, what
  ``AssistantAgent._add_messages_to_context`` adds for an incoming message) for role user, an
  ``AssistantMessage(content=text, source=<agent name>)`` (what the agent adds for its own reply)
  for role assistant. The record's id is its place in the context's message list (AutoGen's model
  context keeps no message id).
- read: ``await agent.model_context.get_messages()`` after ``load_state`` -- the messages the agent
  sends its model on its next turn (``UnboundedChatCompletionContext``, the AssistantAgent's
  default: all of them), in that order. Served meta: ``role`` (the message type), ``source``.
- erase: AutoGen erases no single message (the model context offers ``add_message``,
  ``get_messages``, ``clear`` and ``save_state``/``load_state`` only); ``erase_context`` is the
  agent's reset (``on_reset``: ``model_context.clear()``) saved back to the file. No update.

With the lifecycle gate's folded scope the context is ``tenant/user``.

Front door (``frontdoor_*``): each case opens its own folder, ``store/frontdoor/<case>/`` (the same one
again, unchanged, after a restart), and in it one saved state file per scope, as above (a fresh agent,
``load_state`` of the file, the op, ``save_state`` back).

- Scope: AutoGen keeps no context of its own -- a model context is one agent object's list, and where
  its saved state goes is the application's (the tutorial's file) -- so each scope is a store of its
  own that the driver opens: the file ``<the JSON array [tenant, user, session], percent-encoded>.json``
  (the parts exactly as sent: an integer stays a JSON number, a part not given is ``null``), an
  injective name, so no two scopes share a file (the profile declares ``isolation: separate-store``).
- Write: what ``AssistantAgent._add_messages_to_context`` does with an incoming chat message,
  ``model_context.add_message(TextMessage(content=text, source=label).to_model_message())``: a
  ``UserMessage`` whose ``source`` is AutoGen's own sender field ("The name of the agent that sent this
  message"; ``run(task=...)`` sends the user's task as ``source="user"``, another agent's message
  carries that agent's name). The label goes there as sent. AutoGen has no signature, and a
  ``UserMessage`` has no tag or metadata field, so the signature, tags and ``trust_root`` go nowhere.
- Read: ``model_context.get_messages()`` after ``load_state`` -- what ``AssistantAgent._call_llm``
  hands its model client next turn (after the system message): the default
  ``UnboundedChatCompletionContext`` serves every message, in order, whatever the question, so the
  query, ``k`` and the tag go nowhere. Served as each message's ``content``, with no marker (AutoGen
  has no untrusted flag; ``source`` reaches the model as the message's ``name``, never a filter).
"""

import asyncio
import json
import platform
from urllib.parse import quote

import memlab_driver as kit  # first: guards stdout, captures import-time signals

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.messages import TextMessage
from autogen_core import CancellationToken
from autogen_core.models import AssistantMessage, SystemMessage, UserMessage
from autogen_ext.models.replay import ReplayChatCompletionClient

AGENT = "assistant_agent"  # the agent's name, as in the tutorial
ROLES = {UserMessage: "user", AssistantMessage: "assistant", SystemMessage: "system"}
LIBRARIES = ("autogen-agentchat", "autogen-core", "autogen-ext", "pydantic")


class AutogenStateDriver(kit.Driver):
    """Maps the protocol onto one saved AssistantAgent state file per context (see the module docstring)."""

    def open(self, volumes, config):
        [self.folder] = self.need_volumes("store", why="the saved agent states are JSON files there")
        self.loop = asyncio.new_event_loop()

    def describe(self):
        return {"sut": "autogen-agentchat", "version": kit.dist_version("autogen-agentchat"),
                "libraries": {"python": platform.python_version(),
                              **{name: kit.dist_version(name) for name in LIBRARIES}},
                "capabilities": {"erasure": "context", "order": True, "metadata": True, "snapshot": True,
                                 "lifecycle": []},
                "configuration": {"state": "json.dump(await AssistantAgent.save_state()) to <context>.json",
                                  "agent": f'AssistantAgent("{AGENT}"), default model context '
                                           "(UnboundedChatCompletionContext)",
                                  "model_client": "ReplayChatCompletionClient([]), never called"}}

    def write(self, context, text, meta):
        role = meta.get("role", "user")
        if role == "user":
            message = TextMessage(content=text, source="user").to_model_message()
        elif role == "assistant":
            message = AssistantMessage(content=text, source=AGENT)
        else:
            raise kit.BadRequest(f"meta.role {role!r}: a model context message here is the user's or the assistant's")
        agent = self._load(context)
        self._run(agent.model_context.add_message(message))
        count = len(self._run(agent.model_context.get_messages()))
        self._save(context, agent)
        return {"id": str(count - 1), "text": text}

    def read(self, context):
        agent = self._load(context)
        return [{"id": str(i), "text": m.content if isinstance(m.content, str) else json.dumps(m.model_dump()["content"]),
                 "meta": {"role": ROLES.get(type(m), type(m).__name__), "source": getattr(m, "source", None)}}
                for i, m in enumerate(self._run(agent.model_context.get_messages()))]

    def erase_context(self, context):
        agent = self._load(context)
        ids = [str(i) for i in range(len(self._run(agent.model_context.get_messages())))]
        self._run(agent.on_reset(CancellationToken()))
        self._save(context, agent)
        return ids

    def close(self):
        if hasattr(self, "loop"):
            self.loop.close()

    # ---- the front door (images/README.md, "Front-door additions") -------------------------------
    def frontdoor_open(self, case, trust_root, fresh):
        """The case's own folder of per-scope state files: new when fresh, the kept one after a restart
        (trust_root unused: AutoGen takes no public key)."""
        self.case_dir = kit.case_store(self.folder, case, fresh)

    def _scope_path(self, scope):
        """The scope's own state file (separate-store): the JSON array [tenant, user, session], percent-encoded."""
        if getattr(self, "case_dir", None) is None:
            raise kit.BadRequest("frontdoor_open first")
        key = json.dumps([scope["tenant"], scope["user"], scope["session"]], ensure_ascii=False)
        return self.case_dir / f"{quote(key, safe='')}.json"

    def frontdoor_write(self, scope, text, label, signature, tags):
        """model_context.add_message(TextMessage(text, source=label).to_model_message()), saved back; no
        signature or tag is kept (AutoGen has neither)."""
        path = self._scope_path(scope)
        message = TextMessage(content=text, source=label).to_model_message()
        agent = self._load_file(path)
        self._run(agent.model_context.add_message(message))
        self._save_file(path, agent)
        return {"accepted": True, "stored": {"file": path.name, "message": message.model_dump(mode="json")}}

    def frontdoor_read(self, scope, query, k, tag):
        """model_context.get_messages() of the scope's saved state: every message in order (no query,
        limit or filter), each served as its content, with no marker."""
        agent = self._load_file(self._scope_path(scope))
        return [{"text": m.content if isinstance(m.content, str) else json.dumps(m.model_dump(mode="json")["content"]),
                 "marker": None} for m in self._run(agent.model_context.get_messages())]

    # ---- one stateless endpoint: a fresh agent, its state loaded from the file ----------------
    def _path(self, context):
        return self.folder / f"{quote(context, safe='')}.json"

    def _load(self, context):
        return self._load_file(self._path(context))

    def _save(self, context, agent):
        self._save_file(self._path(context), agent)

    def _load_file(self, path):
        agent = AssistantAgent(AGENT, model_client=ReplayChatCompletionClient([]),
                               system_message="You are a helpful assistant")
        if path.is_file():
            with open(path) as f:
                state = json.load(f)
            self._run(agent.load_state(state))
        return agent

    def _save_file(self, path, agent):
        state = self._run(agent.save_state())
        with open(path, "w") as f:
            json.dump(state, f)

    def _run(self, coroutine):
        return self.loop.run_until_complete(coroutine)


if __name__ == "__main__":
    kit.serve(AutogenStateDriver)
