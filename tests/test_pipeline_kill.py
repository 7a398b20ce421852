"""`python -m pipelines.run` killed with SIGKILL at every stage boundary and mid-stage, then run again: the published
dataset is the one an uninterrupted run publishes (nothing missing, nothing duplicated) and no run hangs.

Two capabilities with one spec each, no training. The pipeline runs in forked children (the imports are paid
once); a child is killed by replacing a library function the assets call with one that SIGKILLs the child's process
group before or after doing its work. The scenarios run in order on one instance; each one changes the seed (every
partition is stale) or the held-out capability (only the aggregates are), so the killed run has work to do.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import dagster as dg
import pytest

from tests.support.pipeline_child import Patch, Workspace, make_workspace

pytestmark = pytest.mark.timeout(400)

CAPABILITIES = ("inbox_triage_reply", "report_from_data")
SPECS = 1


@dataclass(frozen=True)
class KillPoint:
    """Where to kill (see `Patch`), and the run's `seed` and `held_out` capability: a new seed makes every
    partition stale, a new held-out capability only the aggregates."""

    label: str
    patch: Patch
    seed: int
    held_out: str = ""


FIRST, LAST = CAPABILITIES
STAGE_WRITER = "coworkenv.store.stages._stage"  # every stage table is stored through its write_table
KILL_POINTS = [
    KillPoint("after task_specs", Patch("coworkenv.validate", "validate_and_repair", "before"), seed=0),
    KillPoint("mid validated_envs (file written, not recorded)",
              Patch(STAGE_WRITER, "write_table", "after", dataset="validated_envs"), seed=1),
    KillPoint("between the capability runs", Patch("coworkenv.synth", "generate_specs", "before", nth=2), seed=0),
    KillPoint("mid teacher_trajectories of the last capability",
              Patch(STAGE_WRITER, "write_table", "after", nth=2, dataset="teacher_trajectories"), seed=1),
    KillPoint("after validated_envs", Patch("coworkenv.rollout", "rollout_specs", "before"), seed=0),
    KillPoint("after the capability runs, before sft_shards", Patch("coworkenv.curate", "curate", "before"), seed=0,
              held_out=FIRST),
    KillPoint("mid sft_shards (files written, not recorded)",
              Patch(STAGE_WRITER, "write_table", "after", dataset="sft_shards"), seed=0),
    KillPoint("mid hub_dataset, before publishing", Patch("coworkenv.store", "release_version", "after"), seed=0,
              held_out=FIRST),
    KillPoint("mid hub_dataset, published but not recorded",
              Patch("coworkenv.store", "LocalGitPublisher.publish", "after"), seed=0),
    KillPoint("mid hub_dataset publish (some files copied into the repository, nothing committed)",
              Patch("coworkenv.store._local_git", "atomic_copy", "after", nth=1), seed=2),  # a version no point published
]


class Baselines:
    """What uninterrupted runs publish, per (seed, held-out capability), computed on first use."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.found: dict[tuple[int, str], dict[str, Any]] = {}

    def __getitem__(self, key: tuple[int, str]) -> dict[str, Any]:
        if key not in self.found:
            code, console = self.workspace.run(*key)
            assert code == 0, console
            self.found[key] = self.workspace.published()
            assert {len(v) for v in self.found[key]["rows"].values()} == {SPECS * len(CAPABILITIES)}
        return self.found[key]


@pytest.fixture(scope="module")
def baselines(tmp_path_factory: pytest.TempPathFactory) -> Baselines:
    return Baselines(make_workspace(tmp_path_factory.mktemp("baseline"), CAPABILITIES, SPECS))


@pytest.fixture(scope="module")
def killed_workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    yield make_workspace(tmp_path_factory.mktemp("killed"), CAPABILITIES, SPECS)


@pytest.mark.parametrize("point", KILL_POINTS, ids=[p.label for p in KILL_POINTS])
def test_a_killed_run_is_completed_by_the_next_run(point: KillPoint, killed_workspace: Workspace,
                                                   baselines: Baselines) -> None:
    ws = killed_workspace
    code, console = ws.run(point.seed, point.held_out, point.patch)
    assert code == -signal.SIGKILL, f"the kill point was not reached:\n{console}"
    code, console = ws.run(point.seed, point.held_out)
    assert code == 0, console
    assert ws.published() == baselines[point.seed, point.held_out], console
    with dg.DagsterInstance.from_config(str(ws.home)) as instance:
        left = instance.get_runs(dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED]))
        assert not left, f"runs still marked STARTED: {[r.run_id for r in left]}"
        assert not instance.event_log_storage.get_concurrency_info("llm").claimed_slots
