"""rl_rollouts + rl_checkpoint (one GRPO run from the SFT checkpoint) and rl_comparison (reward x credit x seeds).

The RL runs start from the latest pocketworker_checkpoint and run student episodes in envs of the SFT train split
(never the held-out ones the eval report measures). The work is `trainers.rl` / `trainers.rl_compare`; these
functions pick the envs, record what was made from what (`input_hash`, data versions) and attach the reward curves.
"""

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import dagster as dg
import pyarrow as pa

from assets._metadata import png_markdown, table_metadata
from assets.sft import complete_partitions, curated_sft_files
from assets.training import pocketworker_checkpoint, sft_checkpoint_folder, specs_by_id
from coworkenv.checkpoint_manifest import record_problem
from coworkenv.spec import EnvSpec
from coworkenv.store import stages
from pipelines.code_versions import CODE_VERSIONS
from pipelines.freshness import rl_config_hash, rl_input_hash, train_env_ids
from pipelines.resources import CoworkenvSettings
from pipelines.staleness import data_folder_metadata
from trainers.checkpoint_files import restore_interrupted_replace

if TYPE_CHECKING:
    from trainers.rl import RLResult

RL_ROLLOUTS, RL_CHECKPOINT, RL_COMPARISON = "rl_rollouts", "rl_checkpoint", "rl_comparison"


def _sft_checkpoint(context: dg.AssetExecutionContext, settings: CoworkenvSettings) -> tuple[Path, str, str | None]:
    """(folder, version tag, sha256 of its record of its files) of the latest SFT checkpoint, which must still hold
    the record its materialization names (a materialization made before they named it: None, taken as it is)."""
    event = context.instance.get_latest_materialization_event(pocketworker_checkpoint.key)
    if event is None or event.asset_materialization is None:
        raise dg.Failure("pocketworker_checkpoint has not been materialized; train it first (python -m pipelines.run)")
    meta = event.asset_materialization.metadata
    folder, tag = sft_checkpoint_folder(meta, settings), str(meta["model_tag"].value)
    record = str(meta["checkpoint_record"].value) if "checkpoint_record" in meta else None
    # A training saving into the folder since (a second run sharing the data folder, `train sft --out` by hand)
    # leaves a whole checkpoint: RL would start from it under this one's tag. (train_rl checks it again as it loads.)
    if not folder.exists():
        restore_interrupted_replace(folder)  # a training stopped between its two renames
    other = None if record is None else record_problem(
        folder, record, f"nothing was trained. Materialize pocketworker_checkpoint again (its {tag} is gone), then "
        "the RL assets")
    if other is not None:
        raise dg.Failure(other)
    return folder, tag, record


def _train_envs(context: dg.AssetExecutionContext, settings: CoworkenvSettings) -> tuple[list[EnvSpec], list[str]]:
    """The specs and ids of up to settings.rl_max_envs train-split envs, round-robin over capabilities."""
    states = complete_partitions(context, settings)
    files = curated_sft_files(
        context, settings, states,
        "Its train split names the envs of the generation it was curated from: the regenerated capabilities' envs "
        "would drop out of the RL runs (or other envs run under their ids) without saying so; nothing was trained",
        "hub_dataset, pocketworker_checkpoint and the RL assets")
    ids = train_env_ids({split: str(path) for split, path in files.items()}, states, settings.rl_max_envs)
    if not ids:
        raise dg.Failure("the published dataset has no train split envs to run RL episodes in")
    return specs_by_id(states, ids), ids


def _progress(context: dg.AssetExecutionContext, label: str) -> Any:
    def log(entry: dict[str, float]) -> None:
        context.log.info(f"{label} step {int(entry['step'])}: reward {entry.get('reward', 0.0):.3f} "
                         f"score {entry.get('env/score', 0.0):.3f} pass {entry.get('env/pass_rate', 0.0):.2f} "
                         f"tool calls {entry.get('env/tool_calls', 0.0):.2f} reference calls made "
                         f"{entry.get('env/call_share', 0.0):.3f}")
    return log


@dg.multi_asset(
    specs=[
        dg.AssetSpec(RL_ROLLOUTS, deps=[pocketworker_checkpoint], group_name="rl", kinds={"parquet"},
                     code_version=CODE_VERSIONS[RL_CHECKPOINT],
                     description="The student's GRPO episodes (trajectory records with their RL step), as trained on."),
        dg.AssetSpec(RL_CHECKPOINT, deps=[pocketworker_checkpoint], group_name="rl", kinds={"pytorch"},
                     code_version=CODE_VERSIONS[RL_CHECKPOINT],
                     description="GRPO (TRL) from the SFT checkpoint with env rewards; reward curve and its slope."),
    ],
)
def rl_training(context: dg.AssetExecutionContext, settings: CoworkenvSettings) -> Iterator[dg.MaterializeResult]:
    from trainers.rl_config import load_rl_config

    checkpoint, tag, record = _sft_checkpoint(context, settings)
    specs, ids = _train_envs(context, settings)
    config = load_rl_config(settings.rl_config)  # read once: the version names the config trained with
    input_hash = rl_input_hash(RL_CHECKPOINT, tag, ids, settings, config)
    # Imported once the inputs are checked: torch takes seconds (tens on a loaded machine), a refusal none.
    from coworkenv.rollout import trajectories_table
    from coworkenv.store.stages import read_trajectories
    from trainers.rl import train_rl
    from trainers.rl_report import reward_slope, slope_summary, summarize_run, zero_variance_fraction

    version = f"{Path(settings.rl_config).stem}-{rl_config_hash(config)[:8]}-{input_hash[:12]}"
    out_dir = settings.root / "checkpoints" / f"rl-{version}"
    context.log.info(f"GRPO ({settings.rl_config}) from {checkpoint.name} in {len(specs)} train envs")
    result = train_rl(config, specs, out_dir, model_path=checkpoint, progress=_progress(context, "RL"),
                      model_record=record)
    steps = sorted((out_dir / "rollouts").glob("step-*"))
    tables = [trajectories_table(read_trajectories(folder, written_by="rl")) for folder in steps]
    tables = [t.append_column("rl_step", pa.array([int(f.name.split("-")[1])] * t.num_rows, pa.int32()))
              for f, t in zip(steps, tables, strict=True)]
    if not tables:
        raise dg.Failure(f"the RL run wrote no rollouts under {out_dir / 'rollouts'} (rollout.save_rollouts is off "
                         f"in {settings.rl_config}?)")
    rollouts = stages.RL_ROLLOUTS.store(pa.concat_tables(tables), settings.store_root, RL_ROLLOUTS, written_by="rl")
    passed = pa.concat_tables(tables).column("passed").to_pylist()
    yield dg.MaterializeResult(
        asset_key=RL_ROLLOUTS,
        data_version=dg.DataVersion(rollouts.content_hash),
        metadata={**table_metadata(rollouts), **data_folder_metadata(settings), "input_hash": input_hash, "episodes": len(passed),
                  "pass_rate": round(sum(passed) / len(passed), 4), "rl_steps": len(steps)},
    )
    slope = reward_slope(result.log)
    summary = summarize_run(result.log)
    no_variance = zero_variance_fraction(result.log)
    calls = [e["env/tool_calls"] for e in result.log if "env/tool_calls" in e]
    if no_variance is not None and no_variance >= 1.0:
        silent = (" Not one episode made a tool call: the SFT student does not yet write tool calls, so neither the "
                  "verifiers' scores nor the reference-call credit can differ") if calls and max(calls) == 0 else ""
        context.log.warning(f"RL learned nothing: in all {result.steps} steps every GRPO group's episodes got the "
                            "same reward (zero advantage, no gradient). The starting checkpoint's samples do not "
                            f"vary in reward in these envs.{silent} (docs/learning.md)")
    yield dg.MaterializeResult(
        asset_key=RL_CHECKPOINT,
        data_version=dg.DataVersion(version),
        metadata={
            "checkpoint": dg.MetadataValue.path(str(out_dir)),
            **data_folder_metadata(settings),
            "input_hash": input_hash,
            "config": settings.rl_config, "reward": result.reward, "credit": result.credit,
            "started_from": tag, "envs": len(result.envs), "envs_left_out": len(result.envs_skipped),
            "steps": result.steps, "wall_s": result.wall_s,
            "reward_first": summary["reward_first"], "reward_last": summary["reward_last"],
            "call_credit": result.config.get("call_credit", 0.0),
            **({"tool_calls_per_episode": round(sum(calls) / len(calls), 4)} if calls else {}),
            "reward_slope": dg.MetadataValue.md(slope_summary(result.log)),
            **({"groups_without_reward_variance": round(no_variance, 4)} if no_variance is not None else {}),
            **({"reward_slope_low": slope.low, "reward_slope_high": slope.high} if slope else {}),
            "reward_curve": png_markdown(result.reward_curve.read_bytes(), "RL reward curve"),
            "reward_curve_path": dg.MetadataValue.path(str(result.reward_curve)),
        },
    )


@dg.asset(
    deps=[pocketworker_checkpoint],
    group_name="rl",
    code_version=CODE_VERSIONS[RL_COMPARISON],
    description="Every reward treatment x credit assignment, settings.rl_seeds seeds each, from the SFT checkpoint: "
                "table, reward curves, reward slope per variant with a t-interval over seeds.",
)
def rl_comparison(context: dg.AssetExecutionContext, settings: CoworkenvSettings) -> dg.MaterializeResult:
    from trainers.rl_config import load_rl_config

    checkpoint, tag, record = _sft_checkpoint(context, settings)
    specs, ids = _train_envs(context, settings)
    config = load_rl_config(settings.rl_config)  # read once: the input hash names the config the runs train with
    input_hash = rl_input_hash(RL_COMPARISON, tag, ids, settings, config)
    from trainers.rl_compare import compare_rl_variants  # once the inputs are checked (torch: seconds)

    out_dir = settings.root / "rl-comparisons" / f"{Path(settings.rl_config).stem}-{input_hash[:12]}"

    def done(result: "RLResult") -> None:
        context.log.info(f"{result.reward}/{result.credit} seed {result.config['training']['seed']}: "
                         f"{result.steps} steps in {result.wall_s:.0f} s")

    comparison = compare_rl_variants(config, specs, out_dir, model_path=checkpoint,
                                     seeds=range(settings.rl_seeds), on_variant=done, model_record=record)
    markdown = comparison.markdown.read_text(encoding="utf-8")
    return dg.MaterializeResult(
        metadata={
            "report": dg.MetadataValue.md(markdown),
            "report_path": dg.MetadataValue.path(str(comparison.markdown)),
            **data_folder_metadata(settings),
            "input_hash": input_hash,
            "started_from": tag,
            "runs": len(comparison.rows),
            "reward_curves": png_markdown(comparison.plot.read_bytes(), "RL variants: mean reward per step over seeds"),
            "plot_path": dg.MetadataValue.path(str(comparison.plot)),
        },
    )
