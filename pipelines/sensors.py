"""The taxonomy sensor: keeps partitions in step with taxonomy/ and regenerates only edited capabilities."""


import dagster as dg

from pipelines.jobs import capability_job
from pipelines.partitions import CAPABILITY_PARTITIONS
from pipelines.resources import CoworkenvSettings
from pipelines.staleness import (
    TASK_SPECS,
    latest_materialization,
    partition_changes,
    partition_input_hash,
    stale_capabilities,
)


@dg.sensor(
    job=capability_job,
    minimum_interval_seconds=30,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Adds/retires capability partitions and requests runs for capabilities whose YAML changed.",
)
def taxonomy_sensor(context: dg.SensorEvaluationContext, settings: CoworkenvSettings) -> dg.SensorResult:
    taxonomy = settings.taxonomy()
    added, removed = partition_changes(context.instance, taxonomy)
    stale = stale_capabilities(context.instance, taxonomy, settings)
    requests = [
        dg.RunRequest(
            partition_key=cid,
            run_key=_run_key(context.instance, cid, partition_input_hash(taxonomy.capabilities[cid], settings)),
            tags={"coworkenv/reason": "new capability" if cid in added else "capability changed"},
        )
        for cid in stale
    ]
    partition_requests: list[dg.AddDynamicPartitionsRequest | dg.DeleteDynamicPartitionsRequest] = []
    if added:
        partition_requests.append(dg.AddDynamicPartitionsRequest(CAPABILITY_PARTITIONS, added))
    if removed:
        partition_requests.append(dg.DeleteDynamicPartitionsRequest(CAPABILITY_PARTITIONS, removed))
    return dg.SensorResult(run_requests=requests, dynamic_partitions_requests=partition_requests)


def _run_key(instance: dg.DagsterInstance, cid: str, fingerprint: str) -> str:
    """One run per (capability, definition, last materialization).

    The daemon never launches a run key twice: a key of the definition alone would skip an edit that is
    reverted (A -> B -> A). The id of the latest materialization makes it new after every run, while ticks
    during a pending run still repeat it (and are skipped).
    """
    latest = latest_materialization(instance, TASK_SPECS, cid)
    return f"{cid}:{fingerprint}:{latest.storage_id if latest else 0}"
