"""Fault corpus, clock jumps: the wall clock is set forward or back while a run executes (NTP, a resumed VM). A
process's start time as psutil reports it moves with the clock, so a guard comparing it to the time recorded at
the start would take a live run for dead, mark it failed and let a second run of the same partition start beside
it. Runs are told apart by boot id and start ticks instead, which no clock change moves."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import psutil
import pytest

from pipelines.run_guard import PID_TAG, STAMP_TAG, owner_tags, reap_dead_runs, start_stamp

HOUR = 3600.0
pytestmark = pytest.mark.skipif(start_stamp(os.getpid()) is None, reason="needs Linux /proc")


@pytest.fixture
def instance(tmp_path: Path) -> Iterator[dg.DagsterInstance]:
    with dg.DagsterInstance.local_temp(str(tmp_path)) as instance:
        yield instance


def _started_run(instance: dg.DagsterInstance, tags: dict[str, str]) -> str:
    run = dg.DagsterRun(job_name="capability_job", run_id=str(uuid.uuid4()), status=dg.DagsterRunStatus.STARTED,
                        tags={**tags, "dagster/partition": "inbox_triage_reply"})
    instance.add_run(run)
    return run.run_id


def _status(instance: dg.DagsterInstance, run_id: str) -> dg.DagsterRunStatus:
    run = instance.get_run_by_id(run_id)
    assert run is not None
    return run.status


@pytest.mark.parametrize("jump", [HOUR, -HOUR, 30 * 24 * HOUR])
def test_a_live_run_survives_a_clock_jump(instance: dg.DagsterInstance, monkeypatch: pytest.MonkeyPatch,
                                          jump: float) -> None:
    run_id = _started_run(instance, owner_tags())  # executed by this process, which is alive
    real = psutil.Process.create_time
    monkeypatch.setattr(psutil.Process, "create_time", lambda self: real(self) + jump)
    assert reap_dead_runs(instance) == []
    assert _status(instance, run_id) == dg.DagsterRunStatus.STARTED


def test_a_dead_runs_process_is_still_found_dead_after_a_clock_jump(instance: dg.DagsterInstance,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    child = subprocess.Popen(["sleep", "30"])
    stamp = start_stamp(child.pid)
    assert stamp is not None
    run_id = _started_run(instance, {PID_TAG: str(child.pid), STAMP_TAG: stamp})
    child.kill()
    child.wait()
    real = psutil.Process.create_time
    monkeypatch.setattr(psutil.Process, "create_time", lambda self: real(self) - HOUR)
    assert [r.run_id for r in reap_dead_runs(instance)] == [run_id]
    assert _status(instance, run_id) == dg.DagsterRunStatus.FAILURE


def test_a_reused_pid_is_not_taken_for_the_runs_process(instance: dg.DagsterInstance) -> None:
    boot = (start_stamp(os.getpid()) or "").partition(":")[0]
    run_id = _started_run(instance, {PID_TAG: str(os.getpid()), STAMP_TAG: f"{boot}:1"})  # same pid, earlier start
    assert [r.run_id for r in reap_dead_runs(instance)] == [run_id]
