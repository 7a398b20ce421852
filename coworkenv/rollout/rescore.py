"""Re-scoring stored runs when a verifier changes: replay the recorded assistant messages in a fresh Env
(the same tool calls, in the same grouping, and the same replies) and score the final state again.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

from coworkenv.checks import Reply
from coworkenv.env import Action, Env, ToolCallRequest
from coworkenv.rollout.record import TrajectoryRecord, environment_hash
from coworkenv.spec import VERIFIER_VERSION, EnvSpec


class ReplayError(RuntimeError):
    """A stored run cannot be replayed faithfully in the given spec."""


def needs_rescore(record: TrajectoryRecord, spec: EnvSpec) -> bool:
    """True when the record was scored by another verifier (version or checks) than `spec`'s."""
    return record.verifier_version != VERIFIER_VERSION or record.verifier_hash != spec.verifier_hash


def replay(record: TrajectoryRecord, spec: EnvSpec) -> Env:
    """A fresh Env of `spec` after replaying the record's assistant messages; its final state must match."""
    if environment_hash(spec) != record.spec_hash:
        raise ReplayError(
            f"record {record.record_id} ran in environment {record.spec_hash}, but this spec's environment is "
            f"{environment_hash(spec)}: only checks may differ for a re-score; run the teacher again instead"
        )
    # No step limit of its own: the replay must take exactly the recorded steps.
    env = Env(spec, max_steps=len(record.steps) + 1)
    env.reset()
    for step in record.steps:
        message = record.messages[step.message_index]
        if step.kind == "clarify":
            if message["content"]:
                env.replies.append(Reply(step.turn, message["content"]))
            continue
        if env.done:
            raise ReplayError(f"record {record.record_id}: the episode ended before step {step.index}")
        calls = tuple(ToolCallRequest(c["function"]["name"], c["function"]["arguments"], c["id"])
                      for c in message["tool_calls"])
        after = record.messages[step.message_index + 1] if step.message_index + 1 < len(record.messages) else None
        if not calls and spec.simulated_user is not None and after is not None and after["role"] == "user" and \
                env.turn >= len(spec.turns) - 1:  # the simulated user's answer, which opened the next turn
            env.hear(Action(message["content"] or None, ()), after["content"])
            continue
        env.step(Action(message["content"] or None, calls))
    final = env.state.content_hash()
    if final != record.final_hash:
        raise ReplayError(
            f"record {record.record_id}: replay ended in state {final[:12]}, the record in {record.final_hash[:12]}; "
            "the world or tool code changed since the run, so it cannot be re-scored"
        )
    return env


def rescore(record: TrajectoryRecord, spec: EnvSpec) -> TrajectoryRecord:
    """The record scored by `spec`'s current verifier (checks, score, pass, verifier version and hash)."""
    result = replay(record, spec).score()
    return dataclasses.replace(
        record, env_id=spec.id, verifier_version=VERIFIER_VERSION, verifier_hash=spec.verifier_hash,
        checks=list(result.checks), score=result.score, passed=result.passed,
    )


def rescore_all(
    records: Iterable[TrajectoryRecord], specs_by_env: Mapping[str, EnvSpec]
) -> tuple[list[TrajectoryRecord], int]:
    """Re-score the records whose verifier changed; returns (records, how many were re-scored).

    `specs_by_env` maps a record's env id (the spec id at rollout time) to the current spec.
    """
    out, changed = [], 0
    for record in records:
        spec = specs_by_env.get(record.env_id)
        if spec is None:
            raise KeyError(f"no spec for env {record.env_id} (record {record.record_id}); pass the specs the "
                           "trajectories were rolled out in, keyed by their original id")
        if needs_rescore(record, spec):
            record, changed = rescore(record, spec), changed + 1
        out.append(record)
    return out, changed

