"""The episode loop: every episode in coworkenv runs here, whoever acts and whoever reads the result.

An agent is a `Policy` (sync, reads the Env: the oracle, noop, scripted agents) or an LLM backend (async: any chat
model with OpenAI-style tool calling). The Env gives the system prompt, the spec's tools, the user turns and the
world's dynamics between them; a user simulator may answer within a turn. The loop (`_play`) runs one assistant
message at a time and stops when the episode ends, at the step limit, at the token budget, past the spec's wall
clock (`time_limit_s`, recorded runs only) or when an LLM server fails. Tool calls are read from native `tool_calls` or, as a fallback, from Qwen/hermes `<tool_call>` text; a call
that does not parse still reaches the Env (so it is audited as a failed call) and its tool message says what was
wrong.

Three entry points share `_play`:
- `arun_agent` / `run_agent` record the episode as a `TrajectoryRecord` (the transcript as the model saw it, steps,
  tokens, timings): teachers, RL rollouts, evaluation, `coworkenv env run`.
- `run_episode` plays a Policy and keeps no transcript, only an `Episode` summary: the validation gates, which play
  ~20 episodes per spec and read the Env itself. The Env plays the same episode as under `run_agent` (only the
  call ids differ: a run without a transcript lets the Env number the calls).
A Policy with scripted users never awaits anything, so its episodes run without an event loop.
"""

from __future__ import annotations

import time
from collections.abc import Coroutine
from typing import Any, TypeVar

from coworkenv.agents import Policy
from coworkenv.env import Env, ToolCallRequest
from coworkenv.limits import DEFAULT_EPISODE_STEPS
from coworkenv.llm import LLMBackend, LLMError, is_infrastructure_error, parse_tool_calls, run_sync
from coworkenv.rollout._episode_run import (
    ENV_ERROR,
    INFRASTRUCTURE_STOP_REASONS,
    LLM_ERROR,
    REPLY_TRUNCATED,
    TIME_LIMIT,
    USER_SIM_ERROR,
    Episode,
    EpisodeRun,
    Limits,
    Pending,
)
from coworkenv.rollout.record import TrajectoryRecord
from coworkenv.rollout.users import ScriptedUser, UserSimulator, spec_user

# The episode's budgets, defined here once; the teachers, `coworkenv rollout`, `coworkenv eval` and
# `trainers.evaluate` take their defaults from these.
DEFAULT_MAX_STEPS = DEFAULT_EPISODE_STEPS  # assistant messages per episode (coworkenv.limits)
DEFAULT_MAX_TOKENS_TOTAL = 200_000  # the agent's prompt + completion tokens over the whole episode
DEFAULT_SAMPLING: dict[str, Any] = {"temperature": 0.0, "max_tokens": 1024}
T = TypeVar("T")
_SCRIPTED_USER = ScriptedUser()  # stateless: the spec's turns, as the Env plays them

__all__ = [
    "DEFAULT_MAX_STEPS",
    "DEFAULT_MAX_TOKENS_TOTAL",
    "DEFAULT_SAMPLING",
    "ENV_ERROR",
    "INFRASTRUCTURE_STOP_REASONS",
    "LLM_ERROR",
    "REPLY_TRUNCATED",
    "TIME_LIMIT",
    "USER_SIM_ERROR",
    "Episode",
    "arun_agent",
    "close_backends",
    "is_backend",
    "run_agent",
    "run_episode",
]


def is_backend(model: object) -> bool:
    """True for an LLM backend (has `complete`), False for a Policy (has `act`)."""
    return callable(getattr(model, "complete", None))


def _episode(
    env: Env, model: LLMBackend | Policy, user_sim: UserSimulator | None, max_steps: int, max_tokens_total: int,
    sampling: dict[str, Any] | None, teacher: str | None, sample_index: int, keep_transcript: bool = True,
) -> EpisodeRun:
    backend = is_backend(model)
    return EpisodeRun(
        env=env, user_sim=user_sim or _SCRIPTED_USER, limits=Limits(max_steps, max_tokens_total),
        sampling={**DEFAULT_SAMPLING, **(sampling or {})} if backend else dict(sampling or {}),
        teacher=teacher or ("llm" if backend else model.name), model=model.name, sample_index=sample_index,
        keep_transcript=keep_transcript,
    )


def _policy_step(ep: EpisodeRun, policy: Policy) -> Pending | None:
    if not ep.keep_transcript:  # nothing to time, name or record (the validation gates' ~20 episodes per spec)
        ep.act_unrecorded(policy.act(ep.env))
        return None
    t = time.perf_counter()
    action = policy.act(ep.env)
    return ep.take(action.content, list(action.tool_calls), [], 0, 0, time.perf_counter() - t, "policy")


async def _model_step(ep: EpisodeRun, backend: LLMBackend) -> Pending | None:
    t = time.perf_counter()
    try:
        response = await backend.complete(ep.request())
    except LLMError as exc:
        # The server's failures are infrastructure (llm_error); the model's own limits keep their kind.
        ep.fail(LLM_ERROR if is_infrastructure_error(exc.kind) else exc.kind, str(exc))
        return None
    model_s = time.perf_counter() - t
    native = [c.to_openai() for c in response.tool_calls]
    text, calls, errors = parse_tool_calls(response.content, native)
    if response.truncated and not calls:
        ep.cut_off(text or "", [*response.tool_call_errors, *errors], response.prompt_tokens,
                   response.completion_tokens, model_s)
        return None
    requests = [ToolCallRequest(c.name, c.arguments, c.id) for c in calls]
    return ep.take(text, requests, [*response.tool_call_errors, *errors], response.prompt_tokens,
                   response.completion_tokens, model_s, response.finish_reason or "")


async def _play(ep: EpisodeRun, agent: LLMBackend | Policy) -> None:
    """THE episode loop: reset, then one assistant message at a time until a stop reason holds."""
    ep.start()
    backend = is_backend(agent)
    while ep.stop_reason() is None:
        pending = await _model_step(ep, agent) if backend else _policy_step(ep, agent)  # type: ignore[arg-type]
        if pending is None:  # acted on (or the episode failed): the Env moved on
            continue
        t = time.perf_counter()
        try:
            reply = await ep.user_sim.respond(ep.user_conversation(pending), ep.env.turn)
        except Exception as exc:  # its model's server after the retries, or the simulator's own failure: not the agent's
            ep.user_failed(pending, exc, time.perf_counter() - t)
            break
        ep.answer(pending, reply, time.perf_counter() - t)


def _needs_event_loop(agent: LLMBackend | Policy, user_sim: UserSimulator | None) -> bool:
    """Whether an episode awaits anything: an LLM agent or an interactive user simulator does."""
    return is_backend(agent) or bool(user_sim and user_sim.interactive)


def _without_event_loop(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that never suspends (a Policy with scripted users) to its end, with no event loop."""
    try:
        coroutine.send(None)
    except StopIteration as finished:
        return finished.value  # type: ignore[no-any-return]
    coroutine.close()
    raise RuntimeError("the episode awaited an LLM; run it with arun_agent or run_agent")


async def arun_agent(
    env: Env, model: LLMBackend | Policy, *, max_steps: int = DEFAULT_MAX_STEPS,
    max_tokens_total: int = DEFAULT_MAX_TOKENS_TOTAL, user_sim: UserSimulator | None = None,
    sampling: dict[str, Any] | None = None, teacher: str | None = None, sample_index: int = 0,
) -> TrajectoryRecord:
    """Run one episode on the running event loop (see `run_agent`); many run concurrently with asyncio.gather."""
    ep = _episode(env, model, user_sim if user_sim is not None or not is_backend(model) else spec_user(env.spec),
                  max_steps, max_tokens_total, sampling, teacher, sample_index)
    await _play(ep, model)
    return ep.finish()


def run_agent(
    env: Env, model: LLMBackend | Policy, *, max_steps: int = DEFAULT_MAX_STEPS,
    max_tokens_total: int = DEFAULT_MAX_TOKENS_TOTAL, user_sim: UserSimulator | None = None,
    sampling: dict[str, Any] | None = None, teacher: str | None = None, sample_index: int = 0,
) -> TrajectoryRecord:
    """Reset `env` and let `model` (an LLM backend or a Policy) act until the episode ends; return its record.

    Stops when the Env is done, after `max_steps` assistant messages, once the agent used `max_tokens_total`
    prompt + completion tokens, or, before an assistant message, once the episode ran past the spec's
    `time_limit_s` seconds (stop reason `time_limit`, scored as it stands). `sampling` (temperature, max_tokens, seed) goes to every model request and
    into the record. `user_sim` defaults to the spec's scripted turns.
    """
    if user_sim is None and is_backend(model):  # the spec's own simulated user, if it has one
        user_sim = spec_user(env.spec)
    if not _needs_event_loop(model, user_sim):  # the oracle teacher's fast path: no event loop to start
        return _without_event_loop(arun_agent(env, model, max_steps=max_steps, max_tokens_total=max_tokens_total,
                                              user_sim=user_sim, sampling=sampling, teacher=teacher,
                                              sample_index=sample_index))

    async def main() -> TrajectoryRecord:
        try:
            return await arun_agent(env, model, max_steps=max_steps, max_tokens_total=max_tokens_total,
                                    user_sim=user_sim, sampling=sampling, teacher=teacher, sample_index=sample_index)
        finally:
            await close_backends(model, getattr(user_sim, "backend", None))

    return run_sync(main)


def run_episode(env: Env, policy: Policy, *, max_steps: int | None = None) -> Episode:
    """Reset `env` and let `policy` act until the episode ends; return the verifier's result, keeping no transcript.

    The same loop as `run_agent`, for callers that read the outcome (and the Env) only, like the validation gates.
    `max_steps` defaults to the Env's own step limit.
    """
    limit = env.max_steps if max_steps is None else max_steps
    ep = _episode(env, policy, None, limit, DEFAULT_MAX_TOKENS_TOTAL, None, None, 0, keep_transcript=False)
    _without_event_loop(_play(ep, policy))
    return ep.summary()


async def close_backends(*backends: object) -> None:
    """Close the HTTP connections backends opened on this event loop (those that have `aclose`)."""
    for backend in backends:
        close = getattr(backend, "aclose", None)
        if close is not None:
            await close()
