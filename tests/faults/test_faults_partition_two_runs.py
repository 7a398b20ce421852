"""Fault corpus, a second run materializing a capability partition while an earlier run does it: the UI's
"Materialize" clicked while `make run` or the taxonomy sensor's run works on that partition, a run launched twice.

Both ran the chain: each step read the upstream LATEST as it stood when it began (the later run's validated_envs
could read the earlier's specs, or the reverse), each wrote its own files and moved the pointers, the order of the
records could differ from the order of the pointers (the partition then read as stale and was made a third time),
and every LLM call was paid twice. Now each step of the chain (task_specs, validated_envs, teacher_trajectories)
first looks for an earlier run of its partition that is running (its process alive): the later run stops there, in
one line naming the other run and what to do, having read and written nothing; the earlier goes on. A run left
STARTED by a process that is gone (kill -9) holds nothing.

On `main` the second run materialized the partition (its specs written beside the first's)."""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import dagster as dg

from assets._metadata import one_run_at_a_time
from assets.specs import task_specs
from pipelines.run_guard import owner_tags
from pipelines.staleness import sync_partitions
from tests.faults.harness import CAPABILITY
from tests.faults.test_faults_store_version import failure_message, materialize, one_capability


def _running(instance: dg.DagsterInstance, tags: dict[str, str]) -> dg.DagsterRun:
    """A run of CAPABILITY's partition the instance records as started (by the process `tags` name)."""
    run = dg.DagsterRun(job_name="capability_job", run_id=str(uuid.uuid4()), status=dg.DagsterRunStatus.STARTED,
                        tags={"dagster/partition": CAPABILITY, **tags})
    instance.add_run(run)
    return run


def test_a_second_run_of_a_partition_an_earlier_run_is_materializing_stops_before_writing(tmp_path: Path) -> None:
    """(And the guards, on the same instance: a run left STARTED by a process that is gone holds nothing; the earlier
    of two running runs is never the one stopped.)"""
    settings = one_capability(tmp_path)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    with dg.instance_for_test() as instance:
        sync_partitions(instance, settings.taxonomy())
        dead = _running(instance, {"coworkenv/pid": gone.stdout.strip(), "coworkenv/process_started": "1.0"})
        earlier = _running(instance, owner_tags())  # this process runs it: alive
        result = materialize(instance, settings, task_specs)
        assert not result.success, "the second run materialized the partition the earlier one was working on"
        message = failure_message(result)
        assert earlier.run_id in message and f"task_specs[{CAPABILITY}]" in message, message
        assert "nothing was written" in message and "wait for that run to end" in message, message
        assert not (settings.store_root / "task_specs").exists()

        from pipelines.run_guard import earlier_run_of_partition  # (not on main)

        assert earlier_run_of_partition(instance, earlier.run_id, CAPABILITY) is None, \
            f"run {dead.run_id}, left STARTED by a process that is gone, stopped a run"
        later = _running(instance, owner_tags())
        found = earlier_run_of_partition(instance, later.run_id, CAPABILITY)
        assert found is not None and found.run_id == earlier.run_id


def _step_of(instance: dg.DagsterInstance, run: dg.DagsterRun) -> dg.AssetExecutionContext:
    """What a step of `run` hands the guard: its instance, run and partition."""
    step = SimpleNamespace(instance=instance, run_id=run.run_id, partition_key=CAPABILITY)
    return cast(dg.AssetExecutionContext, step)


def _start_recorded(instance: dg.DagsterInstance, run: dg.DagsterRun, at: float) -> None:
    """Record `run` as started at `at`: the start Dagster records is the time its RUN_START event occurred, not the
    time the event's write landed (`SqlRunStorage.handle_run_event`'s `update_timestamp`)."""
    event = dg.DagsterEvent(event_type_value=dg.DagsterEventType.RUN_START.value, job_name=run.job_name)
    instance.run_storage.handle_run_event(run.run_id, event, datetime.fromtimestamp(at, tz=UTC))


def test_two_runs_starting_in_one_instant_do_not_both_get_through() -> None:
    """Two runs of one partition launched in the same instant (the UI's "Materialize" clicked twice, the sensor and a
    user). Run A's RUN_START occurs first, but its write lands a moment after run B's (two processes writing one
    SQLite instance wait on its lock in turn): B's first step looks while A does not yet read as started, and goes on;
    A's then sees B, but B began after it, and goes on too. On `main` both materialized the partition. Now a step that
    goes on claims the partition for its run (a claim file in the instance's folder, read and written under a lock),
    and a step of another run finds the claim while that run is alive, whichever started first. Guards: the claim's
    own run goes on at its next step; a claim of a run that ended holds nothing."""
    with dg.instance_for_test() as instance:
        now = time.time()
        b = _running(instance, owner_tags())
        _start_recorded(instance, b, now + 0.002)
        one_run_at_a_time(_step_of(instance, b), "task_specs")  # A does not read as started yet: B goes on
        a = _running(instance, owner_tags())
        _start_recorded(instance, a, now)  # occurred first, landed after B's step looked
        try:
            one_run_at_a_time(_step_of(instance, a), "task_specs")
        except dg.Failure as stopped:
            message = str(stopped.description)
        else:
            raise AssertionError(f"both runs of {CAPABILITY} got through: run {b.run_id} (its step went on first) and "
                                 f"run {a.run_id}, which began first but read as started only after B looked")
        assert b.run_id in message and f"task_specs[{CAPABILITY}]" in message, message
        assert "nothing was written" in message and "wait for that run to end" in message, message
        one_run_at_a_time(_step_of(instance, b), "validated_envs")  # its own claim: B's next step goes on
        instance.report_run_failed(b, message="ended")
        one_run_at_a_time(_step_of(instance, a), "task_specs")  # B ended: its claim holds nothing
