"""task_specs: candidate environment specs per capability (procedural by default, or an LLM generator)."""


import hashlib

import dagster as dg

from assets._metadata import preview, schema_check, table_metadata
from assets.taxonomy import capability_taxonomy
from coworkenv import store, synth, validate
from coworkenv.llm import backend_from_config
from pipelines.partitions import capability_partitions
from pipelines.resources import CoworkenvSettings
from pipelines.staleness import partition_input_hash

SPECS = "task_specs"


def capability_seed(capability_id: str, base_seed: int) -> int:
    """A seed per capability that does not move when other capabilities are added or edited."""
    return base_seed * 1_000_003 + int(hashlib.sha256(capability_id.encode()).hexdigest()[:8], 16)


@dg.asset(
    partitions_def=capability_partitions,
    deps=[capability_taxonomy],
    group_name="synthesis",
    pool="llm",
    kinds={"parquet"},
    description="Generated environment specs of one capability, before validation.",
    check_specs=[dg.AssetCheckSpec("parquet_schema", asset=SPECS, blocking=True)],
)
def task_specs(context: dg.AssetExecutionContext, settings: CoworkenvSettings) -> dg.MaterializeResult:
    capability = settings.taxonomy().capabilities[context.partition_key]
    count = settings.specs_per_capability or capability.quota
    seed = capability_seed(capability.id, settings.seed)
    if settings.llm_url:
        backend = backend_from_config(settings.llm_url, settings.llm_model or None)
        candidates = validate.LLMSpecGenerator(backend).generate(capability, count, seed)
        source = backend.name
    else:
        source = f"procedural:{synth.GENERATOR_VERSION}"
        candidates = [
            validate.Candidate(capability.id, spec, source=source, origin=f"{capability.id}/seed={spec.metadata.seed}")
            for spec in synth.generate_specs(capability, count, seed)
        ]
    table = validate.candidates_table(candidates)
    stored = store.write_table(table, settings.store_root, SPECS, capability.id)
    context.log.info(f"{capability.id}: {len(candidates)} candidate specs from {source} -> {stored.path}")
    return dg.MaterializeResult(
        data_version=dg.DataVersion(stored.content_hash),
        metadata={
            **table_metadata(stored),
            "input_hash": partition_input_hash(capability, settings),
            "generator": source,
            "seed": seed,
            "preview": preview(table, ["env_id", "capability", "spec_json"]),
        },
        check_results=[schema_check(stored.schema, validate.CANDIDATES_SCHEMA)],
    )
