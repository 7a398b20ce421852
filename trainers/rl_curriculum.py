"""Which envs an RL run should train on: those where the starting policy's reward varies.

GRPO learns from differences within a group of episodes of one env: a group whose rewards are all equal (every
episode fails, or every one passes) has zero advantage everywhere and gives no gradient. A weak student fails most
envs in every sample, so an RL run over envs drawn blindly spends most of its steps on such groups; with a
2-million-parameter student every group of the first comparison scored 0 and nothing was learned
(`frac_reward_zero_std` 1.0 at every step, docs/learning.md).

`learnable_envs` samples the starting checkpoint a few times per candidate env, at the RL rollout's temperature,
and keeps the envs where the samples' verifier scores differ. This is DAPO's dynamic sampling (drop prompts whose
group has zero reward variance) done once, before training, so the same filter serves every variant and seed of a
comparison. It selects envs, never episodes: every reward is still the verifier's score of a fresh rollout.

With `per_capability`, no capability fills more than that many places while another may still fill one: a weak
student's reward varies most often in its easiest capability (all four envs of L12's curriculum were single-turn
lookups), and a curriculum of one single-turn capability makes the reward treatments and credit modes of a
comparison coincide (`shaped` is `partial`, `turn` is `trajectory`, on one turn). Places other capabilities leave
empty once every candidate is probed go to the next varying envs in probe order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from coworkenv.llm import LLMBackend
from coworkenv.rollout.record import TrajectoryRecord
from coworkenv.spec import EnvSpec
from trainers.evaluate import evaluate

__all__ = ["Curriculum", "EnvProbe", "learnable_envs"]


@dataclass(frozen=True)
class EnvProbe:
    """The verifier scores of the starting policy's samples in one env."""

    env_id: str
    capability: str
    scores: tuple[float, ...]

    @property
    def varies(self) -> bool:
        return max(self.scores) > min(self.scores)

    @property
    def mean(self) -> float:
        return sum(self.scores) / len(self.scores)


@dataclass(frozen=True)
class Curriculum:
    """The envs kept (in the order probed; envs over their capability's quota last) and what the probe saw in every
    candidate."""

    kept: list[EnvSpec]
    probes: list[EnvProbe]
    samples: int
    temperature: float

    def to_dict(self) -> dict[str, Any]:
        kept = {spec.id for spec in self.kept}
        return {"samples": self.samples, "temperature": self.temperature, "probed": len(self.probes),
                "kept": [spec.id for spec in self.kept],
                "kept_mean_score": round(sum(p.mean for p in self.probes if p.env_id in kept) / len(kept), 4)
                if kept else None,
                "probes": [{**asdict(p), "scores": list(p.scores)} for p in self.probes]}


def learnable_envs(
    model: LLMBackend, candidates: Sequence[EnvSpec], *, samples: int, temperature: float, limit: int,
    max_tokens: int, max_steps: int, chunk: int = 4, per_capability: int | None = None,
    log: Callable[[str], None] | None = None,
) -> Curriculum:
    """Sample `model` `samples` times in each of `candidates` (in order) and keep up to `limit` envs whose scores
    differ, at most `per_capability` of one capability while places remain for others. Probing stops once `limit`
    envs are kept."""
    if samples < 2:
        raise ValueError(f"at least 2 samples per env are needed to see whether the reward varies, got {samples}")
    if temperature <= 0:
        raise ValueError(f"greedy samples (temperature {temperature}) never differ; use the RL rollout temperature")
    if per_capability is not None and per_capability < 1:
        raise ValueError(f"per_capability must be at least 1 (or None for no quota), got {per_capability}")
    quota = per_capability if per_capability is not None else limit
    kept: list[EnvSpec] = []
    overflow: list[EnvSpec] = []  # varying envs of a capability that had filled its quota, in probe order
    probes: list[EnvProbe] = []
    for first in range(0, len(candidates), chunk):
        batch = list(candidates[first:first + chunk])
        records: list[TrajectoryRecord] = []
        evaluate(model, batch, samples, temperature=temperature, max_tokens=max_tokens, max_steps=max_steps,
                 concurrency=1, records=records)
        for spec in batch:
            scores = tuple(r.score for r in records if r.env_id == spec.id)
            probe = EnvProbe(spec.id, spec.capability, scores)
            probes.append(probe)
            if not probe.varies or len(kept) >= limit:
                continue
            if sum(s.capability == spec.capability for s in kept) < quota:
                kept.append(spec)
            else:
                overflow.append(spec)
        if log is not None:
            log(f"rl curriculum: {len(kept)} of {len(probes)} envs probed have a varying reward and a place"
                + (f" ({len(overflow)} more over their capability's quota of {quota})" if overflow else ""))
        if len(kept) >= limit:
            break
    kept.extend(overflow[: limit - len(kept)])
    return Curriculum(kept, probes, samples, temperature)
