"""`python -m pipelines.run` killed with SIGKILL at every stage boundary and mid-stage, then run again: the published
dataset is the one an uninterrupted run publishes (nothing missing, nothing duplicated) and no run hangs.

Two capabilities with one spec each, no training. The pipeline runs in forked children (the imports are paid
once); a child is killed by replacing a library function the assets call with one that SIGKILLs the child's process
group before or after doing its work. The scenarios run in order on one instance; each one changes the seed (every
partition is stale) or the held-out capability (only the aggregates are), so the killed run has work to do.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import dagster as dg
import pytest

from coworkenv import curate, rollout, store, synth, validate
from tests.support.pipeline_child import Workspace, make_workspace

pytestmark = pytest.mark.timeout(400)

CAPABILITIES = ("inbox_triage_reply", "report_from_data")
SPECS = 1


@dataclass(frozen=True)
class KillPoint:
    """Kill when `module.name` is called for the `nth` time (with `dataset` as its third argument, if given).

    The run is made with `seed` and `held_out` (one capability held out of training, or none): a new seed makes
    every partition stale, a new held-out capability only the aggregates.
    """

    label: str
    module: Any
    name: str
    when: str  # "before" or "after" the call
    seed: int
    held_out: str = ""
    nth: int = 1
    dataset: str | None = None


FIRST, LAST = CAPABILITIES
KILL_POINTS = [
    KillPoint("after task_specs", validate, "validate_and_repair", "before", seed=0),
    KillPoint("mid validated_envs (file written, not recorded)", store, "write_table", "after", seed=1,
              dataset="validated_envs"),
    KillPoint("between the capability runs", synth, "generate_specs", "before", seed=0, nth=2),
    KillPoint("mid teacher_trajectories of the last capability", store, "write_table", "after", seed=1, nth=2,
              dataset="teacher_trajectories"),
    KillPoint("after validated_envs", rollout, "rollout_specs", "before", seed=0),
    KillPoint("after the capability runs, before sft_shards", curate, "curate", "before", seed=0, held_out=FIRST),
    KillPoint("mid sft_shards (files written, not recorded)", store, "write_table", "after", seed=0,
              dataset="sft_shards"),
    KillPoint("mid hub_dataset, before publishing", store, "release_version", "after", seed=0, held_out=FIRST),
    KillPoint("mid hub_dataset, published but not recorded", store.LocalGitPublisher, "publish", "after", seed=0),
]


def _kill_group() -> None:
    os.killpg(os.getpgid(0), signal.SIGKILL)


def _armed(point: KillPoint) -> Callable[[], None]:
    return lambda: _arm(point)


def _arm(point: KillPoint) -> None:
    original = getattr(point.module, point.name)
    calls = [0]

    def armed(*args: Any, **kwargs: Any) -> Any:
        if point.dataset is None or (len(args) > 2 and args[2] == point.dataset):
            calls[0] += 1
        hit = calls[0] == point.nth and (point.dataset is None or (len(args) > 2 and args[2] == point.dataset))
        if hit and point.when == "before":
            _kill_group()
        result = original(*args, **kwargs)
        if hit and point.when == "after":
            _kill_group()
        return result

    setattr(point.module, point.name, armed)


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
    code, console = ws.run(point.seed, point.held_out, _armed(point))
    assert code == -signal.SIGKILL, f"the kill point was not reached:\n{console}"
    code, console = ws.run(point.seed, point.held_out)
    assert code == 0, console
    assert ws.published() == baselines[point.seed, point.held_out], console
    with dg.DagsterInstance.from_config(str(ws.home)) as instance:
        left = instance.get_runs(dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED]))
        assert not left, f"runs still marked STARTED: {[r.run_id for r in left]}"
        assert not instance.event_log_storage.get_concurrency_info("llm").claimed_slots
