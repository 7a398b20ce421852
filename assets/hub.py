"""hub_dataset: one versioned dataset release (specs, envs, trajectories, sft) published to the Hub or local git."""


import dagster as dg
import pyarrow as pa

from assets.envs import ENVS, validated_envs
from assets.sft import current_sft_files, sft_shards, stored_partitions
from assets.specs import SPECS, task_specs
from assets.trajectories import TRAJECTORIES, teacher_trajectories
from coworkenv import store, synth
from pipelines.resources import CoworkenvSettings

ROWS_PER_SHARD = 5000
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
    description="The dataset repository: configs specs/envs/trajectories/sft as data/<config>/<split>-*.parquet + card.",
)
def hub_dataset(context: dg.AssetExecutionContext, settings: CoworkenvSettings) -> dg.MaterializeResult:
    def concat(dataset: str) -> list[pa.Table]:
        tables = [store.read_table(s) for s in stored_partitions(context, settings, dataset)]
        return store.shard_table(pa.concat_tables(tables), ROWS_PER_SHARD) if tables else []

    configs: dict[str, dict[str, list[pa.Table]]] = {
        "specs": {"train": concat(SPECS)},
        "envs": {"train": concat(ENVS)},
        "trajectories": {"train": concat(TRAJECTORIES)},
        "sft": {},
    }
    sft_meta = context.instance.get_latest_materialization_event(sft_shards.key)
    for split, path in current_sft_files(context).items():
        configs["sft"][split] = store.shard_table(store.read_table(path), ROWS_PER_SHARD)
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
        funnel=_funnel(context),
        generation_settings={
            "generator": settings.llm_model or f"procedural:{synth.GENERATOR_VERSION}",
            "seed": settings.seed, "repair_rounds": settings.repair_rounds,
            "specs_per_capability": settings.specs_per_capability or "quota",
        },
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
            "location": result.location,
            "revision": result.revision,
            "tag": result.tag,
            "files": len(result.files),
            "rows": {c: sum(t.num_rows for s in splits.values() for t in s) for c, splits in configs.items()},
            "load_with": dg.MetadataValue.md(
                f"```python\nfrom datasets import load_dataset\nload_dataset({result.location!r}, 'sft')\n```"
            ),
        },
    )


def _funnel(context: dg.AssetExecutionContext) -> dict[str, int | float]:
    """Sum of the per-capability funnels recorded on the latest validated_envs materializations."""
    totals: dict[str, int | float] = {}
    for capability in context.instance.get_dynamic_partitions("capability"):
        records = context.instance.fetch_materializations(
            dg.AssetRecordsFilter(asset_key=validated_envs.key, asset_partitions=[capability]), limit=1
        ).records
        if not records or records[0].asset_materialization is None:
            continue
        funnel = records[0].asset_materialization.metadata.get("funnel")
        data = funnel.value if funnel is not None else {}
        for stage in ("generated", "schema_valid", "coherent", "solvable", "sound", "accepted"):
            totals[stage] = int(totals.get(stage, 0)) + int(data.get(stage, 0))  # type: ignore[union-attr]
    if totals.get("generated"):
        totals["acceptance_rate"] = round(int(totals["accepted"]) / int(totals["generated"]), 4)
    return totals


def _versions(sft_event: dg.EventLogEntry | None) -> dict[str, str]:
    from importlib.metadata import version

    out = {pkg: version(pkg) for pkg in ("coworkenv", "dagster", "pyarrow", "datasets")}
    if sft_event is not None and sft_event.asset_materialization is not None:
        found = sft_event.asset_materialization.metadata.get("dataset_version")
        if found is not None:
            out["sft_shards"] = str(found.value)
    return out
