"""sft_shards: curated SFT data from every capability's stored trajectories, split by env and sharded."""


from pathlib import Path
from typing import Any

import dagster as dg
import pyarrow as pa

from assets._metadata import bar_plot, preview, schema_check
from assets.trajectories import TRAJECTORIES, teacher_trajectories
from coworkenv import curate, store
from coworkenv.store import stages
from coworkenv.world import content_hash
from pipelines.code_versions import CODE_VERSIONS
from pipelines.freshness import (
    IncompletePartitions,
    failed_blocking_checks,
    publishable_partitions,
    sft_input_hash,
    sft_paths,
)
from pipelines.resources import CoworkenvSettings
from pipelines.staleness import PartitionState, data_folder_metadata

SFT = "sft_shards"
SFT_TRAJECTORIES = "trajectory_versions"  # metadata: the trajectories version curated, by capability
SPLIT_ENVS = "split_envs"  # metadata: the hash of each split's env ids (which envs, whatever their rows)


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
            SPLIT_ENVS: {split: envs_hash(table) for split, table in sorted(result.splits.items())},
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
    that no longer exists is not listed); a dg.Failure when a blocking check failed on it (an env in two splits,
    duplicate rows, another schema): its run stopped there, and no later run may read its splits either."""
    paths = sft_paths(context.instance, settings)
    if paths is None:
        raise dg.Failure("sft_shards has not been materialized; materialize it first")
    failed = failed_blocking_checks(context.instance, SFT)
    if failed:
        version = sft_version(context.instance.get_latest_materialization_event(sft_shards.key))
        raise dg.Failure(
            f"sft_shards' latest materialization (version {version[:16] or '?'}) failed its blocking checks: "
            f"{'; '.join(failed)}. Its run stopped there, but its splits stayed the latest: reading them would "
            "publish, train or evaluate on what the checks refused (an env in two splits scores the training's own "
            "envs as held out); nothing was read from them. Materialize sft_shards again once the cause is fixed "
            "(`python -m pipelines.run` does it first, and stops there while a check fails)")
    return {split: Path(path) for split, path in paths.items()}


def curated_sft_files(context: dg.AssetExecutionContext, settings: CoworkenvSettings, states: list[PartitionState],
                      harm: str, then: str) -> dict[str, Path]:
    """The split files of the latest sft_shards materialization once it is known to be curated from `states` (the
    partitions the caller reads its envs from) under the curation settings now; else the Failure of
    `refuse_sft_of_other_partitions` (`harm`, `then`: what reading its splits would do, what to materialize after)."""
    refuse_sft_of_other_partitions(context.instance.get_latest_materialization_event(sft_shards.key), states, settings,
                                   harm, then)
    return current_sft_files(context, settings)


def refuse_sft_of_other_partitions(sft_event: dg.EventLogEntry | None, states: list[PartitionState],
                                   settings: CoworkenvSettings, harm: str, then: str) -> None:
    """dg.Failure when the latest sft_shards materialization was not curated from the trajectories of `states` (the
    partitions read beside its splits) under the curation settings now: a partition regenerated since, an sft_shards
    run that failed part way (a full disk between its splits) after it, the held-out capability or test fraction
    changed. Its splits name envs of another generation: a reader taking their env ids from `states` leaves the
    regenerated capability's out without a word (or reads other envs under their ids); a release pushes SFT rows of
    one generation beside the specs, envs and trajectories of another. `harm`: what reading them would do here and
    that nothing was done; `then`: what to materialize after sft_shards."""
    meta = _recorded(sft_event)
    if not meta:
        return  # never materialized: `current_sft_files` says so
    recorded = meta.get("input_hash")
    if recorded is not None and str(recorded.value) == sft_input_hash(states, settings):
        return
    curated_from = meta.get(SFT_TRAJECTORIES)
    versions: dict[str, Any] = dict(curated_from.value) if curated_from is not None else {}  # type: ignore[arg-type]
    now = {s.capability: s.versions[TRAJECTORIES] for s in states}
    parts = []
    if curated_from is not None:
        regenerated = [c for c in now if c in versions and versions[c] != now[c]]
        added, dropped = [c for c in now if c not in versions], sorted(set(versions) - set(now))
        if regenerated:
            parts.append(f"the trajectories of {_listed(regenerated)} changed since (a partition regenerated, or "
                         "sft_shards' last run failed part way: its split files are written one after another)")
        if added:
            parts.append(f"{_listed(added)} {'is' if len(added) == 1 else 'are'} complete now and {'was' if len(added) == 1 else 'were'} "
                         "left out of it (incomplete then, or added to the taxonomy since)")
        if dropped:
            partial = " and COWORKENV_ALLOW_PARTIAL is set" if settings.allow_partial else ""
            parts.append(f"it holds the SFT rows of {_listed(dropped)}, left out now (incomplete{partial}, or "
                         "removed from the taxonomy)")
    what = "; ".join(parts) or ("the curation settings changed (held-out capability, test fraction), a partition "
                                "was regenerated since, or sft_shards' last run failed part way (its split files are "
                                "written one after another)")
    raise dg.Failure(
        f"sft_shards' latest materialization (version {sft_version(sft_event) or '?'}) was not curated from the "
        f"capability partitions as they are now: {what}. {harm}. Materialize sft_shards first "
        f"(`python -m pipelines.run` does it in order), then {then}")


def _listed(capabilities: list[str]) -> str:
    return ", ".join(capabilities[:5]) + (f" and {len(capabilities) - 5} others" if len(capabilities) > 5 else "")


def envs_hash(split: pa.Table) -> str:
    """The hash of the env ids of an SFT split (sorted, each once): equal for two curations that put the same envs
    in it, whatever rows they made of them (episodes made again, other filters)."""
    return content_hash(sorted(set(split.column("env_id").to_pylist())))[:32]


def _recorded(sft_event: dg.EventLogEntry | None) -> Any:
    """The metadata an sft_shards materialization recorded (empty when none)."""
    return sft_event.asset_materialization.metadata if sft_event and sft_event.asset_materialization else {}


def train_envs(sft_event: dg.EventLogEntry | None) -> str | None:
    """The hash of the train split's env ids an sft_shards materialization recorded (None: recorded before they
    were, or no train split)."""
    meta = _recorded(sft_event)
    recorded = meta[SPLIT_ENVS].value if SPLIT_ENVS in meta else {}
    train = recorded.get("train") if isinstance(recorded, dict) else None
    return str(train) if train else None


def sft_version(sft_event: dg.EventLogEntry | None) -> str:
    """The dataset_version an sft_shards materialization recorded ("" when none)."""
    meta = _recorded(sft_event)
    return str(meta["dataset_version"].value) if "dataset_version" in meta else ""
