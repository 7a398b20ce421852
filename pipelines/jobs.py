"""Jobs: one capability partition through the chain, and the aggregate publish/train stage."""

import dagster as dg

PER_CAPABILITY = ["task_specs", "validated_envs", "teacher_trajectories"]
AGGREGATES = ["sft_shards", "hub_dataset", "pocketworker_checkpoint", "eval_report"]
RL_ASSETS = ["rl_rollouts", "rl_checkpoint", "rl_comparison"]
RL_STEP = {"rl_rollouts": "rl_checkpoint"}  # one GRPO run materializes both: they share its code version

capability_job = dg.define_asset_job(
    "capability_job",
    selection=dg.AssetSelection.assets(*PER_CAPABILITY),
    description="Generate, validate and roll out one capability (a partition).",
)
publish_job = dg.define_asset_job(
    "publish_job",
    selection=dg.AssetSelection.assets(*AGGREGATES),
    description="Curate SFT shards from all stored partitions, publish the dataset, train and evaluate.",
)
rl_job = dg.define_asset_job(
    "rl_job",
    selection=dg.AssetSelection.assets(*RL_ASSETS),
    description="GRPO from the SFT checkpoint (rollouts + checkpoint), and the reward x credit comparison.",
)
