"""The Dagster code location: it loads (`dg check defs`), the chain is wired in order, LLM-bound steps share
the `llm` pool, blocking checks guard training data, and dagster.yaml configures the instance as documented."""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest
import yaml

from assets.envs import validated_envs
from assets.specs import task_specs
from assets.taxonomy import capability_taxonomy
from assets.trajectories import TRAJECTORIES, teacher_trajectories
from coworkenv import store
from pipelines.definitions import defs
from pipelines.resources import CoworkenvSettings
from pipelines.staleness import sync_partitions

ROOT = Path(__file__).resolve().parents[1]
CHAIN = [
    "capability_taxonomy", "task_specs", "validated_envs", "teacher_trajectories", "sft_shards", "hub_dataset",
    "pocketworker_checkpoint", "eval_report",
]
RL = ["rl_rollouts", "rl_checkpoint", "rl_comparison"]  # branches off the SFT checkpoint
LLM_BOUND = {"task_specs", "validated_envs", "teacher_trajectories"}
BLOCKING_CHECKS = {
    ("task_specs", "parquet_schema"),
    ("validated_envs", "parquet_schema"), ("validated_envs", "acceptance_rate"), ("validated_envs", "soundness_gates"),
    ("teacher_trajectories", "parquet_schema"),
    ("sft_shards", "no_env_shared_between_splits"), ("sft_shards", "no_duplicate_rows"),
}


def test_dg_check_defs_passes(tmp_path: Path) -> None:
    dg_cli = Path(sys.executable).with_name("dg")
    (tmp_path / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    # A throwaway instance: checking definitions must not create storage in the project's .dagster/.
    env = {**os.environ, "VIRTUAL_ENV": str(Path(sys.executable).parents[1]), "DAGSTER_HOME": str(tmp_path)}
    result = subprocess.run(
        [str(dg_cli), "check", "defs"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "All definitions loaded successfully" in output


def test_asset_graph_is_the_documented_chain() -> None:
    graph = defs.resolve_asset_graph()
    order = [k.to_user_string() for k in graph.toposorted_asset_keys]
    assert [k for k in order if k in CHAIN] == CHAIN and sorted(order) == sorted(CHAIN + RL)
    for upstream, downstream in [*itertools.pairwise(CHAIN), *(("pocketworker_checkpoint", rl) for rl in RL)]:
        parents = {k.to_user_string() for k in graph.get(dg.AssetKey(downstream)).parent_keys}
        assert upstream in parents, f"{downstream} does not depend on {upstream}"
    code_versions = {k.to_user_string(): graph.get(k).code_version for k in graph.get_all_asset_keys()}
    assert all(code_versions[k] for k in CHAIN[1:] + RL), "every built asset has a code version (the UI shows stale)"
    partitioned = {k.to_user_string() for k in graph.get_all_asset_keys() if graph.get(k).is_partitioned}
    assert partitioned == {"capability_taxonomy", *LLM_BOUND}
    assert graph.get(dg.AssetKey("capability_taxonomy")).is_observable


def test_llm_bound_assets_share_the_llm_pool() -> None:
    graph = defs.resolve_asset_graph()
    pools = {k.to_user_string(): graph.get(k).pools for k in graph.get_all_asset_keys()}
    assert {name for name, p in pools.items() if p} == LLM_BOUND
    assert all(pools[name] == {"llm"} for name in LLM_BOUND)


def test_checks_guarding_training_data_are_blocking() -> None:
    graph = defs.resolve_asset_graph()
    blocking = {(k.asset_key.to_user_string(), k.name) for k in graph.asset_check_keys if graph.get(k).blocking}
    assert blocking >= BLOCKING_CHECKS


def test_sensors_and_jobs_are_registered() -> None:
    assert {s.name for s in defs.sensors or []} >= {"taxonomy_sensor", "aggregates_automation"}
    assert {j.name for j in defs.jobs or []} >= {"capability_job", "publish_job", "rl_job"}


def test_every_job_logs_to_the_console_with_its_lines_escaped() -> None:
    """A step's log line naming a path with a line break or a terminal escape (tests/faults/test_faults_data_folder_place)."""
    from pipelines.console_logger import escaped_console_logger

    for name in ("capability_job", "publish_job", "rl_job"):
        assert defs.resolve_job_def(name).loggers == {"console": escaped_console_logger}, name


def test_dagster_yaml_sets_the_llm_pool_limit_and_run_monitoring(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copy(ROOT / "dagster.yaml", tmp_path / "dagster.yaml")
    # The storage paths in dagster.yaml are relative to the working directory (the repository root in `make`).
    monkeypatch.chdir(tmp_path)
    configured = yaml.safe_load((ROOT / "dagster.yaml").read_text())
    instance = dg.DagsterInstance.from_config(str(tmp_path))
    try:
        assert instance.run_monitoring_enabled
        assert instance.run_monitoring_settings["free_slots_after_run_end_seconds"] > 0
        limit = configured["concurrency"]["pools"]["default_limit"]
        assert isinstance(limit, int) and limit >= 1
        info = instance.event_log_storage.get_concurrency_info("llm")
        assert (info.limit, info.using_default_limit) == (limit, True)
        assert (tmp_path / ".dagster" / "storage").is_dir(), "the instance keeps its storage in .dagster/"
    finally:
        instance.dispose()


def test_failing_acceptance_rate_check_blocks_trajectories_in_the_same_run(tmp_path: Path) -> None:
    capability = "report_from_data"
    settings = CoworkenvSettings(data_dir=str(tmp_path / "data"), taxonomy_dir=str(ROOT / "taxonomy"),
                                 specs_per_capability=1, min_acceptance_rate=1.01)
    with dg.instance_for_test() as instance:
        sync_partitions(instance, settings.taxonomy())
        result = dg.materialize(
            [capability_taxonomy, task_specs, validated_envs, teacher_trajectories],
            selection=[task_specs, validated_envs, teacher_trajectories], partition_key=capability,
            instance=instance, resources={"settings": settings}, raise_on_error=False,
        )
        assert not result.success
        checks = {
            e.asset_check_evaluation_data.check_name: e.asset_check_evaluation_data.passed
            for e in result.all_events if e.event_type_value == "ASSET_CHECK_EVALUATION"
            and e.asset_check_evaluation_data.asset_key == validated_envs.key
        }
        assert checks["acceptance_rate"] is False
        assert not [e for e in result.all_events if e.step_key == teacher_trajectories.key.to_user_string()
                    and e.is_step_success]
        assert instance.get_latest_materialization_event(teacher_trajectories.key) is None
        assert store.latest(settings.store_root, TRAJECTORIES, capability) is None


def test_only_the_code_location_imports_assets() -> None:
    """assets/ import pipelines' resources, partitions, staleness and sensors; pipelines import assets only in
    definitions.py, so there is no import cycle between the two packages."""
    import ast

    importers = set()
    for module in sorted((ROOT / "pipelines").glob("*.py")):
        for node in ast.walk(ast.parse(module.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if any(n == "assets" or n.startswith("assets.") for n in names):
                importers.add(module.name)
    assert importers == {"definitions.py"}
