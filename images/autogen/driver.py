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
"""

import asyncio
import json
import platform
import sys
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "driverkit"))

import memlab_driver as kit  # noqa: E402  (first: guards stdout, captures import-time signals)

from autogen_agentchat.agents import AssistantAgent  # noqa: E402
from autogen_agentchat.messages import TextMessage  # noqa: E402
from autogen_core import CancellationToken  # noqa: E402
from autogen_core.models import AssistantMessage, SystemMessage, UserMessage  # noqa: E402
from autogen_ext.models.replay import ReplayChatCompletionClient  # noqa: E402

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

    # ---- one stateless endpoint: a fresh agent, its state loaded from the file ----------------
    def _path(self, context):
        return self.folder / f"{quote(context, safe='')}.json"

    def _load(self, context):
        agent = AssistantAgent(AGENT, model_client=ReplayChatCompletionClient([]),
                               system_message="You are a helpful assistant")
        path = self._path(context)
        if path.is_file():
            with open(path) as f:
                state = json.load(f)
            self._run(agent.load_state(state))
        return agent

    def _save(self, context, agent):
        state = self._run(agent.save_state())
        with open(self._path(context), "w") as f:
            json.dump(state, f)

    def _run(self, coroutine):
        return self.loop.run_until_complete(coroutine)


if __name__ == "__main__":
    kit.serve(AutogenStateDriver)
