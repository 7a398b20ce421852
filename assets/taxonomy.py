"""capability_taxonomy: the user-editable YAML, observed with one data version per capability."""


import dagster as dg

from coworkenv.synth import capability_fingerprint
from pipelines.partitions import CAPABILITY_PARTITIONS, capability_partitions
from pipelines.resources import CoworkenvSettings


@dg.observable_source_asset(
    partitions_def=capability_partitions,
    group_name="taxonomy",
    description="Capabilities from taxonomy/*.yaml; data version = hash of the YAML definition + generator version.",
    required_resource_keys={"settings"},
)
def capability_taxonomy(context: dg.AssetExecutionContext) -> dg.DataVersionsByPartition:
    settings: CoworkenvSettings = context.resources.settings
    taxonomy = settings.taxonomy()
    known = set(context.instance.get_dynamic_partitions(CAPABILITY_PARTITIONS))
    return dg.DataVersionsByPartition(
        {cid: capability_fingerprint(cap) for cid, cap in taxonomy.capabilities.items() if cid in known}
    )
