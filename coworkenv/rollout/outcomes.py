"""Episode outcomes: an episode the LLM server failed is an infrastructure failure, apart from the model's failures;
so is one whose env's own tool backend failed mid-episode (`env_error`).

Such an episode's score measures the server (or the env), not the model, so summaries leave it out of their means,
and a stage that lost episodes this way reports it (`InfrastructureFailure`) instead of a score.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from coworkenv.llm import LOCAL_EXHAUSTION
from coworkenv.rollout.agent_loop import ENV_ERROR, INFRASTRUCTURE_STOP_REASONS
from coworkenv.rollout.record import TrajectoryRecord

_KIND = re.compile(r"^\[([a-z_]+)\]")


def is_infrastructure_failure(record: TrajectoryRecord) -> bool:
    """True when the episode ended because the LLM server (agent or user simulator) failed after its retries."""
    return record.stop_reason in INFRASTRUCTURE_STOP_REASONS


def split_outcomes(records: Iterable[TrajectoryRecord]) -> tuple[list[TrajectoryRecord], list[TrajectoryRecord]]:
    """(episodes that ran to a model outcome, episodes lost to the LLM server), each in the given order."""
    ran: list[TrajectoryRecord] = []
    lost: list[TrajectoryRecord] = []
    for record in records:
        (lost if is_infrastructure_failure(record) else ran).append(record)
    return ran, lost


def error_kinds(records: Iterable[TrajectoryRecord]) -> dict[str, int]:
    """Lost episodes by the LLM error kind that ended them (unavailable, timeout, server_error, ...)."""
    counts: dict[str, int] = {}
    for record in records:
        match = _KIND.match(record.error)
        kind = match.group(1) if match else record.stop_reason
        counts[kind] = counts.get(kind, 0) + 1
    return dict(sorted(counts.items()))


class InfrastructureFailure(RuntimeError):
    """Episodes lost to the LLM server after its retries, or to their env's tool backend; no score stands for them."""

    def __init__(self, server: str, lost: Sequence[TrajectoryRecord], total: int) -> None:
        self.server = server
        self.lost = list(lost)
        self.total = total
        broken = [r for r in lost if r.stop_reason == ENV_ERROR]
        lost = [r for r in lost if r.stop_reason != ENV_ERROR]
        parts = [env_failure_message(broken, total)] if broken else []
        if lost or not broken:
            kinds = ", ".join(f"{k} {n}" for k, n in error_kinds(lost).items())
            first = lost[0].error if lost else ""
            what = "all" if len(lost) == total else f"{len(lost)} of"
            advice = ("This process ran out, not the server: see the first error, then run again"
                      if lost and all(LOCAL_EXHAUSTION in r.error for r in lost) else
                      "This is a server problem, not a model score: check the server (or raise --llm-timeout / "
                      "--llm-retries) and run again")
            parts.insert(0, f"the LLM server {server} failed {what} {total} episodes after its retries ({kinds}); "
                            f"first error: {first}. {advice}")
        super().__init__("; ".join(parts))


def env_failure_message(broken: Sequence[TrajectoryRecord], total: int) -> str:
    """What a stage says of episodes whose env's tool backend failed mid-episode (`env_error`): listed, unscored."""
    envs = sorted({r.env_id for r in broken})
    what = "all" if len(broken) == total else f"{len(broken)} of"
    return (f"the env's tool backend failed {what} {total} episodes (env_error, in {len(envs)} env(s): "
            f"{', '.join(envs[:5])}{' ...' if len(envs) > 5 else ''}); first error: {broken[0].error}. Not a model "
            "score: they are left out of every mean; fix the env and run them again")
