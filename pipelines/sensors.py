"""The taxonomy sensor: keeps partitions in step with taxonomy/ and regenerates only edited capabilities."""


import dagster as dg

from coworkenv.synth import capability_fingerprint
from pipelines.jobs import capability_job
from pipelines.partitions import CAPABILITY_PARTITIONS
from pipelines.resources import CoworkenvSettings
from pipelines.staleness import partition_changes, stale_capabilities


@dg.sensor(
    job=capability_job,
    minimum_interval_seconds=30,
    default_status=dg.DefaultSensorStatus.RUNNING,
    required_resource_keys={"settings"},
    description="Adds/retires capability partitions and requests runs for capabilities whose YAML changed.",
)
def taxonomy_sensor(context: dg.SensorEvaluationContext) -> dg.SensorResult:
    settings: CoworkenvSettings = context.resources.settings
    taxonomy = settings.taxonomy()
    added, removed = partition_changes(context.instance, taxonomy)
    stale = stale_capabilities(context.instance, taxonomy)
    requests = [
        dg.RunRequest(
            partition_key=cid,
            # One run per (capability, definition): an unchanged capability is never re-requested.
            run_key=f"{cid}:{capability_fingerprint(taxonomy.capabilities[cid])}",
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
