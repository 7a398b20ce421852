"""One episode of an environment, driven from outside: tool calls, replies that end turns, and the score.

The host is what a protocol server (MCP) wraps: the agent side sees tools, the conversation so far and a reply
tool; the harness side (never the agent) sees the score.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any

import orjson

from coworkenv.env import Action, Env
from coworkenv.spec import EnvSpec

REPLY_TOOL = "reply_to_user"
_REPLY_SCHEMA: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": REPLY_TOOL,
        "description": "Send your answer to the user. This ends your turn; the user's follow-up request, if any, "
                       "comes back as the result (also in the conversation resource).",
        "parameters": {"type": "object", "properties": {"message": {"type": "string", "description": "Your reply"}},
                       "required": ["message"]},
    },
}


class EpisodeHost:
    """An Env whose episode is driven by tool calls and replies from one external agent (thread-safe)."""

    def __init__(self, spec: EnvSpec, max_steps: int = 200) -> None:
        self.env = Env(spec, max_steps=max_steps)
        if REPLY_TOOL in self.env.toolbox.exposed:
            raise ValueError(f"the spec exposes a tool named {REPLY_TOOL!r}, which the server uses for replies; "
                             "rename that tool")
        self._lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        """Start the episode again from the initial world."""
        with self._lock:
            self.env.reset()

    @property
    def spec(self) -> EnvSpec:
        return self.env.spec

    def tools(self) -> list[dict[str, Any]]:
        """The spec's tools (declared names and schemas) and the reply tool, in OpenAI function format."""
        return [*self.env.openai_tools(), _REPLY_SCHEMA]

    def system_prompt(self) -> str:
        """The system messages before the first user turn (fixed instructions, then the env's own text)."""
        opening = itertools.takewhile(lambda m: m["role"] == "system", self.env.messages)
        return "\n\n".join(str(m["content"]) for m in opening)

    def user_turns(self) -> list[str]:
        """The user messages the agent has received so far (follow-ups appear as turns end)."""
        return [str(m["content"]) for m in self.env.messages if m["role"] == "user"]

    def call(self, name: str, arguments: dict[str, Any] | None) -> tuple[bool, str]:
        """Run a tool call (or the reply tool); returns (ok, observation text)."""
        with self._lock:
            if self.env.done:
                return False, orjson.dumps({"error": "the episode is over; no more actions are accepted"}).decode()
            if name == REPLY_TOOL:
                return self._reply(str((arguments or {}).get("message", "")))
            result = self.env.step(Action.call(name, arguments or {}))
            content = str(result.messages[0]["content"]) if result.messages else "{}"
            return self.env.audit[-1].ok if self.env.audit else False, content

    def _reply(self, message: str) -> tuple[bool, str]:
        if not message.strip():
            return False, orjson.dumps({"error": "the reply is empty; write your answer in 'message'"}).decode()
        result = self.env.step(Action.say(message))
        follow_up = [m["content"] for m in result.messages if m["role"] == "user"]
        if follow_up:
            return True, orjson.dumps({"status": "delivered", "user": follow_up[-1]}).decode()
        return True, orjson.dumps({"status": "delivered", "episode": "over"}).decode()

    def result(self) -> dict[str, Any]:
        """The harness view: score, checks, robustness and progress (never shown to the agent)."""
        with self._lock:
            report = self.env.robustness_report()
            return {
                "env_id": self.spec.id, **self.env.score().as_dict(), "done": self.env.done, "turn": self.env.turn,
                "steps": self.env.steps, "truncated": self.env.truncated,
                "robustness": report.figure, "faults": {"injected": report.injected, "failing": report.failing,
                                                        "recovered": report.recovered},
            }
