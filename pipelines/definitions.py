"""The code location: every asset, check, job, sensor and resource of coworkenv."""

from __future__ import annotations

import os

import dagster as dg

from assets.envs import validated_envs
from assets.hub import hub_dataset
from assets.sft import sft_shards
from assets.specs import task_specs
from assets.taxonomy import capability_taxonomy
from assets.training import eval_report, pocketworker_checkpoint
from assets.trajectories import teacher_trajectories
from pipelines.executors import executor_from_env
from pipelines.jobs import capability_job, publish_job
from pipelines.resources import CoworkenvSettings
from pipelines.sensors import taxonomy_sensor


def settings_from_env() -> CoworkenvSettings:
    """Settings from COWORKENV_* environment variables; unset ones keep the embedded defaults."""
    return CoworkenvSettings(
        data_dir=os.environ.get("COWORKENV_DATA_DIR", "data"),
        taxonomy_dir=os.environ.get("COWORKENV_TAXONOMY_DIR", "taxonomy"),
        seed=int(os.environ.get("COWORKENV_SEED", "0")),
        specs_per_capability=int(os.environ.get("COWORKENV_SPECS_PER_CAPABILITY", "0")),
        llm_url=os.environ.get("COWORKENV_LLM_URL", ""),
        llm_model=os.environ.get("COWORKENV_LLM_MODEL", ""),
        hub_repo_id=os.environ.get("COWORKENV_HUB_REPO_ID", ""),
        train_config=os.environ.get("COWORKENV_TRAIN_CONFIG", "tiny"),
        held_out_capability=os.environ.get("COWORKENV_HELD_OUT_CAPABILITY", ""),
        hub_model_repo_id=os.environ.get("COWORKENV_HUB_MODEL_REPO_ID", ""),
    )


defs = dg.Definitions(
    assets=[
        capability_taxonomy, task_specs, validated_envs, teacher_trajectories, sft_shards, hub_dataset,
        pocketworker_checkpoint, eval_report,
    ],
    jobs=[capability_job, publish_job],
    sensors=[taxonomy_sensor, dg.AutomationConditionSensorDefinition(
        "aggregates_automation", target=dg.AssetSelection.assets(sft_shards, hub_dataset),
        default_status=dg.DefaultSensorStatus.RUNNING,
    )],
    resources={"settings": settings_from_env()},
    executor=executor_from_env(),
)
