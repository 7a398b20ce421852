"""validated_envs: specs that passed every soundness gate, after the repair loop; rejects kept apart."""


import dagster as dg

from assets._metadata import bar_plot, funnel_markdown, one_run_at_a_time, preview, schema_check, table_metadata
from assets.specs import SPECS, task_specs
from coworkenv import store, synth, validate
from coworkenv.llm import backend_from_config
from coworkenv.store import stages
from pipelines.code_versions import CODE_VERSIONS
from pipelines.partitions import capability_partitions
from pipelines.resources import CoworkenvSettings
from pipelines.staleness import data_folder_metadata, failed_upstream_checks

ENVS = "validated_envs"
REJECTED = "rejected_envs"


@dg.asset(
    partitions_def=capability_partitions,
    deps=[task_specs],
    group_name="synthesis",
    pool="llm",
    kinds={"parquet"},
    code_version=CODE_VERSIONS[ENVS],
    description="Environments that passed the 10 validation gates (with up to R LLM repair rounds).",
    check_specs=[
        dg.AssetCheckSpec("parquet_schema", asset=ENVS, blocking=True),
        dg.AssetCheckSpec("acceptance_rate", asset=ENVS, blocking=True,
                          description="accepted / generated is at least settings.min_acceptance_rate"),
        dg.AssetCheckSpec("soundness_gates", asset=ENVS, blocking=True,
                          description="every accepted env carries passing soundness gates"),
    ],
)
def validated_envs(context: dg.AssetExecutionContext, settings: CoworkenvSettings) -> dg.MaterializeResult:
    one_run_at_a_time(context, ENVS)
    capability = context.partition_key
    refused = failed_upstream_checks(context.instance, SPECS, capability)
    if refused is not None:
        raise dg.Failure(refused)
    specs = store.latest(settings.store_root, SPECS, capability)
    if specs is None:
        raise dg.Failure(f"no task_specs for {capability}; materialize task_specs[{capability}] first")
    candidates = validate.candidates_from_rows(stages.read_spec_rows(specs.path, allow_empty=True))
    reviser = None
    if settings.llm_url:
        backend = backend_from_config(settings.llm_url, settings.llm_model or None)
        reviser = synth.LLMSpecGenerator(backend)
    run = validate.validate_and_repair(candidates, reviser=reviser, max_rounds=settings.repair_rounds)
    accepted = validate.accepted_table(run)
    stored = stages.ENVS.store(accepted, settings.store_root, ENVS, capability)
    rejected = stages.REJECTED.store(validate.rejected_table(run), settings.store_root, REJECTED, capability)
    funnel = run.funnel.as_dict()
    context.log.info(f"{capability}: {funnel['accepted']}/{funnel['generated']} accepted")
    unsound = [a.spec.id for a in run.accepted if not a.validation.passed]
    return dg.MaterializeResult(
        data_version=dg.DataVersion(stored.content_hash),
        metadata={
            **table_metadata(stored), **data_folder_metadata(settings),
            "input_hash": specs.content_hash,
            "funnel": funnel,
            "funnel_table": funnel_markdown(funnel),
            "funnel_plot": bar_plot(f"{capability}: acceptance funnel", {
                k: funnel[k] for k in ("generated", "schema_valid", "coherent", "solvable", "sound", "accepted")
            }),
            "acceptance_rate": funnel["acceptance_rate"],
            "mutation_score": funnel["mutation_score"],
            "rejected_path": dg.MetadataValue.path(str(rejected.path)),
            "rejected_count": rejected.num_rows,
            "preview": preview(accepted, ["env_id", "capability", "mutation_score", "spec_json"]),
        },
        check_results=[
            schema_check(stored.schema, stages.ENVS_SCHEMA),
            dg.AssetCheckResult(
                check_name="acceptance_rate",
                passed=funnel["acceptance_rate"] >= settings.min_acceptance_rate,
                metadata={"acceptance_rate": funnel["acceptance_rate"], "threshold": settings.min_acceptance_rate},
            ),
            dg.AssetCheckResult(check_name="soundness_gates", passed=not unsound,
                                metadata={"unsound_envs": ", ".join(unsound) or "-"}),
        ],
    )
