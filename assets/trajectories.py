"""teacher_trajectories: teacher runs in the validated environments of one capability."""


import dagster as dg

from assets._metadata import one_run_at_a_time, preview, schema_check, table_metadata
from assets.envs import ENVS, validated_envs
from coworkenv import rollout, store
from coworkenv.llm import backend_from_config
from coworkenv.store import stages
from pipelines.code_versions import CODE_VERSIONS
from pipelines.partitions import capability_partitions
from pipelines.resources import CoworkenvSettings
from pipelines.staleness import data_folder_metadata, failed_upstream_checks

TRAJECTORIES = "teacher_trajectories"


@dg.asset(
    partitions_def=capability_partitions,
    deps=[validated_envs],
    group_name="trajectories",
    pool="llm",
    kinds={"parquet"},
    code_version=CODE_VERSIONS[TRAJECTORIES],
    description="Canonical trajectory records of the teacher (oracle by default, or an LLM with rejection sampling).",
    check_specs=[dg.AssetCheckSpec("parquet_schema", asset=TRAJECTORIES, blocking=True)],
)
def teacher_trajectories(context: dg.AssetExecutionContext, settings: CoworkenvSettings) -> dg.MaterializeResult:
    one_run_at_a_time(context, TRAJECTORIES)
    capability = context.partition_key
    refused = failed_upstream_checks(context.instance, ENVS, capability)
    if refused is not None:
        raise dg.Failure(refused)
    envs = store.latest(settings.store_root, ENVS, capability)
    if envs is None:
        raise dg.Failure(f"no validated_envs for {capability}; materialize validated_envs[{capability}] first")
    specs = stages.read_envs(envs)
    teacher: rollout.Teacher
    if settings.llm_url:
        backend = backend_from_config(settings.llm_url, settings.llm_model or None)
        teacher = rollout.LLMTeacher(backend)  # the library's k and sampled temperature
    else:
        teacher = rollout.OracleTeacher(seed=settings.seed)
    records = rollout.rollout_specs(specs, teacher)
    wall_s = sum(r.timings.wall_s for r in records)
    # Clock readings differ on every run: they go to the metadata, so equal episodes store equal bytes.
    table = stages.stored_trajectories_table(records)
    stored = stages.TRAJECTORIES.store(table, settings.store_root, TRAJECTORIES, capability, written_by="rollout")
    passed = sum(1 for r in records if r.passed)
    context.log.info(f"{capability}: {passed}/{len(records)} teacher episodes passed")
    return dg.MaterializeResult(
        data_version=dg.DataVersion(stored.content_hash),
        metadata={
            **table_metadata(stored), **data_folder_metadata(settings),
            "input_hash": envs.content_hash,
            "teacher": teacher.name,
            "episodes": len(records),
            "pass_rate": round(passed / len(records), 4) if records else 0.0,
            "teacher_wall_s": round(wall_s, 3),
            "preview": preview(table, ["env_id", "teacher", "score", "passed", "messages"]),
        },
        check_results=[schema_check(stored.schema, stages.TRAJECTORY_SCHEMA)],
    )

