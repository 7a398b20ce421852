"""Teachers: who produces the demonstrations. `oracle` (embedded default) narrates the reference solution;
`llm` samples k episodes per env from any backend (rejection sampling: every sample is kept with its pass
flag and sampling parameters, curation keeps the passing ones).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from coworkenv.env import DEFAULT_MAX_STEPS as ENV_MAX_STEPS
from coworkenv.env import Env
from coworkenv.limits import DEFAULT_LLM_K, DEFAULT_ORACLE_K, DEFAULT_SAMPLED_TEMPERATURE
from coworkenv.llm import LLMBackend, run_sync
from coworkenv.rollout.agent_loop import (
    DEFAULT_MAX_STEPS,
    DEFAULT_MAX_TOKENS_TOTAL,
    DEFAULT_SAMPLING,
    arun_agent,
    close_backends,
    run_agent,
)
from coworkenv.rollout.narration import NarratedOracle
from coworkenv.rollout.record import TrajectoryRecord
from coworkenv.rollout.users import UserSimulator
from coworkenv.spec import EnvSpec

# The teachers' defaults (defined in coworkenv.limits): `coworkenv rollout`, the teacher_trajectories asset and
# evaluation use these.

Progress = Callable[[int, int], None]  # (specs done, specs total)
UserSimFactory = Callable[[EnvSpec], UserSimulator]


class Teacher(Protocol):
    """Produces trajectory records for one environment."""

    name: str

    def run(self, spec: EnvSpec) -> list[TrajectoryRecord]:
        """Run the teacher in `spec`; one record per episode."""
        ...


class OracleTeacher:
    """Plays the reference solution with natural assistant messages; phrasing varies with the seed.

    `k` > 1 gives k differently phrased episodes per env (seeds `seed` .. `seed + k - 1`). `terse` drops the
    narration and `grounded` makes the oracle list or search before a call that writes a value it has not seen
    (both: see `NarratedOracle`).
    """

    name = "oracle"

    def __init__(self, seed: int = 0, *, k: int = DEFAULT_ORACLE_K, terse: bool = False, grounded: bool = True) -> None:
        if k < 1:
            raise ValueError(f"k must be at least 1 episode per environment, got {k}")
        self.seed = seed
        self.k = k
        self.terse = terse
        self.grounded = grounded

    def run(self, spec: EnvSpec) -> list[TrajectoryRecord]:
        """The narrated reference solution, scored by the verifier (k episodes)."""
        # Room for every reference step, a final message per turn, and slack for turns past the reference.
        budget = sum(len(t.steps) + 1 for t in spec.reference) + len(spec.turns) + 4
        if self.grounded:  # room for the discovery calls too
            budget += NarratedOracle.MAX_DISCOVERY * sum(len(t.steps) for t in spec.reference)
        records = []
        env = Env(spec, max_steps=max(ENV_MAX_STEPS, budget))  # reset() rewinds it for every sample
        for index in range(self.k):
            seed = self.seed + index
            policy = NarratedOracle(spec, seed, terse=self.terse, grounded=self.grounded)
            records.append(run_agent(env, policy, max_steps=max(DEFAULT_MAX_STEPS, budget),
                                     sampling={"seed": seed}, teacher=self.name, sample_index=index))
        return records


class LLMTeacher:
    """k sampled episodes per environment from an LLM backend, all run concurrently on one event loop.

    Sample i uses `sampling` with `seed + i` (when a seed is given), so the k samples differ and can be
    reproduced. Every episode is returned with its `passed` flag; nothing is dropped here.
    """

    name = "llm"

    def __init__(
        self, backend: LLMBackend, k: int = DEFAULT_LLM_K, sampling: dict[str, Any] | None = None, *,
        user_sim: UserSimFactory | None = None, max_steps: int = DEFAULT_MAX_STEPS,
        max_tokens_total: int = DEFAULT_MAX_TOKENS_TOTAL, max_episodes_in_flight: int = 256,
    ) -> None:
        if k < 1:
            raise ValueError(f"k must be at least 1 sample per environment, got {k}")
        self.backend = backend
        self.k = k
        self.sampling = {**DEFAULT_SAMPLING, "temperature": DEFAULT_SAMPLED_TEMPERATURE, **(sampling or {})}
        self.user_sim = user_sim
        self.max_steps = max_steps
        self.max_tokens_total = max_tokens_total
        self.max_episodes_in_flight = max_episodes_in_flight

    def sample_params(self, index: int) -> dict[str, Any]:
        """The sampling parameters of sample `index`."""
        params = dict(self.sampling)
        if params.get("seed") is not None:
            params["seed"] = int(params["seed"]) + index
        return params

    async def _episode(self, spec: EnvSpec, index: int) -> TrajectoryRecord:
        user = self.user_sim(spec) if self.user_sim else None
        return await arun_agent(
            Env(spec, max_steps=max(ENV_MAX_STEPS, self.max_steps)), self.backend, max_steps=self.max_steps,
            max_tokens_total=self.max_tokens_total, user_sim=user, sampling=self.sample_params(index),
            teacher=self.name, sample_index=index,
        )

    async def arun_many(self, specs: Sequence[EnvSpec], progress: Progress | None = None) -> list[TrajectoryRecord]:
        """k episodes for every spec, at most `max_episodes_in_flight` at a time, in (spec, sample) order."""
        gate = asyncio.Semaphore(self.max_episodes_in_flight)
        left = [self.k] * len(specs)
        done = 0

        async def one(position: int, index: int) -> TrajectoryRecord:
            nonlocal done
            async with gate:
                record = await self._episode(specs[position], index)
            left[position] -= 1
            if left[position] == 0:
                done += 1
                if progress is not None:
                    progress(done, len(specs))
            return record

        jobs = [one(position, index) for position in range(len(specs)) for index in range(self.k)]
        return list(await asyncio.gather(*jobs))

    def run_many(self, specs: Sequence[EnvSpec], progress: Progress | None = None) -> list[TrajectoryRecord]:
        """`arun_many` from sync code; closes the backend's connections afterwards."""

        async def main() -> list[TrajectoryRecord]:
            try:
                return await self.arun_many(specs, progress)
            finally:
                await close_backends(self.backend)

        return run_sync(main)

    def run(self, spec: EnvSpec) -> list[TrajectoryRecord]:
        """k episodes in `spec`, passing or not."""
        return self.run_many([spec])


def rollout_specs(
    specs: Iterable[EnvSpec], teacher: Teacher, progress: Progress | None = None
) -> list[TrajectoryRecord]:
    """Run `teacher` in every spec; concurrent for teachers that support it (`run_many`), else one by one."""
    specs = list(specs)
    run_many = getattr(teacher, "run_many", None)
    if run_many is not None:
        return list(run_many(specs, progress))
    records: list[TrajectoryRecord] = []
    for done, spec in enumerate(specs, start=1):
        records.extend(teacher.run(spec))
        if progress is not None:
            progress(done, len(specs))
    return records
