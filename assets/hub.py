"""hub_dataset: one versioned dataset release (specs, envs, trajectories, sft) published to the Hub or local git."""


from typing import Any

import dagster as dg
import pyarrow as pa

from assets.envs import ENVS, validated_envs
from assets.sft import (
    complete_partitions,
    current_sft_files,
    refuse_sft_of_other_partitions,
    sft_shards,
    sft_version,
    train_envs,
)
from assets.specs import SPECS, task_specs
from assets.trajectories import TRAJECTORIES, teacher_trajectories
from coworkenv import store, validate
from coworkenv.store import stages
from pipelines.code_versions import CODE_VERSIONS
from pipelines.freshness import generation_settings, hub_input_hash
from pipelines.resources import CoworkenvSettings
from pipelines.staleness import PartitionState, data_folder_metadata, latest_materialization

ROWS_PER_SHARD = 5000
SFT_VERSION = "sft_version"  # metadata of hub_dataset and pocketworker_checkpoint: the sft_shards version released
SFT_TRAIN_ENVS = "sft_train_envs"  # metadata of both: the hash of that version's train split env ids (assets.sft)
_ALL = dg.AllPartitionMapping()


@dg.asset(
    deps=[
        sft_shards,
        dg.AssetDep(task_specs, partition_mapping=_ALL),
        dg.AssetDep(validated_envs, partition_mapping=_ALL),
        dg.AssetDep(teacher_trajectories, partition_mapping=_ALL),
    ],
    group_name="publish",
    kinds={"huggingface"},
    automation_condition=dg.AutomationCondition.eager(),
    code_version=CODE_VERSIONS["hub_dataset"],
    description="The dataset repository: configs specs/envs/trajectories/sft as data/<config>/<split>-*.parquet + card.",
)
def hub_dataset(context: dg.AssetExecutionContext, settings: CoworkenvSettings) -> dg.MaterializeResult:
    states = complete_partitions(context, settings)

    def concat(dataset: str, stage: stages.Stage) -> list[pa.Table]:
        tables = [stage.read(s.paths[dataset], content_hash=s.versions[dataset]) for s in states]  # as checked
        return store.shard_table(pa.concat_tables(tables), ROWS_PER_SHARD) if tables else []

    sft_meta = context.instance.get_latest_materialization_event(sft_shards.key)
    refuse_sft_of_other_partitions(
        sft_meta, states, settings,
        "Publishing it would push SFT rows of one generation beside the specs, envs and trajectories of another as "
        "one version; nothing was published", "hub_dataset")
    funnel = published_funnel(context, states)
    configs: dict[str, dict[str, list[pa.Table]]] = {
        "specs": {"train": concat(SPECS, stages.SPECS)},
        "envs": {"train": concat(ENVS, stages.ENVS)},
        "trajectories": {"train": concat(TRAJECTORIES, stages.TRAJECTORIES)},
        "sft": {},
    }
    for split, path in current_sft_files(context, settings).items():
        configs["sft"][split] = store.shard_table(stages.SFT.read(path), ROWS_PER_SHARD)
    configs = {c: {s: t for s, t in splits.items() if t} for c, splits in configs.items()}
    configs = {c: splits for c, splits in configs.items() if splits}
    version = store.release_version(configs)
    card = store.DatasetCardInfo(
        pretty_name="coworkenv: verified environments and trajectories for AI coworkers",
        description=(
            "Executable coworker environments (mail, calendar, files, chat, tickets, services, logs, directory) "
            "that passed programmatic soundness gates, teacher trajectories in them, and curated SFT rows."
        ),
        tags=["agents", "tool-use", "synthetic", "coworkenv"],
        funnel=card_funnel(funnel),
        generation_settings=generation_settings(settings),
        models={"generator": settings.llm_model or "procedural", "teacher": settings.llm_model or "oracle"},
        versions=_versions(sft_meta),
    )
    release = store.DatasetRelease(version=version, configs=configs, card=card, default_config="sft")
    publisher = store.publisher_from_config(settings.hub_repo_id or None, settings.root / "hub" / "dataset")
    result = publisher.publish(release)
    context.log.info(f"published {version} to {result.location}")
    return dg.MaterializeResult(
        data_version=dg.DataVersion(version),
        metadata={
            "version": version,
            "input_hash": hub_input_hash(states, sft_version(sft_meta), settings),
            SFT_VERSION: sft_version(sft_meta),  # the SFT splits a checkpoint trained on this release learned from
            **({SFT_TRAIN_ENVS: train} if (train := train_envs(sft_meta)) else {}),  # which envs: refuse_other_sft
            "capabilities": len(states),
            "location": result.location,
            **data_folder_metadata(settings),
            "revision": result.revision,
            "tag": result.tag,
            "files": len(result.files),
            "funnel": funnel.as_dict(),
            "rows": {c: sum(t.num_rows for s in splits.values() for t in s) for c, splits in configs.items()},
            "load_with": dg.MetadataValue.md(
                f"```python\nfrom datasets import load_dataset\nload_dataset({result.location!r}, 'sft')\n```"
            ),
        },
    )


def published_funnel(context: dg.AssetExecutionContext, states: list[PartitionState]) -> validate.Funnel:
    """The merged acceptance funnel of the published partitions (from their validated_envs materializations)."""
    total = validate.Funnel()
    for state in states:
        record = latest_materialization(context.instance, validated_envs.key, state.capability)
        meta = record.asset_materialization.metadata if record and record.asset_materialization else {}
        if "funnel" in meta:
            total = total.merge(funnel_from_dict(meta["funnel"].value, state.capability))  # type: ignore[arg-type]
    return total


def card_funnel(funnel: validate.Funnel) -> dict[str, int | float]:
    """The dataset card's funnel table: specs per stage, then accepted specs by repair rounds needed."""
    rows: dict[str, int | float] = dict(funnel.stages)
    for rounds, n in sorted(funnel.repair_rounds.items()):
        rows[f"accepted after {rounds} repair round{'s' if rounds != 1 else ''}"] = n
    return rows


def funnel_from_dict(data: dict[str, Any], capability: str) -> validate.Funnel:
    """The Funnel of one capability partition from its recorded `Funnel.as_dict()`."""
    funnel = validate.Funnel.from_dict(data)
    if not funnel.by_capability:
        funnel.by_capability = {capability: validate.Funnel.from_dict({**data, "by_capability": {}})}
    return funnel


def _versions(sft_event: dg.EventLogEntry | None) -> dict[str, str]:
    from importlib.metadata import version

    out = {pkg: version(pkg) for pkg in ("coworkenv", "dagster", "pyarrow", "datasets")}
    if sft_event is not None and sft_event.asset_materialization is not None:
        found = sft_event.asset_materialization.metadata.get("dataset_version")
        if found is not None:
            out["sft_shards"] = str(found.value)
    return out
