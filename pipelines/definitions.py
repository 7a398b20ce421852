"""The code location: every asset, check, job, sensor and resource of coworkenv (the only module importing assets)."""

from __future__ import annotations

import dagster as dg

from assets.envs import validated_envs
from assets.hub import hub_dataset
from assets.rl import rl_comparison, rl_training
from assets.sft import sft_shards
from assets.specs import task_specs
from assets.taxonomy import capability_taxonomy
from assets.training import eval_report, pocketworker_checkpoint
from assets.trajectories import teacher_trajectories
from pipelines.console_logger import escaped_console_logger
from pipelines.executors import executor_from_env
from pipelines.instance_errors import check_instance_config_read_by_dagster
from pipelines.jobs import capability_job, publish_job, rl_job
from pipelines.resources import dagster_settings
from pipelines.sensors import taxonomy_sensor

# `dagster dev` (its code server, daemon and each run's steps load this module) read dagster.yaml without the checks
# `python -m pipelines.run` makes first: a key written twice, an alias bomb, a control character. Named here, the
# code location fails to load with the file, the line and what to do, shown in the UI and the terminal.
check_instance_config_read_by_dagster()

defs = dg.Definitions(
    assets=[
        capability_taxonomy, task_specs, validated_envs, teacher_trajectories, sft_shards, hub_dataset,
        pocketworker_checkpoint, eval_report, rl_training, rl_comparison,
    ],
    jobs=[capability_job, publish_job, rl_job],
    sensors=[taxonomy_sensor, dg.AutomationConditionSensorDefinition(
        "aggregates_automation", target=dg.AssetSelection.assets(sft_shards, hub_dataset),
        default_status=dg.DefaultSensorStatus.RUNNING,
    )],
    resources={"settings": dagster_settings()},
    executor=executor_from_env(),
    loggers={"console": escaped_console_logger},  # a path's line break or escape code in a step's log line
)
