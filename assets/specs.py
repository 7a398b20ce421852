"""task_specs: candidate environment specs per capability (procedural by default, or an LLM generator)."""


import dagster as dg

from assets._metadata import one_run_at_a_time, preview, schema_check, table_metadata
from assets.taxonomy import capability_taxonomy
from coworkenv import synth, validate
from coworkenv.llm import backend_from_config
from coworkenv.store import stages
from pipelines.code_versions import CODE_VERSIONS
from pipelines.partitions import capability_partitions
from pipelines.resources import CoworkenvSettings
from pipelines.staleness import data_folder_metadata, partition_input_hash

SPECS = "task_specs"


@dg.asset(
    partitions_def=capability_partitions,
    deps=[capability_taxonomy],
    group_name="synthesis",
    pool="llm",
    kinds={"parquet"},
    code_version=CODE_VERSIONS[SPECS],
    description="Generated environment specs of one capability, before validation.",
    check_specs=[dg.AssetCheckSpec("parquet_schema", asset=SPECS, blocking=True)],
)
def task_specs(context: dg.AssetExecutionContext, settings: CoworkenvSettings) -> dg.MaterializeResult:
    one_run_at_a_time(context, SPECS)
    capability = settings.taxonomy().capabilities[context.partition_key]
    count = settings.specs_per_capability or capability.quota
    # The generator mixes the capability id into each spec's seed itself, so COWORKENV_SEED=S here gives the
    # same specs as `coworkenv synth --seed S`.
    seed = settings.seed
    if settings.llm_url:
        backend = backend_from_config(settings.llm_url, settings.llm_model or None)
        candidates = synth.LLMSpecGenerator(backend).generate(capability, count, seed)
        source = backend.name
    else:
        source = f"procedural:{synth.GENERATOR_VERSION}"
        candidates = validate.procedural_candidates(synth.generate_specs(capability, count, seed))
    table = stages.specs_table(candidates)
    stored = stages.SPECS.store(table, settings.store_root, SPECS, capability.id)
    context.log.info(f"{capability.id}: {len(candidates)} candidate specs from {source} -> {stored.path}")
    return dg.MaterializeResult(
        data_version=dg.DataVersion(stored.content_hash),
        metadata={
            **table_metadata(stored), **data_folder_metadata(settings),
            "input_hash": partition_input_hash(capability, settings),
            "generator": source,
            "seed": seed,
            "preview": preview(table, ["env_id", "capability", "spec_json"]),
        },
        check_results=[schema_check(stored.schema, stages.SPECS_SCHEMA)],
    )
