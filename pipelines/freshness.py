"""What the aggregate stage is made from, so that an unchanged input is not rebuilt, republished or retrained.

Each aggregate asset records `input_hash` (the hash of everything it is made from, its code version included) in
its materialization metadata. It is up to date when the hash it would have now equals the recorded one and its
output is still on disk: sft_shards from the complete partitions' trajectories and the curation settings;
hub_dataset from the SFT version, the partitions' data versions and the generation settings; the checkpoint from
the dataset version and the trainer config; the eval report from the checkpoint and the held-out envs; the RL
assets from the checkpoint, the RL config and the train-split envs they run episodes in.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain, zip_longest
from pathlib import Path
from typing import TYPE_CHECKING, Any

import dagster as dg

from coworkenv.store import stages
from coworkenv.world import content_hash
from pipelines.code_versions import CODE_VERSIONS
from pipelines.jobs import AGGREGATES, RL_ASSETS, RL_STEP
from pipelines.resources import CoworkenvSettings
from pipelines.staleness import (
    DATA_DIR,
    PartitionState,
    failed_blocking_checks,
    incomplete_message,
    located,
    moved_file,
    partition_states,
)

if TYPE_CHECKING:
    from trainers.config import SFTRunConfig
    from trainers.rl_config import RLRunConfig


class IncompletePartitions(ValueError):
    """Publishing was asked for while some capability partitions are incomplete (and partial is not allowed)."""


def publishable_partitions(instance: dg.DagsterInstance, settings: CoworkenvSettings) -> tuple[list[PartitionState], str]:
    """(the complete capability partitions, a line naming the incomplete ones or "").

    IncompletePartitions when one is incomplete, unless settings.allow_partial (then they are left out).
    """
    states = partition_states(instance, settings.taxonomy(), settings)
    problem = incomplete_message(states)
    if problem and not settings.allow_partial:
        raise IncompletePartitions(
            f"{problem}. Regenerate them with `python -m pipelines.run`, or publish without them with "
            "`python -m pipelines.run --allow-partial` (COWORKENV_ALLOW_PARTIAL=1)"
        )
    return [s for s in states if s.complete], problem


def latest_metadata(instance: dg.DagsterInstance, asset: str) -> dict[str, Any] | None:
    """The metadata values of an unpartitioned asset's latest materialization, or None."""
    event = instance.get_latest_materialization_event(dg.AssetKey(asset))
    if event is None or event.asset_materialization is None:
        return None
    return {k: v.value for k, v in event.asset_materialization.metadata.items()}


def sft_paths(instance: dg.DagsterInstance, settings: CoworkenvSettings) -> dict[str, str] | None:
    """The split files of the latest sft_shards materialization by split, where they are in the data folder now
    (`located`); None when it was never materialized."""
    meta = latest_metadata(instance, "sft_shards")
    if meta is None or "paths" not in meta:
        return None
    return {split: located(str(path), meta, settings.root) for split, path in meta["paths"].items()}


def trainer_config_hash(config: str | Path | SFTRunConfig) -> str:
    """Hash of the resolved trainer config: a loaded one, or a name or YAML path read now (a missing or invalid
    config raises with its path). What is trained records the hash of the config it loaded once and trains with: a
    second read of the file would hash an edit made in between."""
    from trainers.config import SFTRunConfig, load_sft_config

    loaded = config if isinstance(config, SFTRunConfig) else load_sft_config(config)
    return content_hash(loaded.model_dump(mode="json"))[:16]


def sft_input_hash(states: list[PartitionState], settings: CoworkenvSettings) -> str:
    return content_hash({
        "code": CODE_VERSIONS["sft_shards"],
        "trajectories": {s.capability: s.versions["teacher_trajectories"] for s in states},
        "held_out": settings.held_out_capability, "test_fraction": settings.test_fraction,
    })[:32]


def generation_settings(settings: CoworkenvSettings) -> dict[str, Any]:
    """The generation settings a dataset release records in its card."""
    from coworkenv.synth import GENERATOR_VERSION

    return {
        "generator": settings.llm_model or f"procedural:{GENERATOR_VERSION}",
        "seed": settings.seed, "repair_rounds": settings.repair_rounds,
        "specs_per_capability": settings.specs_per_capability or "quota",
    }


def hub_input_hash(states: list[PartitionState], sft_version: str, settings: CoworkenvSettings) -> str:
    return content_hash({
        "code": CODE_VERSIONS["hub_dataset"], "sft": sft_version,
        "partitions": {s.capability: s.versions for s in states},
        "generation": generation_settings(settings), "repo": settings.hub_repo_id,
    })[:32]


def checkpoint_input_hash(dataset_version: str, settings: CoworkenvSettings,
                          config: SFTRunConfig | None = None) -> str:
    """`config`: the trainer config as loaded for the training (else settings.train_config is read now)."""
    return content_hash({
        "code": CODE_VERSIONS["pocketworker_checkpoint"], "dataset": dataset_version,
        "trainer_config": trainer_config_hash(config or settings.train_config), "repo": settings.hub_model_repo_id,
    })[:32]


def held_out_env_ids(sft_paths: dict[str, str], states: list[PartitionState], limit: int) -> list[str]:
    """`limit` envs of the SFT test splits that are in complete partitions, taken round-robin over capabilities
    (each capability's envs by id), so a limit below the split's size still covers every capability."""
    return _split_env_ids(sft_paths, states, limit, lambda split: split.startswith("test"))


def train_env_ids(sft_paths: dict[str, str], states: list[PartitionState], limit: int) -> list[str]:
    """`limit` envs of the SFT train split (what the checkpoint learned from), round-robin over capabilities."""
    return _split_env_ids(sft_paths, states, limit, lambda split: split == "train")


def _split_env_ids(sft_paths: dict[str, str], states: list[PartitionState], limit: int,
                   wanted: Callable[[str], bool]) -> list[str]:
    chosen: set[str] = set()
    for split, path in sft_paths.items():
        if wanted(split):
            chosen |= set(stages.read_sft_column(path, "env_id"))
    by_capability: dict[str, list[str]] = {}
    for state in states:
        envs = stages.ENVS.read(state.paths["validated_envs"], ["env_id", "capability"],
                                content_hash=state.versions["validated_envs"]).to_pylist()
        for row in envs:
            if row["env_id"] in chosen:
                by_capability.setdefault(row["capability"], []).append(row["env_id"])
    queues = [sorted(ids) for _, ids in sorted(by_capability.items())]
    rounds = zip_longest(*queues)
    return [env_id for env_id in chain.from_iterable(rounds) if env_id is not None][:limit]


def no_held_out_message(settings: CoworkenvSettings) -> str:
    """Why training is refused when the published dataset has no held-out envs, and what to change."""
    return (
        "no held-out envs to evaluate on: the SFT test splits of the published dataset are empty, so training "
        "would be wasted. Generate more specs (COWORKENV_SPECS_PER_CAPABILITY, or the capabilities' quota) or hold "
        "a whole capability out with COWORKENV_HELD_OUT_CAPABILITY=<capability id>"
        + (f" (now {settings.held_out_capability!r})" if settings.held_out_capability else "")
    )


def no_train_message(settings: CoworkenvSettings) -> str:
    """Why training is refused when the published dataset has no train envs, and what to change."""
    return (
        "no train envs to learn from: the SFT train split of the published dataset is empty (every env landed in a "
        f"test or validation split; COWORKENV_TEST_FRACTION is {settings.test_fraction:g}). Generate more specs "
        "(COWORKENV_SPECS_PER_CAPABILITY, or the capabilities' quota) or lower COWORKENV_TEST_FRACTION"
    )


def eval_input_hash(checkpoint_version: str, env_ids: list[str], settings: CoworkenvSettings) -> str:
    return content_hash({
        "code": CODE_VERSIONS["eval_report"], "checkpoint": checkpoint_version, "envs": env_ids,
        "options": [settings.eval_k, settings.eval_max_steps, settings.eval_max_tokens], "repo": settings.hub_model_repo_id,
    })[:32]


def rl_config_hash(config: str | Path | RLRunConfig) -> str:
    """Hash of the resolved RL config: a loaded one (what is trained), or a name or YAML path read now (a missing or
    invalid config raises with its path)."""
    from trainers.rl_config import RLRunConfig, load_rl_config

    loaded = config if isinstance(config, RLRunConfig) else load_rl_config(config)
    return content_hash(loaded.model_dump(mode="json", exclude={"distributed"}))[:16]


def rl_input_hash(asset: str, checkpoint_version: str, env_ids: list[str], settings: CoworkenvSettings,
                  config: RLRunConfig | None = None) -> str:
    """What an RL asset is made from: the SFT checkpoint, the RL config (`config` as loaded for the training, else
    settings.rl_config read now), the envs (and the seeds of the comparison)."""
    return content_hash({
        "code": CODE_VERSIONS[RL_STEP.get(asset, asset)], "checkpoint": checkpoint_version, "envs": env_ids,
        "rl_config": rl_config_hash(config or settings.rl_config),
        "seeds": settings.rl_seeds if asset == "rl_comparison" else None,
    })[:32]


def current_input_hash(instance: dg.DagsterInstance, asset: str, settings: CoworkenvSettings) -> str | None:
    """The input hash `asset` would record if materialized now; None when an upstream was never materialized."""
    if asset in RL_ASSETS:
        checkpoint = latest_metadata(instance, "pocketworker_checkpoint")
        if checkpoint is None:
            return None
        envs = train_env_ids(sft_paths(instance, settings) or {}, publishable_partitions(instance, settings)[0],
                             settings.rl_max_envs)
        return rl_input_hash(asset, str(checkpoint["model_tag"]), envs, settings)
    if asset == "sft_shards":
        return sft_input_hash(publishable_partitions(instance, settings)[0], settings)
    upstream = AGGREGATES[AGGREGATES.index(asset) - 1]
    meta = latest_metadata(instance, upstream)
    if meta is None:
        return None
    if asset == "hub_dataset":
        return hub_input_hash(publishable_partitions(instance, settings)[0], str(meta["dataset_version"]), settings)
    if asset == "pocketworker_checkpoint":
        return checkpoint_input_hash(str(meta["version"]), settings)
    envs = held_out_env_ids(sft_paths(instance, settings) or {}, publishable_partitions(instance, settings)[0],
                            settings.eval_max_envs)
    return eval_input_hash(str(meta["model_tag"]), envs, settings)


def _outputs(asset: str, meta: dict[str, Any], settings: CoworkenvSettings) -> list[str]:
    """The local files or folders an aggregate's latest materialization left, where they are in the data folder
    now (a Hub repo is not checked)."""
    if asset == "sft_shards":
        recorded = [str(p) for p in meta.get("paths", {}).values()]
    elif asset == "hub_dataset":
        recorded = [] if settings.hub_repo_id else [str(meta["location"])]
    elif asset in RL_ASSETS:
        recorded = [str(meta[{"rl_rollouts": "path", "rl_checkpoint": "checkpoint"}.get(asset, "report_path")])]
    else:
        recorded = [str(meta["checkpoint" if asset == "pocketworker_checkpoint" else "report_path"])]
    if DATA_DIR not in meta:  # made before records named their data folder: `why_stale` says where a moved one is
        return recorded
    return [located(path, meta, settings.root) for path in recorded]


def why_stale(instance: dg.DagsterInstance, asset: str, settings: CoworkenvSettings) -> str:
    """Why `asset` must be rebuilt now, or "" when its latest materialization is up to date."""
    meta = latest_metadata(instance, asset)
    if meta is None:
        return "never materialized"
    failed = failed_blocking_checks(instance, asset)
    if failed:
        return f"its blocking checks failed on its latest materialization: {'; '.join(failed)}"
    now = current_input_hash(instance, asset, settings)
    if now is None or meta.get("input_hash") != now:
        return "its inputs changed"
    gone = [p for p in _outputs(asset, meta, settings) if not Path(p).exists()]
    if not gone:
        return ""
    moved = moved_file(Path(gone[0]), settings.root)
    if moved is not None:  # its files are read by their recorded paths (by later steps too): made again here
        return moved_data_folder_reason(gone[0], moved[0], settings.root)
    return f"its output {gone[0]} is gone"


def moved_data_folder_reason(gone: str, old: Path, root: Path) -> str:
    """Why an aggregate whose output moved with the data folder is rebuilt, with both folders and the way back."""
    return (f"its output {gone} is gone: the data folder was moved, the run history records it under {old} and the "
            f"same path is under {root}, the data folder now; made again there (to reuse it instead, move the folder "
            f"back to {old})")
