"""Runs left behind by dead processes, runs waiting for a pool slot, and SIGINT/SIGTERM at any point.

One capability with one spec, no training, a throwaway instance; the pipeline runs in forked children.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

import dagster as dg
import psutil
import pytest

from coworkenv.atomic import folder_in_use
from coworkenv.store.stages import episode_output_problem
from pipelines.run_guard import PID_TAG, STARTED_TAG
from pipelines.run_signals import RUN_LOCK, one_run_per_folder
from tests.support.pipeline_child import Patch, Workspace, make_workspace

pytestmark = pytest.mark.timeout(300)

CAPABILITY = "report_from_data"
POOL = "llm"
INTERRUPTED = 130


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    return make_workspace(tmp_path, (CAPABILITY,))


def _dead_pid() -> tuple[int, float]:
    proc = subprocess.Popen(["true"])
    started = psutil.Process(proc.pid).create_time() if psutil.pid_exists(proc.pid) else 0.0
    proc.wait()
    return proc.pid, started


def _holding_runs(instance: dg.DagsterInstance, pid: int, started: float, n: int) -> list[str]:
    """`n` runs marked STARTED, tagged as executed by process `pid`, each holding a slot of the llm pool."""
    ids = []
    for i in range(n):
        run = dg.DagsterRun(job_name="capability_job", run_id=str(uuid.uuid4()), status=dg.DagsterRunStatus.STARTED,
                            tags={PID_TAG: str(pid), STARTED_TAG: f"{started:.3f}", "dagster/partition": f"held{i}"})
        instance.add_run(run)
        instance.event_log_storage.initialize_concurrency_limit_to_default(POOL)
        assert instance.event_log_storage.claim_concurrency_slot(POOL, run.run_id, "task_specs").is_claimed
        ids.append(run.run_id)
    return ids


def _complete(ws: Workspace) -> bool:
    from pipelines.resources import CoworkenvSettings
    from pipelines.staleness import stale_capabilities

    settings = CoworkenvSettings(data_dir=str(ws.data), taxonomy_dir=str(ws.taxonomy), specs_per_capability=ws.specs)
    with ws.instance() as instance:
        return not stale_capabilities(instance, settings.taxonomy(), settings)


def _no_run_left_running(ws: Workspace) -> None:
    with ws.instance() as instance:
        running = instance.get_runs(dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED]))
        assert not running, [r.run_id for r in running]
        assert not instance.event_log_storage.get_concurrency_info(POOL).claimed_slots


def test_runs_of_dead_processes_are_marked_failed_and_give_their_slots_back(workspace: Workspace) -> None:
    ws = workspace
    pid, started = _dead_pid()
    with ws.instance() as instance:
        held = _holding_runs(instance, pid, started, 2)  # the whole pool (default limit 2)
    code, console = ws.run()
    assert code == 0, console
    for run_id in held:
        assert f"run {run_id} (capability_job[held" in console and "process that is gone" in console
    with ws.instance() as instance:
        assert all(instance.get_run_by_id(r).status == dg.DagsterRunStatus.FAILURE for r in held)  # type: ignore[union-attr]
    _no_run_left_running(ws)
    assert _complete(ws)


@pytest.mark.parametrize("signo", [signal.SIGTERM, signal.SIGINT])
def test_a_run_waiting_for_a_slot_names_the_holders_and_stops_on_a_signal(workspace: Workspace, signo: int) -> None:
    ws = workspace
    me = psutil.Process()
    with ws.instance() as instance:
        held = _holding_runs(instance, me.pid, me.create_time(), 2)  # held by a live process: this one
    proc = ws.start(ws.env())
    console = ws.wait_for_console("waiting for a slot in pool 'llm'", proc)
    assert all(f"run {run_id}" in console for run_id in held)
    os.kill(proc.pid or 0, signo)
    code, console = ws.finish(proc, timeout_s=30)
    assert code == INTERRUPTED, console
    assert "Traceback" not in console

    # Once the holders end, the next run gets its slots.
    with ws.instance() as instance:
        for run_id in held:
            run = instance.get_run_by_id(run_id)
            assert run is not None
            instance.report_run_failed(run)
            instance.event_log_storage.free_concurrency_slots_for_run(run_id)
    code, console = ws.run()
    assert code == 0, console
    assert _complete(ws)


class SkipPoolWait:
    """Make pipelines.run start its run without waiting for a slot, as if another process took the last slot
    right after it looked (the run then waits inside Dagster, which defers signals)."""

    def __call__(self) -> None:
        import pipelines.run_guard

        pipelines.run_guard.wait_for_pool = lambda *args, **kwargs: None  # type: ignore[assignment]


def test_a_run_blocked_inside_dagster_on_a_slot_still_stops_on_sigterm(workspace: Workspace) -> None:
    ws = workspace
    me = psutil.Process()
    with ws.instance() as instance:
        held = _holding_runs(instance, me.pid, me.create_time(), 2)
    proc = ws.start(ws.env(), SkipPoolWait())
    ws.wait_for_console("report_from_data", proc)
    with ws.instance() as instance:
        deadline = time.monotonic() + 60
        while not [p for p in instance.event_log_storage.get_concurrency_info(POOL).pending_steps
                   if p.run_id not in held]:
            assert time.monotonic() < deadline, ws.console.read_text()
            time.sleep(0.2)
    os.kill(proc.pid or 0, signal.SIGTERM)
    code, console = ws.finish(proc, timeout_s=30)
    assert code == INTERRUPTED, console
    with ws.instance() as instance:
        runs = instance.get_runs(dg.RunsFilter(tags={"dagster/partition": CAPABILITY}))
        assert runs[0].status == dg.DagsterRunStatus.FAILURE
        info = instance.event_log_storage.get_concurrency_info(POOL)
        assert {s.run_id for s in info.claimed_slots} == set(held)
        assert {p.run_id for p in info.pending_steps} == set(held), "the stopped run still waits for a slot"


@pytest.mark.parametrize("signo", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_inside_a_step_stops_the_run_cleanly(workspace: Workspace, signo: int) -> None:
    ws = workspace
    code, console = ws.run(prepare=Patch("coworkenv.rollout", "rollout_specs", "before", signo=signo))
    assert code == INTERRUPTED, console
    assert "interrupted" in console and "Traceback" not in console
    assert "sft_shards" not in console, "the pipeline went on after the signal"
    _no_run_left_running(ws)
    with ws.instance() as instance:
        runs = instance.get_runs(dg.RunsFilter(tags={"dagster/partition": CAPABILITY}))
        assert runs and runs[0].status == dg.DagsterRunStatus.FAILURE
    assert not _complete(ws)
    code, console = ws.run()
    assert code == 0, console
    assert _complete(ws)


def test_the_run_lock_leaves_the_folders_below_dagster_home_to_the_episode_writers(tmp_path: Path) -> None:
    """`make run`'s data folder lies inside DAGSTER_HOME (the repository root). The run held a lock on DAGSTER_HOME
    itself, which the episode writers read as another command writing it: on a fresh clone `make run` failed at
    `rl_checkpoint`, refusing its own `--out data/checkpoints/rl-...` as "inside <repo>, which another command is
    writing now". The run's lock is now a folder of its own in DAGSTER_HOME; a second run still waits on it."""
    out = tmp_path / "data" / "checkpoints" / "rl-tiny"
    with one_run_per_folder(tmp_path):
        assert not folder_in_use(tmp_path)
        assert episode_output_problem(out, "rl", own="rollouts") is None
        assert folder_in_use(tmp_path / RUN_LOCK)  # what a second run meets, and waits on
    assert not folder_in_use(tmp_path / RUN_LOCK)
