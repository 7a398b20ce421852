"""One episode of an environment, driven from outside: tool calls, replies that end turns, and the score.

The host is what a protocol server (MCP) wraps: the agent side sees tools, the conversation so far and a reply
tool; the harness side (never the agent) sees the score.

A spec's wall clock (`EnvSpec.time_limit_s`, an imported benchmark's own, such as Claw-Eval's `timeout_seconds`)
holds here too: it starts at the agent's first request of the episode (its tools, the task, a call) and is checked
before each call and reply, as Claw-Eval's loop checks it before each model call; past it the episode is over and
is scored as it stands.

The step limit counts assistant messages. A call that names the model message it is of (`message`: over MCP, the
request's `_meta` key `MESSAGE_META`), and names the one the previous call was of, joins that message (`Env.add_call`):
no step is counted, as Claw-Eval's loop counts model calls, not tool calls, and every call of the message that
reached the limit still runs, as that loop dispatches them all. A call that names none is a message of its own (an
MCP server cannot see a model message's bounds), so a client that sends several calls a message without saying so
is cut sooner than Claw-Eval's loop would cut it.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson

from coworkenv.env import Action, Env
from coworkenv.spec import EnvSpec

if TYPE_CHECKING:
    from coworkenv.rollout.users import ClawEvalUser

REPLY_TOOL = "reply_to_user"
MESSAGE_META = "coworkenv/message"  # the `_meta` key of an MCP tool call naming the model message it is of
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

    def __init__(self, spec: EnvSpec, max_steps: int = 200, clock: Callable[[], float] = time.monotonic,
                 user_sim: ClawEvalUser | None = None) -> None:
        """`user_sim`: who plays the spec's simulated user, if it has one (default: the model $COWORKENV_USER_URL
        and $COWORKENV_USER_MODEL name; ValueError when none is)."""
        self.env = Env(spec, max_steps=max_steps)
        self._user = user_sim
        if user_sim is None and spec.simulated_user is not None:  # (the rollout package is loaded only for one)
            from coworkenv.rollout.users import spec_user

            self._user = spec_user(spec)
        if REPLY_TOOL in self.env.toolbox.exposed:
            raise ValueError(f"the spec exposes a tool named {REPLY_TOOL!r}, which the server uses for replies; "
                             "rename that tool")
        self._lock = threading.Lock()
        self._clock = clock
        self._started: float | None = None  # when the agent first asked for anything of this episode
        self._timed_out = False
        self._message: str | None = None  # the model message the last call was of, where its client named one
        self.reset()

    def reset(self) -> None:
        """Start the episode again from the initial world (its clock, if the spec has one, starts again too)."""
        with self._lock:
            self.env.reset()
            self._started, self._timed_out, self._message = None, False, None
            self._user_error: str | None = None  # why the simulated user gave no answer, if its model failed

    def start_clock(self) -> None:
        """The agent asked for something of the episode (its tools, the task): the spec's wall clock starts, if it
        has not (a server may wait long for its agent; Claw-Eval's clock starts as its loop opens the episode)."""
        with self._lock:
            self._start()

    def _start(self) -> None:
        if self._started is None:
            self._started = self._clock()

    def _past_time_limit(self) -> bool:
        """Whether the episode's wall clock is past the spec's `time_limit_s` (once past, it stays so)."""
        limit = self.env.spec.time_limit_s
        if not self._timed_out and limit is not None and self._started is not None:
            self._timed_out = self._clock() - self._started > limit
        return self._timed_out

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

    def call(self, name: str, arguments: dict[str, Any] | None, message: str | None = None) -> tuple[bool, str]:
        """Run a tool call (or the reply tool); returns (ok, observation text). `message`: the model message the
        call is of, where the client says so (see the module): a call of the message the last call was of joins it."""
        with self._lock:
            self._start()
            joins = name != REPLY_TOOL and message is not None and message == self._message
            if self.env.done and not (joins and self.env.truncated):
                return False, orjson.dumps({"error": "the episode is over; no more actions are accepted"}).decode()
            if self._past_time_limit():
                return False, orjson.dumps({"error": f"the episode's time limit ({self.env.spec.time_limit_s} s) ran "
                                                     "out: the episode is over and is scored as it stands; no more "
                                                     "actions are accepted"}).decode()
            if name == REPLY_TOOL:
                self._message = None
                return self._reply(str((arguments or {}).get("message", "")))
            call = Action.call(name, arguments or {})
            result = self.env.add_call(call.tool_calls[0]) if joins else self.env.step(call)
            self._message = message
            content = str(result.messages[0]["content"]) if result.messages else "{}"
            return self.env.audit[-1].ok if self.env.audit else False, content

    def _reply(self, message: str) -> tuple[bool, str]:
        if not message.strip():
            return False, orjson.dumps({"error": "the reply is empty; write your answer in 'message'"}).decode()
        action = Action.say(message)
        if self._user is not None and self.env.turn >= len(self.env.spec.turns) - 1:  # the simulated user answers
            from coworkenv.llm import run_sync

            user, conversation = self._user, [*self.env.messages, {"role": "assistant", "content": message}]
            try:
                answer = run_sync(lambda: user.respond(conversation, self.env.turn)).content
            except Exception as exc:  # its model failed after the retries: the reply stands unanswered, as the loop
                from coworkenv.rollout.users import user_failure  # plays it (`EpisodeRun.user_failed`)

                answer, self._user_error = None, user_failure(user.name, exc)
            result = self.env.step(action) if answer is None else self.env.hear(action, answer)
        else:
            result = self.env.step(action)
        follow_up = [m["content"] for m in result.messages if m["role"] == "user"]
        if follow_up:
            return True, orjson.dumps({"status": "delivered", "user": follow_up[-1]}).decode()
        return True, orjson.dumps({"status": "delivered", "episode": "over"}).decode()

    def result(self) -> dict[str, Any]:
        """The harness view: score, checks, robustness and progress (never shown to the agent)."""
        with self._lock:
            report = self.env.robustness_report()
            timed_out = not self.env.done and self._past_time_limit()  # stop reasons as `rollout`'s records word them
            stop = "time_limit" if timed_out else None if not self.env.done else \
                "env_step_limit" if self.env.truncated else "user_sim_error" if self._user_error else "done"
            return {
                "env_id": self.spec.id, **self.env.score().as_dict(), "done": self.env.done or timed_out,
                "stop_reason": stop, "turn": self.env.turn, "steps": self.env.steps,
                "truncated": self.env.truncated or timed_out,
                "robustness": report.figure, "faults": {"injected": report.injected, "failing": report.failing,
                                                        "recovered": report.recovered},
                **({"error": self._user_error} if self._user_error else {}),
            }
