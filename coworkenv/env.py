"""The runtime: an episode over an EnvSpec with a Gymnasium-like reset/step/state/score."""

from __future__ import annotations

import collections
import functools
import itertools
import weakref
from dataclasses import dataclass, field
from typing import Any

import orjson

from coworkenv.apps import APPS
from coworkenv.bindings import exposed_tools, spec_catalog, spec_dispatcher
from coworkenv.checks import AuditEntry, Note, Reply, Verifier, VerifierResult, call_matches
from coworkenv.dynamics import Dynamics
from coworkenv.faults import FaultInjector, FaultKind, Robustness, fault_error, robustness
from coworkenv.limits import DEFAULT_ENV_STEPS as DEFAULT_MAX_STEPS
from coworkenv.prompts import prompt_tools
from coworkenv.spec import AfterCall, EnvSpec, UserTurn
from coworkenv.spec_regex import PatternRefused, PatternTimeout
from coworkenv.spec_seal import sealed_table_hashes
from coworkenv.tools import ToolBox, ToolOutcome, shown_text
from coworkenv.world import World, format_time, parse_time

# id(spec) -> the world its records make, built once and shared copy-on-write by the Envs of that spec object. An
# entry lives while an Env of the spec does (its world holds the base) or while the spec is among the last
# RECENT_BASES used; it goes with its spec (weakref.finalize), so an id is never reused while its entry lives.
RECENT_BASES = 8
_BASE_WORLDS: weakref.WeakValueDictionary[int, World] = weakref.WeakValueDictionary()
_RECENT: collections.deque[World] = collections.deque(maxlen=RECENT_BASES)


def base_world(spec: EnvSpec) -> World:
    """The spec's initial world, built on first use and then shared: never write to it, `fork()` it."""
    base = _BASE_WORLDS.get(id(spec))
    if base is None:
        base = World.from_wire(APPS, spec.world.apps, parse_time(spec.world.start), spec.world.tick_s, spec.user,
                               sealed_table_hashes(spec))  # a sealed spec's: no record is digested up front
        _BASE_WORLDS[id(spec)] = base
        weakref.finalize(spec, _BASE_WORLDS.pop, id(spec), None)
    if not _RECENT or _RECENT[-1] is not base:
        _RECENT.append(base)
    return base


@dataclass(frozen=True)
class ToolCallRequest:
    """A tool call as an agent made it; `arguments` may be a JSON string (as models emit them)."""

    name: str
    arguments: dict[str, Any] | str
    id: str = ""


@dataclass(frozen=True)
class Action:
    """One assistant message: text and/or tool calls. A message without tool calls ends the agent's turn."""

    content: str | None = None
    tool_calls: tuple[ToolCallRequest, ...] = ()

    @classmethod
    def call(cls, name: str, arguments: dict[str, Any] | str | None = None, content: str | None = None) -> Action:
        return cls(content, (ToolCallRequest(name, arguments if arguments is not None else {}),))

    @classmethod
    def say(cls, text: str) -> Action:
        return cls(text)


@dataclass
class StepResult:
    """What `Env.step` returns: new messages, the reward (the score when the episode ends) and flags."""

    messages: list[dict[str, Any]]
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any] = field(default_factory=dict)

    def __iter__(self) -> Any:  # Gymnasium-style unpacking: obs, reward, terminated, truncated, info
        return iter((self.messages, self.reward, self.terminated, self.truncated, self.info))


# The first system message: the same for every env, so that it and the tools after it (Qwen-style templates render
# `tools` into the first system message) form a prompt prefix that vLLM's prefix cache reuses across envs.
AGENT_INSTRUCTIONS = (
    "You are an AI coworker: you act for one person at work through the tools of their workplace apps. "
    "Look things up with tools instead of guessing; act only as asked; say what you did and what you found."
)


def system_prompt(spec: EnvSpec, world: World) -> str:
    """The env's own system text: who the agent acts for, when it is, its apps and the workspace context.

    Sent as a second system message after `AGENT_INSTRUCTIONS` and the tools (see `opening_messages`).
    """
    person = world.table("directory", "people").get(spec.user)
    who = f"{person.name} <{person.email}>, {person.role} (time zone {person.timezone})" if person else spec.user
    catalog = spec_catalog(spec)
    apps = ", ".join(sorted({catalog[t].app for t in exposed_tools(spec) if t in catalog}))
    parts = [f"You act for {who}.", f"The current time is {world.now_iso}. Your workplace apps: {apps}."]
    if spec.context:
        parts.append(spec.context)
    return "\n".join(parts)


def opening_messages(spec: EnvSpec, world: World) -> list[dict[str, Any]]:
    """The messages before the first user turn: the fixed instructions, then the env's own system text; with
    `source_prompt` (a source benchmark's own system prompt, such as an imported Claw-Eval task's), the context
    alone, as that benchmark's agent gets it: one system message, nothing before or after it."""
    if spec.source_prompt:
        return [{"role": "system", "content": spec.context}]
    return [{"role": "system", "content": AGENT_INSTRUCTIONS}, {"role": "system", "content": system_prompt(spec, world)}]


class Env:
    """One environment. Actions are assistant messages; tool calls run against the world and are audited."""

    def __init__(self, spec: EnvSpec, max_steps: int = DEFAULT_MAX_STEPS, share_world: bool = True) -> None:
        """`share_world=False` builds a world of its own from the spec (the same results, no sharing)."""
        self.spec = spec
        # the spec's own limit (an imported benchmark's turns) lowers the runner's: the episode is cut where its was
        self.max_steps = max_steps if spec.max_steps is None else min(max_steps, spec.max_steps)
        self.verifier = Verifier(spec)
        # The world is the spec's shared base, copy-on-write: this env owns only the tables it changes.
        self._world = base_world(spec).fork() if share_world else World.from_wire(
            APPS, spec.world.apps, parse_time(spec.world.start), spec.world.tick_s, spec.user)
        self._initial_hash = self._world.content_hash()
        self.toolbox = ToolBox(self._world, spec_catalog(spec), exposed_tools(spec), spec_dispatcher(spec))
        self._reset_episode()

    def _reset_episode(self) -> None:
        self.dynamics = Dynamics(self.spec, self._world)
        self.audit: list[AuditEntry] = []
        self.replies: list[Reply] = []
        # every message that is no reply: one that made tool calls (its text and its calls' audit indices), and one
        # that ended the turn with no text (no calls): text checks with scope "all" read the texts, a python check
        # with `transcript` the messages (an imported grader's trace holds that empty message, as Claw-Eval's loop's)
        self.notes: list[Note] = []
        self.heard: list[Reply] = []  # what the spec's simulated user answered, each opening its turn (`hear`)
        self.messages: list[dict[str, Any]] = []
        self.turn = 0
        self.steps = 0
        self.done = False
        self.truncated = False
        self._call_ids = itertools.count(1)
        self.faults = FaultInjector(self.spec.faults)
        self._score: tuple[tuple[str, int, int, int, int], VerifierResult] | None = None

    # -- Gymnasium-like API --------------------------------------------------------------------------
    def reset(self, seed: int | None = None, *, tools: bool = True) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Start an episode: the world returns to its initial state. Returns (messages, info); `tools=False` leaves
        the tool schemas out of `info` (a caller that sends no model request: decoding them was ~60% of a reset)."""
        del seed  # episodes are deterministic; the spec's metadata carries its generation seed
        self._world.rewind()  # the journal started at construction or the last reset
        self._reset_episode()
        self.messages = [*opening_messages(self.spec, self._world), self._user_message(self.spec.turns[0])]
        info: dict[str, Any] = {"env_id": self.spec.id}
        if tools:
            info["tools"] = orjson.loads(self._prompt_tools_json)
        return list(self.messages), info

    def step(self, action: Action) -> StepResult:
        """Run one assistant message: execute its tool calls, or end the turn if it has none."""
        if self.done:
            raise RuntimeError("episode is over; call reset() to start a new one")
        self.steps += 1
        calls: list[dict[str, Any]] = [
            {"id": c.id or f"call_{next(self._call_ids)}", "type": "function",
             "function": {"name": c.name, "arguments": _as_json(c.arguments)}}
            for c in action.tool_calls
        ]
        self.messages.append({"role": "assistant", "content": action.content or "", "tool_calls": calls})
        new: list[dict[str, Any]] = []
        if action.tool_calls:
            first = len(self.audit)
            for request, wire in zip(action.tool_calls, calls, strict=True):
                new.append(self._run_tool(request, wire["id"]))
            self.notes.append(Note(self.turn, action.content or "", tuple(range(first, len(self.audit)))))
        else:
            if action.content:
                self.replies.append(Reply(self.turn, action.content))
            else:  # no reply, but a message all the same: the transcript ends with it
                self.notes.append(Note(self.turn, ""))
            new.extend(self._end_turn())
        self.messages.extend(new)
        if not self.done and self.steps >= self.max_steps:
            self.done = self.truncated = True
        reward = self.score().score if self.done else 0.0
        return StepResult(new, reward, self.done and not self.truncated, self.truncated, {"turn": self.turn})

    def hear(self, action: Action, answer: str) -> StepResult:
        """Run an assistant message that made no tool call and the answer the spec's simulated user gave it: the
        message ends its turn, as in `step`, and the answer opens the next one (`heard`), as Claw-Eval's loop sends
        its simulated user's answer and calls the model again. The step counts, as a model call there does."""
        if self.done:
            raise RuntimeError("episode is over; call reset() to start a new one")
        if action.tool_calls or self.spec.simulated_user is None or self.turn < len(self.spec.turns) - 1:
            raise RuntimeError("a simulated user answers only a message with no tool call, of a spec that has one, "
                               "once the spec's own turns are all sent")
        self.steps += 1
        self.messages.append({"role": "assistant", "content": action.content or "", "tool_calls": []})
        if action.content:
            self.replies.append(Reply(self.turn, action.content))
        else:
            self.notes.append(Note(self.turn, ""))
        self.turn += 1
        self.heard.append(Reply(self.turn, answer))
        new = [{"role": "user", "content": answer}]
        self.messages.extend(new)
        if self.steps >= self.max_steps:
            self.done = self.truncated = True
        reward = self.score().score if self.done else 0.0
        return StepResult(new, reward, False, self.truncated, {"turn": self.turn})

    def add_call(self, request: ToolCallRequest) -> StepResult:
        """Run one more tool call of the last assistant message, when it made calls and nothing came after them: the
        call joins that message (its tool calls, its note's audit indices), and no step is counted. For a driver that
        is given one model message's calls one at a time (an MCP client that says which message each call is of):
        the step limit counts model messages, as Claw-Eval's loop counts model calls, and every call of the message
        that reached it runs, as that loop dispatches every call of its last model call."""
        last = self.messages[-1 - len(self.notes[-1].calls)] if self.notes and self.notes[-1].calls else None
        if last is None or last.get("role") != "assistant" or not last.get("tool_calls") or \
                len(last["tool_calls"]) != len(self.notes[-1].calls) or (self.done and not self.truncated):
            raise RuntimeError("the last message made no tool calls, or the episode is over: no call can join it")
        call_id = request.id or f"call_{next(self._call_ids)}"
        last["tool_calls"].append({"id": call_id, "type": "function",
                                   "function": {"name": request.name, "arguments": _as_json(request.arguments)}})
        new = [self._run_tool(request, call_id)]
        note = self.notes[-1]
        self.notes[-1] = Note(note.turn, note.text, (*note.calls, len(self.audit) - 1))
        self.messages.extend(new)
        reward = self.score().score if self.done else 0.0
        return StepResult(new, reward, False, self.truncated, {"turn": self.turn})

    @property
    def state(self) -> World:
        return self._world

    @property
    def initial_hash(self) -> str:
        return self._initial_hash

    def score(self) -> VerifierResult:
        """The verifier's result for the episode so far (cached until the world, audit or replies change)."""
        key = (self._world.content_hash(), len(self.audit), len(self.replies), len(self.notes), len(self.heard))
        if self._score is None or self._score[0] != key:
            self._score = (key, self.verifier.score(self._world, self.audit, self.replies, self.notes,
                                                    heard=self.heard))
        return self._score[1]

    def openai_tools(self) -> list[dict[str, Any]]:
        return self.toolbox.openai_tools()

    @functools.cached_property
    def _prompt_tools_json(self) -> bytes:
        # The tools as every request of every episode carries them (sorted, compact): built once per Env.
        declared = {d.name for d in self.spec.tool_decls}  # shown exactly as the spec declares them
        tools = prompt_tools(self.toolbox.openai_tools(), verbatim=declared)
        if self.spec.source_prompt:  # a source benchmark's prompt: its tools in the order it sends them
            at = {d.name: i for i, d in enumerate(self.spec.tool_decls)}
            tools.sort(key=lambda t: at.get(t["function"]["name"], -1))
        return orjson.dumps(tools)

    def robustness_report(self) -> Robustness:
        """The faults injected so far and how many failing ones the agent recovered from (docs/robustness.md)."""
        return robustness(self.audit)

    def robustness(self) -> float | None:
        """Recovered / failing injected faults; None when no failing fault was injected."""
        return self.robustness_report().figure

    # -- internals ---------------------------------------------------------------------------------------
    def _run_tool(self, request: ToolCallRequest, call_id: str) -> dict[str, Any]:
        before = self._world.content_hash()
        at = self._world.now_iso
        tool = self.toolbox.tool(request.name)
        fault = self.faults.draw(request.name, tool.app, tool.kind) if tool is not None else None
        if fault in ("429", "500", "timeout"):  # the request never reaches the app: no state change
            outcome = ToolOutcome(False, error="injected")
        else:
            # The result is only serialized here (the tool message and the audit entry keep its JSON text), so list
            # tools may give rows as JSON fragments rendered once per record (`ToolBox.call`'s `rendered`).
            outcome = self.toolbox.call(request.name, request.arguments, rendered=True)
        args = request.arguments if isinstance(request.arguments, dict) else _loads_or_empty(request.arguments)
        observation = outcome.observation()
        if fault is not None and self.spec.faults is not None:
            observation, outcome = self._faulted(fault, outcome)
        if outcome.ok:
            self.dynamics.after_call(request.name, args)
        self.dynamics.advance(self._world.tick_s + self._fault_delay(fault))
        op = tool.op if tool is not None and tool.op != request.name else ""
        shown = shown_text(observation, outcome.ok)
        # A result is kept as the JSON the agent was shown, the very text of the tool message (decoded if read): a
        # long episode then holds one string per call rather than every result's dicts and lists, which each garbage
        # collection would traverse, or a second copy of the text.
        ok_json = shown if outcome.ok and observation is outcome.result else None
        dispatcher = self.toolbox.dispatcher
        if dispatcher is not None and dispatcher.shows is not None:  # the system's rendering (an imported runner's)
            shown = dispatcher.shows(observation, outcome.ok, shown)
        self.audit.append(AuditEntry(
            len(self.audit), self.turn, request.name, args, outcome.ok, outcome.result if ok_json is None else None,
            outcome.error, at, before, self._world.content_hash(), op, fault or "", result_json=ok_json,
        ))
        return {"role": "tool", "tool_call_id": call_id, "name": request.name, "content": shown}

    def _faulted(self, fault: FaultKind, outcome: ToolOutcome) -> tuple[Any, ToolOutcome]:
        """The observation and audited outcome of a call hit by an injected fault."""
        assert self.spec.faults is not None
        if fault == "slow":
            return outcome.observation(), outcome
        partial = ""
        if fault == "truncated":  # a read ran; the agent gets only the first part of its response
            text = outcome.shown()
            partial = text[: max(8, len(text) // 3)]
        error = fault_error(fault, self.spec.faults, partial)
        return error, ToolOutcome(False, error=str(error["error"]))

    def _fault_delay(self, fault: FaultKind | None) -> int:
        plan = self.spec.faults
        if plan is None or fault is None:
            return 0
        return {"slow": plan.slow_s, "timeout": plan.timeout_s}.get(fault, 0)

    def _end_turn(self) -> list[dict[str, Any]]:
        nxt = self.turn + 1
        if nxt >= len(self.spec.turns):
            self.done = True
            return []
        turn = self.spec.turns[nxt]
        if isinstance(turn.condition, AfterCall):
            cond = turn.condition.call
            try:
                called = any(e.ok and call_matches(cond, e.tool, e.args) for e in self.audit)
            except (PatternTimeout, PatternRefused):  # a spec pattern too slow on the arguments: not taken as made
                called = False
            if not called:
                self.done = True
                return []
        self.dynamics.advance(turn.advance_s)
        self.dynamics.apply(turn.changes)
        self.turn = nxt
        return [self._user_message(turn)]

    def _user_message(self, turn: UserTurn) -> dict[str, Any]:
        text = turn.content
        if turn.announce:
            text = f"[Notification {format_time(self._world.clock)}] {turn.announce}\n\n{text}"
        return {"role": "user", "content": text}


def _as_json(arguments: dict[str, Any] | str) -> str:
    return arguments if isinstance(arguments, str) else orjson.dumps(arguments).decode()


def _loads_or_empty(text: str) -> dict[str, Any]:
    try:
        value = orjson.loads(text) if text else {}
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}
