"""Rewards from environments for RL: verifier progress per user turn, reward treatments, turn-level advantages.

Every treatment defines one reward per user turn `r_t` (t = 0 .. T-1, T = the spec's user turns) and the episode
reward `R = sum_t r_t`. With `m_t` the verifier metric at the end of turn t (`m_-1 = 0`; a turn the episode did not
reach keeps the last value):

- `binary`:  m = 1 if the episode passes (all required checks) else 0;  r_t = m_t - m_{t-1};  R = pass (0/1).
- `partial`: m = verifier score (weighted fraction of checks);          r_t = m_t - m_{t-1};  R = final score.
- `shaped`:  m = verifier score;  r_t = (T - t) / T * (m_t - m_{t-1});  R = mean_t m_t, so progress made in an
  earlier turn counts for every later turn too (the area under the per-turn progress curve).

Call credit (`call_credit` w, 0 by default; `partial` and `shaped` only): m = s + w * (1 - s) * c, with s the verifier
score and c the share of the reference solution's tool calls the episode made by the end of that turn
(`reference_call_share`: a call to the same tool the env carried out earns half of a reference call, equal arguments
the other half, each reference call matched at most once), 0 once a guard fails that the untouched world passes (the
agent broke something). A guard the untouched world already fails ("the new config keeps every other key" before
there is a new config) says nothing of the calls made, so it does not cancel their credit: before round rl13 it did,
and every episode of such an env earned exactly 0 (10 of the 148 envs of a `make run`, in 3 of 23 capabilities). A
verifier score of 1 stays 1, and
with w below a completion check's weight no amount of call credit outweighs one more check passed; where every
episode of a group scores 0 (a student that never completes the task), the calls still differ, so GRPO has an
advantage to learn from. `binary` never takes it.

Credit assignment: `trajectory` gives every generated token the GRPO advantage of R (TRL computes it); `turn`
gives the tokens of turn t the advantage of r_t, normalised like GRPO within the group of episodes of the same env
and the same turn index (`turn_advantages`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, get_args

from coworkenv.checks import AuditEntry, CheckResult, Reply, VerifierResult, compose
from coworkenv.env import Action, Env, ToolCallRequest
from coworkenv.rollout.record import TrajectoryRecord
from coworkenv.spec import EnvSpec

__all__ = [
    "CREDIT_MODES",
    "REWARD_MODES",
    "CreditMode",
    "RewardMode",
    "ScaleMode",
    "TurnProgress",
    "episode_reward",
    "reference_call_share",
    "turn_advantages",
    "turn_progress",
    "turn_rewards",
]

RewardMode = Literal["binary", "partial", "shaped"]
CreditMode = Literal["trajectory", "turn"]
ScaleMode = Literal["group", "batch", "none"]
REWARD_MODES: tuple[RewardMode, ...] = get_args(RewardMode)
CREDIT_MODES: tuple[CreditMode, ...] = get_args(CreditMode)


@dataclass(frozen=True)
class TurnProgress:
    """The verifier's verdict at the end of each user turn the agent reached (before the next turn's changes)."""

    spec_turns: int
    scores: tuple[float, ...]
    passed: tuple[bool, ...]
    calls: tuple[float, ...] = ()  # share of the reference's tool calls made by the end of each turn (0: a guard failed)

    def metric(self, mode: RewardMode, call_credit: float = 0.0) -> list[float]:
        """m_t for every spec turn: pass flag (binary) or score, plus `call_credit` of the calls made (see the module
        docstring); unreached turns keep the last value."""
        if mode == "binary":
            values = [float(p) for p in self.passed]
        else:
            calls = list(self.calls) + [0.0] * (len(self.scores) - len(self.calls))
            values = [s + call_credit * (1.0 - s) * c for s, c in zip(self.scores, calls, strict=False)]
        last = values[-1] if values else 0.0
        return (values + [last] * self.spec_turns)[: self.spec_turns]


def turn_progress(record: TrajectoryRecord, spec: EnvSpec) -> TurnProgress:
    """Replay the record's assistant messages in a fresh Env and score the state each time the agent ends a turn.

    A turn is scored when the agent's reply ends it, before the next user turn's state changes are applied, so a
    turn is judged on what the agent left. An episode that stopped inside a turn is scored where it stopped.

    A turn before the last is judged by what that turn is meant to have done: the reference solution's state at the
    end of the same turn (`reference_turn_checks`). A guard the reference fails there is not judged yet (it can hold
    only once a later turn's work is there: "the ticket was last changed after the answer", "the new config keeps
    the other keys", "the colleague thanked for the move"), and a completion check earns at most the reference's
    score there (a later turn's work earns nothing before its turn). The last turn, and an episode that stopped
    inside a turn, are judged as the episode is: every check, as written.
    """
    results, stopped, untouched = _turn_results(record, spec)
    due = reference_turn_checks(spec) if len(spec.turns) > 1 else ()
    scores: list[float] = []
    passed: list[bool] = []
    calls: list[float] = []
    for turn, result in enumerate(results[: len(spec.turns)]):
        if turn < len(due) and turn < len(spec.turns) - 1 and not (stopped and turn == len(results) - 1):
            result = compose(spec.scoring, [_as_due(c, due[turn].get(c.id)) for c in result.checks])
        scores.append(result.score)
        passed.append(result.passed)
        made = record.audit if turn == len(results) - 1 else [e for e in record.audit if e.turn <= turn]
        broken = set(result.guards_failed) - untouched  # guards the agent made fail
        calls.append(0.0 if broken else reference_call_share(spec, made))
    return TurnProgress(len(spec.turns), tuple(scores), tuple(passed), tuple(calls))


def reference_call_share(spec: EnvSpec, audit: Sequence[AuditEntry]) -> float:
    """The share of the reference solution's tool calls among the calls the env carried out (`audit` entries that
    are `ok`): per reference call, half for a call to the same tool and half for the same arguments (the share of
    the reference's argument values the call repeats), each made call matched to at most one reference call, the
    best matches first. 0 for a spec whose reference makes no call."""
    wanted = [step.call for turn in spec.reference for step in turn.steps if step.call is not None]
    if not wanted:
        return 0.0
    made = [entry for entry in audit if entry.ok]
    pairs = sorted(((_call_match(ref.name, ref.arguments, entry.tool, entry.args), i, j)
                    for i, ref in enumerate(wanted) for j, entry in enumerate(made)), reverse=True)
    used_ref: set[int] = set()
    used_made: set[int] = set()
    earned = 0.0
    for value, i, j in pairs:
        if value <= 0.0 or i in used_ref or j in used_made:
            continue
        used_ref.add(i)
        used_made.add(j)
        earned += value
    return earned / len(wanted)


def _call_match(name: str, arguments: dict[str, Any], tool: str, args: dict[str, Any]) -> float:
    if tool != name:
        return 0.0
    if not arguments:
        return 1.0
    same = sum(1 for key, value in arguments.items() if key in args and args[key] == value)
    return 0.5 + 0.5 * same / len(arguments)


def reference_turn_checks(spec: EnvSpec) -> tuple[dict[str, CheckResult], ...]:
    """Each turn's check results of the spec's reference solution at the end of that turn (the oracle's episode,
    replayed as `turn_progress` replays any record), computed once per spec object; none where the reference does
    not pass its own checks at the end."""
    cached = _REFERENCE_TURNS.get(id(spec))
    if cached is not None and cached[0] is spec:  # the entry holds the spec, so its id is not reused while cached
        return cached[1]
    from coworkenv.agents import OraclePolicy  # the oracle teacher: loaded only where a spec has several turns
    from coworkenv.rollout import run_agent

    results, stopped, _ = _turn_results(run_agent(Env(spec), OraclePolicy(spec)), spec)
    # A reference that does not pass its own checks (none written, as an import without one) says nothing of what a
    # turn is meant to do: every turn is then judged as written.
    sound = not stopped and bool(results) and results[-1].passed
    turns = tuple({c.id: c for c in r.checks} for r in results) if sound else ()
    if len(_REFERENCE_TURNS) >= _REFERENCE_CACHE_SIZE:
        _REFERENCE_TURNS.pop(next(iter(_REFERENCE_TURNS)))
    _REFERENCE_TURNS[id(spec)] = (spec, turns)
    return turns


_REFERENCE_CACHE_SIZE = 256
_REFERENCE_TURNS: dict[int, tuple[EnvSpec, tuple[dict[str, CheckResult], ...]]] = {}


def _as_due(check: CheckResult, reference: CheckResult | None) -> CheckResult:
    """A check's result at the end of a turn before the last, judged against the reference's at that turn."""
    if reference is None:  # the reference did not reach this turn's end: judged as written
        return check
    if check.is_guard:
        return check if reference.passed else replace(check, passed=True, score=1.0, reason="")
    ceiling = reference.score if reference.score is not None else float(reference.passed)
    if (check.score or 0.0) <= ceiling:
        return check if reference.passed or not check.passed else replace(check, passed=False)
    return replace(check, passed=check.passed and reference.passed, score=ceiling,
                   reason=check.reason or "a later turn's work: earns no more than the reference's by this turn")


def _turn_results(record: TrajectoryRecord, spec: EnvSpec) -> tuple[list[VerifierResult], bool, set[str]]:
    """The verifier's results each time the record's agent ended a turn, whether the last one is where the
    episode stopped inside a turn (step or token budget), and the guards the untouched world fails."""
    env = Env(spec, max_steps=len(record.steps) + 1)  # the replay takes exactly the recorded steps
    env.reset(tools=False)
    untouched = set(env.score().guards_failed)
    results: list[VerifierResult] = []
    for step in record.steps:
        message = record.messages[step.message_index]
        if step.kind == "clarify":  # answered by an interactive user within the turn: a reply, no env step
            if message["content"]:
                env.replies.append(Reply(step.turn, message["content"]))
            continue
        if env.done:
            break
        calls = tuple(ToolCallRequest(c["function"]["name"], c["function"]["arguments"], c["id"])
                      for c in message["tool_calls"])
        if not calls:
            replies = [*env.replies, Reply(env.turn, message["content"])] if message["content"] else env.replies
            results.append(env.verifier.score(env.state, env.audit, replies))
        env.step(Action(message["content"] or None, calls))
    stopped = not env.done or not results
    if stopped:  # stopped inside a turn: score where it stopped
        results.append(env.score())
    return results, stopped, untouched


def turn_rewards(progress: TurnProgress, mode: RewardMode, call_credit: float = 0.0) -> list[float]:
    """r_t for every spec turn (see the module docstring); they sum to `episode_reward`."""
    if mode not in REWARD_MODES:
        raise ValueError(f"unknown reward treatment {mode!r}; use one of {', '.join(REWARD_MODES)}")
    if not 0.0 <= call_credit <= 1.0:
        raise ValueError(f"call_credit must be in [0, 1], got {call_credit}")
    metric = progress.metric(mode, call_credit)
    turns = progress.spec_turns
    gains = [m - (metric[t - 1] if t else 0.0) for t, m in enumerate(metric)]
    if mode == "shaped":
        return [(turns - t) / turns * g for t, g in enumerate(gains)]
    return gains


def episode_reward(progress: TurnProgress, mode: RewardMode, call_credit: float = 0.0) -> float:
    """R: pass (binary), final score (partial) or mean per-turn score (shaped), with the call credit."""
    return math.fsum(turn_rewards(progress, mode, call_credit))


def turn_advantages(
    rewards: Sequence[Sequence[float]], group_size: int, scale: ScaleMode = "group", eps: float = 1e-4
) -> list[list[float]]:
    """GRPO advantages per (episode, turn): r_t minus its group mean for that turn, over the std when scaled.

    `rewards` holds one list of per-turn rewards per episode, groups of `group_size` consecutive episodes (the
    samples of one env, as GRPOTrainer orders them). Episodes of a group may have different numbers of turns
    (different specs never share a group); a missing turn counts as reward 0. `scale`: `group` divides by the
    group's std for that turn, `batch` by the std of that turn over the whole batch, `none` not at all (TRL's
    `scale_rewards`). The std is the unbiased one, as in TRL.
    """
    if group_size < 1 or len(rewards) % group_size:
        raise ValueError(f"{len(rewards)} episodes do not split into groups of {group_size}")
    width = max((len(r) for r in rewards), default=0)
    table = [[float(r[t]) if t < len(r) else 0.0 for t in range(width)] for r in rewards]
    out = [[0.0] * len(r) for r in rewards]
    batch_std = [_std([row[t] for row in table]) for t in range(width)]
    for start in range(0, len(table), group_size):
        group = table[start:start + group_size]
        for t in range(width):
            column = [row[t] for row in group]
            mean = math.fsum(column) / len(column)
            std = _std(column) if scale == "group" else batch_std[t]
            for offset, value in enumerate(column):
                if t < len(out[start + offset]):
                    advantage = value - mean
                    out[start + offset][t] = advantage / (std + eps) if scale != "none" else advantage
    return out


def _std(values: Sequence[float]) -> float:
    if len(values) < 2:
        return 0.0
    mean = math.fsum(values) / len(values)
    return math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1))
