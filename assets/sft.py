"""sft_shards: curated SFT data from every capability's stored trajectories, split by env and sharded."""


from pathlib import Path

import dagster as dg
import pyarrow as pa

from assets._metadata import bar_plot, preview, schema_check
from assets.trajectories import TRAJECTORIES, teacher_trajectories
from coworkenv import curate, store
from coworkenv.store import stages
from coworkenv.world import content_hash
from pipelines.code_versions import CODE_VERSIONS
from pipelines.freshness import IncompletePartitions, publishable_partitions, sft_input_hash, sft_paths
from pipelines.resources import CoworkenvSettings
from pipelines.staleness import PartitionState, data_folder_metadata

SFT = "sft_shards"
SFT_TRAJECTORIES = "trajectory_versions"  # metadata: the trajectories version curated, by capability


def complete_partitions(context: dg.AssetExecutionContext, settings: CoworkenvSettings) -> list[PartitionState]:
    """The complete capability partitions; a dg.Failure naming the incomplete ones unless settings.allow_partial."""
    try:
        states, problem = publishable_partitions(context.instance, settings)
    except IncompletePartitions as exc:
        raise dg.Failure(str(exc)) from None
    if problem:
        context.log.warning(f"allow_partial is set; leaving them out. {problem}")
    return states


@dg.asset(
    deps=[dg.AssetDep(teacher_trajectories, partition_mapping=dg.AllPartitionMapping())],
    group_name="trajectories",
    kinds={"parquet"},
    description="Curated SFT rows (TRL messages + tools), split by env, with a held-out-capability test split.",
    automation_condition=dg.AutomationCondition.eager(),
    code_version=CODE_VERSIONS[SFT],
    check_specs=[
        dg.AssetCheckSpec("parquet_schema", asset=SFT, blocking=True),
        dg.AssetCheckSpec("no_env_shared_between_splits", asset=SFT, blocking=True),
        dg.AssetCheckSpec("no_duplicate_rows", asset=SFT, blocking=True),
    ],
)
def sft_shards(context: dg.AssetExecutionContext, settings: CoworkenvSettings) -> dg.MaterializeResult:
    states = complete_partitions(context, settings)
    if not states:
        raise dg.Failure("no capability partition is complete yet; materialize them first (python -m pipelines.run)")
    # Each file read is checked against the version the partition check recorded (its bytes may change since).
    trajectories = pa.concat_tables([stages.TRAJECTORIES.read(s.paths[TRAJECTORIES], content_hash=s.versions[TRAJECTORIES])
                                     for s in states])
    held_out = settings.held_out_capability
    config = curate.CurationConfig(heldout_capabilities=(held_out,) if held_out else (),
                                   test_fraction=settings.test_fraction)
    result = curate.curate(trajectories, config=config)
    files = {
        split: stages.SFT.store(table, settings.store_root, SFT, split) for split, table in result.splits.items()
    }
    version = content_hash({split: stored.content_hash for split, stored in sorted(files.items())})
    counts = {split: stored.num_rows for split, stored in files.items()}
    shared = curate.envs_in_several_splits(result.splits)
    all_rows = pa.concat_tables([t for t in result.splits.values() if t.num_rows]) if counts else None
    duplicates = curate.count_duplicate_rows(all_rows) if all_rows is not None else 0
    train = result.splits.get("train")
    return dg.MaterializeResult(
        data_version=dg.DataVersion(version),
        metadata={
            "dagster/row_count": sum(counts.values()),
            "dataset_version": version,
            "paths": {split: str(stored.path) for split, stored in files.items()},
            **data_folder_metadata(settings),
            "input_hash": sft_input_hash(states, settings),
            SFT_TRAJECTORIES: {s.capability: s.versions[TRAJECTORIES] for s in states},
            "capabilities": len(states),
            "rows_per_split": counts,
            "curation_report": result.report,
            "removed_by_filter": bar_plot("rows removed by each filter", result.report.get("removed", {})),
            "rows_per_capability": bar_plot("train rows per capability", result.report.get("train_by_capability", {})),
            "preview": preview(train, ["env_id", "capability", "turns", "messages"]) if train is not None
            else dg.MetadataValue.md("_empty_"),
        },
        check_results=[
            _schemas_check(files),
            dg.AssetCheckResult(check_name="no_env_shared_between_splits", passed=not shared,
                                metadata={"shared_envs": ", ".join(shared[:20]) or "-"}),
            dg.AssetCheckResult(check_name="no_duplicate_rows", passed=duplicates == 0,
                                metadata={"duplicates": duplicates}),
        ],
    )


def _schemas_check(files: dict[str, store.StoredTable]) -> dg.AssetCheckResult:
    """Every split has the TRL row schema (the first mismatch is reported)."""
    for split, stored in sorted(files.items()):
        result = schema_check(stored.schema, stages.SFT_SCHEMA)
        if not result.passed:
            return dg.AssetCheckResult(check_name="parquet_schema", passed=False,
                                       metadata={"split": split, **result.metadata})
    return dg.AssetCheckResult(check_name="parquet_schema", passed=True, metadata={"splits": ", ".join(sorted(files))})


def current_sft_files(context: dg.AssetExecutionContext, settings: CoworkenvSettings) -> dict[str, Path]:
    """The split files of the latest sft_shards materialization, where they are in the data folder now (a split
    that no longer exists is not listed)."""
    paths = sft_paths(context.instance, settings)
    if paths is None:
        raise dg.Failure("sft_shards has not been materialized; materialize it first")
    return {split: Path(path) for split, path in paths.items()}
