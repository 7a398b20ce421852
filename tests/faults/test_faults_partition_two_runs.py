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
import uuid
from pathlib import Path

import dagster as dg

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
