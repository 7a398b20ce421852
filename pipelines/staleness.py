"""Per-partition staleness, which the Dagster UI does not show for partitions.

Every partitioned materialization records the hash of its input in metadata (`input_hash`); a capability is
stale when what its task_specs are generated from (its YAML definition, the generator version and the generation
settings) differs from what its latest task_specs materialization used.
"""

from __future__ import annotations

import dagster as dg

from coworkenv.synth import Capability, Taxonomy, capability_fingerprint
from coworkenv.world import content_hash
from pipelines.partitions import CAPABILITY_PARTITIONS
from pipelines.resources import CoworkenvSettings

TASK_SPECS = dg.AssetKey("task_specs")


def latest_materialization(instance: dg.DagsterInstance, key: dg.AssetKey, partition: str) -> dg.EventLogRecord | None:
    """The record of the latest materialization of one partition, if any."""
    records = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=key, asset_partitions=[partition]), limit=1
    ).records
    return records[0] if records else None


def recorded_input_hash(instance: dg.DagsterInstance, key: dg.AssetKey, partition: str) -> str | None:
    """The `input_hash` metadata of the latest materialization of one partition, if any."""
    record = latest_materialization(instance, key, partition)
    if record is None or record.asset_materialization is None:
        return None
    value = record.asset_materialization.metadata.get("input_hash")
    return str(value.value) if value is not None else None


def partition_input_hash(capability: Capability, settings: CoworkenvSettings) -> str:
    """What one capability's partition is generated from: definition, generator version and generation settings."""
    return content_hash({
        "capability": capability_fingerprint(capability),
        "count": settings.specs_per_capability or capability.quota,
        "seed": settings.seed,
        "generator": settings.llm_model if settings.llm_url else "procedural",
        "repair_rounds": settings.repair_rounds,
    })[:32]


def stale_capabilities(instance: dg.DagsterInstance, taxonomy: Taxonomy, settings: CoworkenvSettings) -> list[str]:
    """Capabilities whose definition or generation settings changed since task_specs was last materialized."""
    return [
        cid for cid, cap in sorted(taxonomy.capabilities.items())
        if recorded_input_hash(instance, TASK_SPECS, cid) != partition_input_hash(cap, settings)
    ]


def partition_changes(instance: dg.DagsterInstance, taxonomy: Taxonomy) -> tuple[list[str], list[str]]:
    """(capabilities to add as partitions, partitions whose capability was removed)."""
    current = set(instance.get_dynamic_partitions(CAPABILITY_PARTITIONS))
    wanted = set(taxonomy.capabilities)
    return sorted(wanted - current), sorted(current - wanted)


def sync_partitions(instance: dg.DagsterInstance, taxonomy: Taxonomy) -> tuple[list[str], list[str]]:
    """Make the dynamic partitions equal to the taxonomy's capabilities; return (added, removed)."""
    added, removed = partition_changes(instance, taxonomy)
    if added:
        instance.add_dynamic_partitions(CAPABILITY_PARTITIONS, added)
    for key in removed:
        instance.delete_dynamic_partition(CAPABILITY_PARTITIONS, key)
    return added, removed
