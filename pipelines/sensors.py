"""The taxonomy sensor: keeps partitions in step with taxonomy/ and (re)generates incomplete capabilities."""


import dagster as dg

from pipelines.jobs import capability_job
from pipelines.partitions import CAPABILITY_PARTITIONS
from pipelines.resources import CoworkenvSettings
from pipelines.run_guard import reap_dead_runs
from pipelines.staleness import (
    latest_partition_run,
    other_data_folder_problem,
    partition_changes,
    partition_states,
    run_in_flight,
)


@dg.sensor(
    job=capability_job,
    minimum_interval_seconds=30,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Adds/retires capability partitions and requests runs for capabilities whose chain is incomplete "
                "(YAML changed, never materialized, or a run that failed or was killed half-way).",
)
def taxonomy_sensor(context: dg.SensorEvaluationContext, settings: CoworkenvSettings) -> dg.SensorResult:
    taxonomy = settings.taxonomy()
    for run in reap_dead_runs(context.instance):  # a killed run would otherwise look in flight forever
        context.log.warning(f"run {run.run_id} ({run.job}) was left running by a process that is gone: marked failed")
    other = other_data_folder_problem(context.instance, taxonomy, settings)
    if other is not None:  # each run would generate everything again into a new folder (an LLM paid again)
        context.log.warning(other)
        return dg.SensorResult(skip_reason=other)
    added, removed = partition_changes(context.instance, taxonomy)
    requests = []
    for state in partition_states(context.instance, taxonomy, settings):
        cid = state.capability
        if state.complete or run_in_flight(context.instance, cid) is not None:
            continue
        reason = "new capability" if cid in added else state.reason
        requests.append(dg.RunRequest(partition_key=cid, run_key=_run_key(context.instance, cid),
                                      tags={"coworkenv/reason": reason[:200]}))
    partition_requests: list[dg.AddDynamicPartitionsRequest | dg.DeleteDynamicPartitionsRequest] = []
    if added:
        partition_requests.append(dg.AddDynamicPartitionsRequest(CAPABILITY_PARTITIONS, added))
    if removed:
        partition_requests.append(dg.DeleteDynamicPartitionsRequest(CAPABILITY_PARTITIONS, removed))
    return dg.SensorResult(run_requests=requests, dynamic_partitions_requests=partition_requests)


def _run_key(instance: dg.DagsterInstance, cid: str) -> str:
    """One run per (capability, latest finished run of it).

    The daemon never launches a run key twice, and a stale partition with no run in flight must get a run even
    when its definition returned to an earlier one (A -> B -> A) or its last run failed: the id of the partition's
    latest run makes the key new after every run. (A partition with a run in flight is not requested at all.)
    """
    latest = latest_partition_run(instance, cid)
    return f"{cid}:{latest.run_id if latest else 'first'}"
