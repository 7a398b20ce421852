"""The state of one episode of the loop (`agent_loop`): the transcript as the model saw it, per-step records,
token and time accounting, stop conditions, and what the episode ends as (a `TrajectoryRecord` or an `Episode`)."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson

from coworkenv.checks import Reply, VerifierResult
from coworkenv.env import Action, Env, ToolCallRequest
from coworkenv.llm import LLMRequest
from coworkenv.rollout.record import (
    StepRecord,
    Timings,
    TokenCounts,
    TrajectoryRecord,
    environment_hash,
    normalized_transcript_hash,
    openai_message,
    record_id_for,
    trl_message,
)
from coworkenv.rollout.users import UserReply, UserSimulator, user_failure
from coworkenv.spec import VERIFIER_VERSION

MAX_CLARIFICATIONS_PER_TURN = 4
MALFORMED_CALL_NAME = "invalid_tool_call"
# Stop reasons of episodes the LLM server (agent or user simulator) failed after its retries: infrastructure
# failures, not the model's; their score says nothing about the model.
LLM_ERROR = "llm_error"
USER_SIM_ERROR = "user_sim_error"
# The env's own tool backend raised mid-episode (an app operation's bug, an imported service's adapter failing on a
# record): the env's failure, not the model's, so its score stands for nothing either (Claw-Eval's runner records a
# task whose service it cannot run as an error with no trials, out of its scores, and runs it again).
ENV_ERROR = "env_error"
INFRASTRUCTURE_STOP_REASONS = frozenset({LLM_ERROR, USER_SIM_ERROR, ENV_ERROR})
# The model's reply was cut off at max_tokens: the model's failure, with its own stop reason. (So is
# "context_length": the conversation outgrew the model's context.)
REPLY_TRUNCATED = "reply_truncated"
# The spec's wall clock (`EnvSpec.time_limit_s`, an imported benchmark's own) ran out before an assistant message:
# the episode stops and is scored as it stands, as Claw-Eval's loop breaks on its timeout and grades.
TIME_LIMIT = "time_limit"

_NO_TOKENS = dict.fromkeys(("agent_prompt", "agent_completion", "user_prompt", "user_completion"), 0)
_NO_SECONDS = dict.fromkeys(("model", "env", "user"), 0.0)
_NATIVE_NAME = re.compile(r"^tool_calls\[\d+\] \(([^)]+)\)")
_HERMES_NAME = re.compile(r'"name"\s*:\s*"([^"\\]+)"')


@dataclass(frozen=True)
class Episode:
    """What `run_episode` returns: the verifier's result and how the episode ended, without the transcript."""

    env_id: str
    policy: str
    result: VerifierResult
    steps: int
    truncated: bool
    final_hash: str
    robustness: float | None = None  # recovered / failing injected faults; None: none injected
    faults: int = 0  # faults injected (slow responses included)
    stop_reason: str = "done"


@dataclass(slots=True)
class Pending:
    """An assistant message waiting for an interactive user's decision: answer within the turn, or end it."""

    action: Action
    parse_errors: list[str]
    prompt_tokens: int
    completion_tokens: int
    model_s: float
    finish_reason: str


def backend_failure(env: Env, action: Action, done: int, exc: Exception) -> str:
    """The error of an episode whose env raised while it ran `action` (`done` of its calls answered): the env, the
    call and its app (an imported task's service), and what it raised."""
    call = action.tool_calls[done] if done < len(action.tool_calls) else None
    tool = env.toolbox.tool(call.name) if call is not None else None
    where = "the env" if call is None else f"the tool {call.name!r}" + (f" (app {tool.app})" if tool is not None else "")
    return (f"{env.spec.metadata.title or env.spec.capability} ({env.spec.id}): {where} failed mid-episode: "
            f"{type(exc).__name__}: {exc}; the env's failure, not the model's: no score stands for this episode, "
            "run it again once the env is fixed")


@dataclass(slots=True)
class Limits:
    max_steps: int
    max_tokens_total: int


@dataclass(slots=True)
class EpisodeRun:
    """The state of one run: the transcript as the model saw it, per-step records, token and time accounting.

    With `keep_transcript` False (a Policy's episode, with scripted users, that only its outcome is wanted of)
    nothing is recorded, timed or named: the policy's actions go to the Env as they are (the Env numbers their
    calls), so the Env plays the same episode as a recorded run, call ids aside.
    """

    env: Env
    user_sim: UserSimulator
    limits: Limits
    sampling: dict[str, Any]
    teacher: str
    model: str
    sample_index: int
    keep_transcript: bool = True
    taken: int = 0  # assistant messages taken: acted on or answered by the user simulator
    transcript: list[dict[str, Any]] = field(default_factory=list)
    steps: list[StepRecord] = field(default_factory=list)
    tools: list[dict[str, Any]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    tokens: dict[str, int] = field(default_factory=_NO_TOKENS.copy)
    seconds: dict[str, float] = field(default_factory=_NO_SECONDS.copy)
    clarified: dict[int, int] = field(default_factory=dict)
    used_ids: set[str] = field(default_factory=set)
    failure: tuple[str, str] | None = None
    started_at: str = ""
    t0: float = 0.0
    out_of_time: bool = False  # the spec's wall clock ran out (latched: the record says so however late it is made)

    def start(self) -> None:
        # a transcript-free run sends no model request (a Policy acts on the Env): it needs no tool schemas
        messages, info = self.env.reset(tools=self.keep_transcript)
        self.tools = info.get("tools", [])
        if self.keep_transcript:
            self.started_at = datetime.now(UTC).isoformat(timespec="seconds")
            self.t0 = time.perf_counter()
            self.transcript = [trl_message(m) for m in messages]
            self.requests = [m["content"] for m in messages if m["role"] == "user"]

    # -- stop conditions ---------------------------------------------------------------------------------------
    def stop_reason(self) -> str | None:
        if self.failure is not None:
            return self.failure[0]
        if self.env.done:
            return "env_step_limit" if self.env.truncated else "done"
        if self.taken >= self.limits.max_steps:
            return "max_steps"
        if self.tokens["agent_prompt"] + self.tokens["agent_completion"] >= self.limits.max_tokens_total:
            return "token_budget"
        if self.out_of_time or self._past_time_limit():
            self.out_of_time = True
            return TIME_LIMIT
        return None

    def _past_time_limit(self) -> bool:
        """Whether the episode's wall clock, from its start, is past the spec's `time_limit_s` (as Claw-Eval's loop
        checks `elapsed > timeout_seconds` before each model call). Only a recorded run keeps a clock: the
        validation gates' transcript-free episodes play the same calls however slow the machine is."""
        limit = self.env.spec.time_limit_s
        return limit is not None and self.keep_transcript and time.perf_counter() - self.t0 > limit

    def fail(self, reason: str, message: str) -> None:
        self.failure = (reason, message)

    # -- model side ------------------------------------------------------------------------------------------------
    def request(self) -> LLMRequest:
        """The next chat request: the transcript so far, the spec's tools and the sampling parameters."""
        return LLMRequest(
            messages=[openai_message(m) for m in self.transcript],
            tools=self.tools,
            temperature=float(self.sampling.get("temperature", 0.0)),
            max_tokens=int(self.sampling.get("max_tokens", 1024)),
            seed=self.sampling.get("seed"),
        )

    def take(
        self, content: str | None, calls: list[ToolCallRequest], parse_errors: list[str], prompt_tokens: int,
        completion_tokens: int, model_s: float, finish_reason: str,
    ) -> Pending | None:
        """Apply one assistant message; returns it instead when an interactive user must decide first."""
        self.tokens["agent_prompt"] += prompt_tokens
        self.tokens["agent_completion"] += completion_tokens
        self.seconds["model"] += model_s
        calls = [self._unique_id(c) for c in calls]
        if parse_errors:
            calls += [self._unique_id(self._salvaged(e)) for e in parse_errors]
        pending = Pending(Action(content, tuple(calls)), parse_errors, prompt_tokens, completion_tokens, model_s,
                           finish_reason)
        if not calls and self.user_sim.interactive and self.clarified.get(self.env.turn, 0) < MAX_CLARIFICATIONS_PER_TURN \
                and (not getattr(self.user_sim, "opens_turns", False) or  # a simulated user: after the spec's turns
                     self.env.turn >= len(self.env.spec.turns) - 1):
            return pending
        self._act(pending)
        return None

    def act_unrecorded(self, action: Action) -> None:
        """Send a policy's action to the Env as it is (an episode that keeps no transcript)."""
        self.env.step(action)
        self.taken += 1

    def cut_off(self, content: str, parse_errors: list[str], prompt_tokens: int, completion_tokens: int,
                model_s: float) -> None:
        """End the episode on a reply cut off at max_tokens before any whole tool call: kept in the transcript,
        never played (acting on half a sentence or half a call would score a guess)."""
        self.tokens["agent_prompt"] += prompt_tokens
        self.tokens["agent_completion"] += completion_tokens
        self.seconds["model"] += model_s
        self.transcript.append(trl_message({"role": "assistant", "content": content}))
        pending = Pending(Action(content, ()), parse_errors, prompt_tokens, completion_tokens, model_s, "length")
        self._record_step("act", self.env.turn, len(self.transcript) - 1, pending, 0, 0, 0.0)
        self.fail(REPLY_TRUNCATED, f"the model's reply was cut off at max_tokens={self.sampling.get('max_tokens')} "
                                   f"(finish_reason=length, {len(content)} characters, no whole tool call); "
                                   "raise --max-tokens")

    def user_conversation(self, pending: Pending) -> list[dict[str, Any]]:
        """The transcript with the pending assistant message: what the user simulator answers."""
        return [*self.transcript, trl_message({"role": "assistant", "content": pending.action.content or ""})]

    def answer(self, pending: Pending, reply: UserReply, user_s: float) -> None:
        """The user's decision on a pending message: a reply keeps the turn open, None ends it."""
        self.tokens["user_prompt"] += reply.prompt_tokens
        self.tokens["user_completion"] += reply.completion_tokens
        self.seconds["user"] += user_s
        if reply.content is None:
            self._act(pending)
            return
        if getattr(self.user_sim, "opens_turns", False):  # a source benchmark's user: its answer opens a turn
            self._act(pending, reply.content)
            return
        turn = self.env.turn
        self.clarified[turn] = self.clarified.get(turn, 0) + 1
        text = pending.action.content or ""
        if text:  # the verifier reads every reply of a turn, also those the Env never saw
            self.env.replies.append(Reply(turn, text))
        self.transcript.append(trl_message({"role": "assistant", "content": text}))
        self._record_step("clarify", turn, len(self.transcript) - 1, pending, 0, 0, 0.0)
        self.transcript.append(trl_message({"role": "user", "content": reply.content}))

    def user_failed(self, pending: Pending, exc: Exception, user_s: float) -> None:
        """The user simulator gave no answer (its model failed after its backend's retries): the message is played as
        one the user left unanswered, so nothing the agent said is lost and the episode ends where Claw-Eval's
        runner ends it (its user's model failing every try, it takes the user as satisfied and grades); it stops as
        `user_sim_error`, an infrastructure failure, so its score is kept but says nothing about the model."""
        self.seconds["user"] += user_s
        self._act(pending)
        if self.failure is None:  # (the env failing on the message is said first)
            self.fail(USER_SIM_ERROR, user_failure(self.user_sim.name, exc))

    # -- env side ----------------------------------------------------------------------------------------------------
    def _act(self, pending: Pending, answer: str | None = None) -> None:
        env = self.env
        turn, before_messages, before_audit = env.turn, len(env.messages), len(env.audit)
        t = time.perf_counter()
        try:
            if answer is None:
                env.step(pending.action)
            else:  # the message and the simulated user's answer to it (`Env.hear`)
                env.hear(pending.action, answer)
        except Exception as exc:  # the env failed, not the model: the episode ends as an error, with no score
            self.seconds["env"] += time.perf_counter() - t
            self.fail(ENV_ERROR, backend_failure(env, pending.action, len(env.audit) - before_audit, exc))
            return
        env_s = time.perf_counter() - t
        self.seconds["env"] += env_s
        new = [trl_message(m) for m in env.messages[before_messages:]]
        malformed = {c.id: e for c, e in zip(pending.action.tool_calls[-len(pending.parse_errors):],
                                             pending.parse_errors, strict=True)} if pending.parse_errors else {}
        for m in new:
            if m["role"] == "tool" and m["tool_call_id"] in malformed:
                detail = f"could not parse this tool call: {malformed[m['tool_call_id']]}. " \
                         "Call a tool with its name and a JSON object of arguments."
                m["content"] = orjson.dumps({"error": detail}).decode()
            elif m["role"] == "user":
                self.requests.append(m["content"])
        message_index = len(self.transcript)
        self.transcript.extend(new)
        audited = env.audit[before_audit:]
        self._record_step("act", turn, message_index, pending, len(audited), sum(not e.ok for e in audited), env_s)

    def _record_step(self, kind: str, turn: int, message_index: int, pending: Pending, calls: int, errors: int,
                     env_s: float) -> None:
        self.taken += 1
        self.steps.append(StepRecord(
            index=len(self.steps), turn=turn, kind=kind,  # type: ignore[arg-type]
            message_index=message_index, state_hash=self.env.state.content_hash(), tool_calls=calls,
            tool_errors=errors, parse_errors=list(pending.parse_errors), prompt_tokens=pending.prompt_tokens,
            completion_tokens=pending.completion_tokens, model_s=pending.model_s, env_s=env_s,
            finish_reason=pending.finish_reason,
        ))

    def _unique_id(self, call: ToolCallRequest) -> ToolCallRequest:
        # Ids must be unique within a transcript: tool messages and ATIF observations refer to them.
        call_id = call.id
        if not call_id or call_id in self.used_ids:
            call_id = f"call_{self.taken}_{len(self.used_ids)}"
        self.used_ids.add(call_id)
        return call if call_id == call.id else ToolCallRequest(call.name, call.arguments, call_id)

    def _salvaged(self, error: str) -> ToolCallRequest:
        """A call that did not parse, as a call the Env will reject (its arguments are the error, not JSON)."""
        match = _NATIVE_NAME.search(error) or _HERMES_NAME.search(error)
        name = match.group(1) if match and match.group(1) in self.env.toolbox.exposed else MALFORMED_CALL_NAME
        return ToolCallRequest(name, error)

    # -- the outcome -----------------------------------------------------------------------------------------------
    def summary(self) -> Episode:
        """The verifier's result and how the episode ended (all a transcript-free run has)."""
        env = self.env
        report = env.robustness_report()
        return Episode(env.spec.id, self.model, env.score(), env.steps, env.truncated, env.state.content_hash(),
                       report.figure, report.injected, self.stop_reason() or "done")

    def finish(self) -> TrajectoryRecord:
        """The episode's trajectory record (only a run that kept its transcript has one)."""
        if not self.keep_transcript:
            raise RuntimeError("this episode kept no transcript; run it with run_agent to record it")
        env = self.env
        result = env.score()
        reason = self.stop_reason() or "done"
        transcript_hash = normalized_transcript_hash(self.transcript)
        spec = env.spec
        record_id = record_id_for(spec.id, self.teacher, self.model, self.sampling, self.sample_index,
                                  self.user_sim.name, transcript_hash)
        return TrajectoryRecord(
            record_id=record_id, env_id=spec.id, spec_hash=environment_hash(spec), capability=spec.capability,
            turns="multi" if spec.multi_turn else "single", verifier_version=VERIFIER_VERSION,
            verifier_hash=spec.verifier_hash, teacher=self.teacher, model=self.model, sampling=dict(self.sampling),
            sample_index=self.sample_index, user_sim=self.user_sim.name, messages=self.transcript, tools=self.tools,
            steps=self.steps, audit=list(env.audit), replies=list(env.replies), checks=list(result.checks),
            score=result.score, passed=result.passed, stop_reason=reason, truncated=reason != "done",
            initial_hash=env.initial_hash, final_hash=env.state.content_hash(),
            tokens=TokenCounts(**self.tokens),
            timings=Timings(time.perf_counter() - self.t0, self.seconds["model"], self.seconds["env"],
                            self.seconds["user"]),
            started_at=self.started_at, user_turns=env.turn + 1, request="\n\n".join(self.requests),
            error=self.failure[1] if self.failure else "", transcript_hash=transcript_hash,
        )
