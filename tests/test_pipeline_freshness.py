"""The aggregate stage rebuilds only what changed: training is skipped while the dataset version and the trainer
config are unchanged, evaluation while the checkpoint and the held-out envs are; a second `pipelines.run` with
nothing changed launches no run at all."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import pytest

from assets.envs import validated_envs
from assets.hub import hub_dataset
from assets.sft import sft_shards
from assets.specs import task_specs
from assets.taxonomy import capability_taxonomy
from assets.trajectories import teacher_trajectories
from pipelines.freshness import (
    checkpoint_input_hash,
    eval_input_hash,
    held_out_env_ids,
    latest_metadata,
    publishable_partitions,
    rl_input_hash,
    sft_paths,
    train_env_ids,
    why_stale,
)
from pipelines.jobs import RL_ASSETS
from pipelines.resources import CoworkenvSettings
from pipelines.staleness import DATA_DIR, located, partition_state, partition_states, sync_partitions
from tests.support.pipeline_child import ROOT, make_workspace, write_capability

pytestmark = pytest.mark.timeout(300)

CAPABILITY = "report_from_data"
CHAIN = [capability_taxonomy, task_specs, validated_envs, teacher_trajectories, sft_shards, hub_dataset]


@pytest.fixture(scope="module")
def published_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One capability (4 specs, held out of training so its envs are the test split) materialized and published,
    once: under `live/` (instance in `home/`, `data/`, `taxonomy/`), kept as it was in `pristine/`."""
    from coworkenv.synth import load_taxonomy

    root = tmp_path_factory.mktemp("published")
    live = root / "live"
    taxonomy = live / "taxonomy"
    taxonomy.mkdir(parents=True)
    (live / "home").mkdir()
    write_capability(taxonomy, load_taxonomy(ROOT / "taxonomy")[CAPABILITY], quota=4)
    settings = _settings(live)
    with dg.instance_for_test(temp_dir=str(live / "home")) as instance:
        sync_partitions(instance, settings.taxonomy())
        assert dg.materialize(CHAIN, selection=[task_specs, validated_envs, teacher_trajectories],
                              partition_key=CAPABILITY, instance=instance, resources={"settings": settings}).success
        assert dg.materialize(CHAIN, selection=[sft_shards, hub_dataset], instance=instance,
                              resources={"settings": settings}).success
    shutil.copytree(live, root / "pristine", symlinks=True)
    return root


def _settings(live: Path) -> CoworkenvSettings:
    return CoworkenvSettings(data_dir=str(live / "data"), taxonomy_dir=str(live / "taxonomy"),
                             held_out_capability=CAPABILITY)


@pytest.fixture
def published(published_once: Path) -> Iterator[tuple[dg.DagsterInstance, CoworkenvSettings]]:
    """`published_once` as it was after publishing (each test changes it: put back from `pristine/` at the same
    paths, which the instance's records of the outputs name)."""
    live = published_once / "live"
    shutil.rmtree(live)
    shutil.copytree(published_once / "pristine", live, symlinks=True)
    with dg.instance_for_test(temp_dir=str(live / "home")) as instance:
        yield instance, _settings(live)


def _with(settings: CoworkenvSettings, **changes: object) -> CoworkenvSettings:
    """A copy with changes (a resource must be constructed anew for Dagster to see them)."""
    return CoworkenvSettings(**{**{name: getattr(settings, name) for name in CoworkenvSettings.model_fields},
                                **changes})  # type: ignore[arg-type]


def _report(instance: dg.DagsterInstance, asset: str, **metadata: str) -> None:
    instance.report_runless_asset_event(dg.AssetMaterialization(asset, metadata=metadata))


def _trained(instance: dg.DagsterInstance, settings: CoworkenvSettings, folder: Path) -> None:
    """Record a checkpoint and an eval report as the assets would, for the current dataset and envs."""
    folder.mkdir(parents=True, exist_ok=True)
    version = str((latest_metadata(instance, "hub_dataset") or {})["version"])
    where = {DATA_DIR: str(settings.root)} if settings.root in folder.parents else {}
    _report(instance, "pocketworker_checkpoint", checkpoint=str(folder), model_tag=f"m-{version}",
            input_hash=checkpoint_input_hash(version, settings), **where)
    envs = held_out_env_ids(sft_paths(instance, settings) or {}, publishable_partitions(instance, settings)[0],
                            settings.eval_max_envs)
    assert envs, "the held-out capability's envs are the test split"
    report = folder / "report.md"
    report.write_text("report")
    _report(instance, "eval_report", report_path=str(report), input_hash=eval_input_hash(f"m-{version}", envs, settings),
            **where)


def test_nothing_changed_means_nothing_to_rebuild(published: tuple[dg.DagsterInstance, CoworkenvSettings],
                                                  tmp_path: Path) -> None:
    instance, settings = published
    assert why_stale(instance, "pocketworker_checkpoint", settings) == "never materialized"
    _trained(instance, settings, tmp_path / "ckpt")
    for asset in ("sft_shards", "hub_dataset", "pocketworker_checkpoint", "eval_report"):
        assert why_stale(instance, asset, settings) == "", asset


def _rl_trained(instance: dg.DagsterInstance, settings: CoworkenvSettings, folder: Path) -> None:
    """Record the RL assets as they would be, for the current checkpoint, RL config and envs."""
    folder.mkdir(exist_ok=True)
    tag = str((latest_metadata(instance, "pocketworker_checkpoint") or {})["model_tag"])
    sft = latest_metadata(instance, "sft_shards") or {}
    envs = train_env_ids(sft["paths"], publishable_partitions(instance, settings)[0], settings.rl_max_envs)
    (folder / "rollouts.parquet").write_bytes(b"")
    (folder / "comparison.md").write_text("table")
    _report(instance, "rl_rollouts", path=str(folder / "rollouts.parquet"),
            input_hash=rl_input_hash("rl_rollouts", tag, envs, settings))
    _report(instance, "rl_checkpoint", checkpoint=str(folder), input_hash=rl_input_hash("rl_checkpoint", tag, envs, settings))
    _report(instance, "rl_comparison", report_path=str(folder / "comparison.md"),
            input_hash=rl_input_hash("rl_comparison", tag, envs, settings))


def test_rl_is_redone_for_a_new_checkpoint_or_rl_config_and_only_then(
        published: tuple[dg.DagsterInstance, CoworkenvSettings], tmp_path: Path) -> None:
    instance, settings = published
    _trained(instance, settings, tmp_path / "ckpt")
    assert why_stale(instance, "rl_checkpoint", settings) == "never materialized"
    _rl_trained(instance, settings, tmp_path / "rl")
    assert [why_stale(instance, asset, settings) for asset in RL_ASSETS] == ["", "", ""]
    other = _with(settings, rl_config="rl-learn-tiny")
    assert [why_stale(instance, asset, other) for asset in RL_ASSETS] == ["its inputs changed"] * 3
    assert why_stale(instance, "pocketworker_checkpoint", other) == "" and why_stale(instance, "eval_report", other) == ""
    seeds = _with(settings, rl_seeds=settings.rl_seeds + 1)
    assert [why_stale(instance, asset, seeds) for asset in RL_ASSETS] == ["", "", "its inputs changed"]
    _report(instance, "pocketworker_checkpoint", checkpoint=str(tmp_path / "ckpt"), model_tag="retrained")
    assert why_stale(instance, "rl_checkpoint", settings) == "its inputs changed"


def test_a_new_trainer_config_retrains(published: tuple[dg.DagsterInstance, CoworkenvSettings],
                                       tmp_path: Path) -> None:
    instance, settings = published
    _trained(instance, settings, tmp_path / "ckpt")
    other = _with(settings, train_config="pocketworker-8b")
    assert why_stale(instance, "pocketworker_checkpoint", other) == "its inputs changed"
    assert why_stale(instance, "hub_dataset", other) == "", "the dataset does not depend on the trainer"


def test_other_eval_envs_or_a_deleted_checkpoint_are_redone(published: tuple[dg.DagsterInstance, CoworkenvSettings],
                                                            tmp_path: Path) -> None:
    instance, settings = published
    _trained(instance, settings, tmp_path / "ckpt")
    fewer = _with(settings, eval_max_envs=1)
    assert why_stale(instance, "eval_report", fewer) == "its inputs changed"
    assert why_stale(instance, "pocketworker_checkpoint", fewer) == ""
    (tmp_path / "ckpt" / "report.md").unlink()
    assert why_stale(instance, "eval_report", settings).startswith("its output")


def test_a_new_dataset_version_retrains(published: tuple[dg.DagsterInstance, CoworkenvSettings],
                                        tmp_path: Path) -> None:
    instance, settings = published
    _trained(instance, settings, tmp_path / "ckpt")
    seeded = _with(settings, seed=3)
    assert why_stale(instance, "sft_shards", settings) == ""
    sync_partitions(instance, seeded.taxonomy())
    assert dg.materialize(CHAIN, selection=[task_specs, validated_envs, teacher_trajectories],
                          partition_key=CAPABILITY, instance=instance, resources={"settings": seeded}).success
    assert why_stale(instance, "sft_shards", seeded) == "its inputs changed"
    assert dg.materialize(CHAIN, selection=[sft_shards, hub_dataset], instance=instance,
                          resources={"settings": seeded}).success
    assert why_stale(instance, "pocketworker_checkpoint", seeded) == "its inputs changed"


def test_a_moved_data_folder_is_read_where_it_is_now(published: tuple[dg.DagsterInstance, CoworkenvSettings]) -> None:
    """`mv data moved`, COWORKENV_DATA_DIR=moved: each record names the data folder its paths were written under, so
    they are read at the same place in the moved folder. On `main` the partitions were reused, but every aggregate
    (the SFT shards, the release, the trained checkpoint and its eval) was made again, with a reason naming both
    folders, and the "data folder moved" line came back on every later run. A file really gone, or changed in the
    moved folder, is still found."""
    instance, settings = published
    old = Path(settings.data_dir)
    _trained(instance, settings, old / "checkpoints" / "pocketworker-x")
    moved = _with(settings, data_dir=str(old.parent / "moved"))
    old.rename(moved.root)
    states = partition_states(instance, moved.taxonomy(), moved)
    assert [s.reason for s in states] == [""] and states[0].moved_from is None
    assert all(moved.root in path.parents for path in states[0].paths.values())
    for asset in ("sft_shards", "hub_dataset", "pocketworker_checkpoint", "eval_report"):
        assert why_stale(instance, asset, moved) == "", f"{asset} (main: its output .../data/... is gone)"
    assert all(moved.root in Path(path).parents for path in (sft_paths(instance, moved) or {}).values())
    checkpoint = latest_metadata(instance, "pocketworker_checkpoint") or {}
    assert located(str(checkpoint["checkpoint"]), checkpoint, moved.root) == str(moved.root / "checkpoints/pocketworker-x")
    assert located(str(old / "store/x"), {}, moved.root) == str(old / "store/x")  # a record naming no data folder
    assert located(str(old / "store"), {}, moved.root) == str(moved.root / "store")  # ... is found when it moved

    envs = next(p for p in states[0].paths.values() if "validated_envs" in p.parts)
    envs.write_bytes(envs.read_bytes() + b"x")
    capability = moved.taxonomy()[CAPABILITY]
    assert partition_state(instance, capability, moved).reason == f"validated_envs: its file {envs} was changed on disk " \
                                                                  "since it was written"
    envs.unlink()
    assert partition_state(instance, capability, moved).reason == f"validated_envs: its file {envs} is gone"


def test_a_second_run_with_nothing_changed_launches_no_run(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path, (CAPABILITY,))
    code, console = ws.run()
    assert code == 0, console
    with ws.instance() as instance:
        runs = len(instance.get_runs())
    code, console = ws.run()
    assert code == 0, console
    assert "every capability partition is complete" in console
    assert "sft_shards               up to date" in console and "hub_dataset              up to date" in console
    assert f"dataset          {ws.data}" in console
    with ws.instance() as instance:
        assert len(instance.get_runs()) == runs


TINY_MODEL = """
model:
  source: tiny
  chat_template: qwen3_training
  tiny: {hidden_size: 32, intermediate_size: 64, num_hidden_layers: 1, num_attention_heads: 2,
         num_key_value_heads: 1, head_dim: 16, min_token_frequency: 1, max_position_embeddings: 8192}
"""
SFT_CONFIG = "name: sft-test" + TINY_MODEL + """
training: {max_length: 8192, max_steps: 1, per_device_train_batch_size: 2, learning_rate: 1.0e-3}
"""
RL_CONFIG = "name: rl-test" + TINY_MODEL + """
rollout: {max_new_tokens: 6, max_agent_steps: 2, max_completion_tokens: 96}
training: {max_steps: 2, num_generations: 2, per_device_train_batch_size: 2, learning_rate: 1.0e-3}
"""
HELD_OUT = "reschedule_conflict"
FULL_RUN_TIMEOUT_S = 400  # generation, SFT, eval and RL of a tiny model: about a minute on an idle 2-core machine


@pytest.mark.slow
def test_a_second_full_run_retrains_nothing(tmp_path: Path) -> None:
    """SFT, eval and the GRPO run (rl_rollouts + rl_checkpoint), with configs small enough for seconds of training."""
    ws = make_workspace(tmp_path / "ws", (CAPABILITY, HELD_OUT), specs=2)
    (tmp_path / "sft.yaml").write_text(SFT_CONFIG)
    (tmp_path / "rl.yaml").write_text(RL_CONFIG)
    # No test split for the trained capability (its 2 envs train; the held-out capability is the eval set), so the
    # run does not depend on where a hash puts 2 envs.
    env = ws.env(held_out=HELD_OUT, COWORKENV_TRAIN_CONFIG=str(tmp_path / "sft.yaml"),
                 COWORKENV_RL_CONFIG=str(tmp_path / "rl.yaml"), COWORKENV_EVAL_MAX_ENVS="2",
                 COWORKENV_EVAL_MAX_STEPS="1", COWORKENV_EVAL_MAX_TOKENS="4", COWORKENV_TEST_FRACTION="0")
    code, console = ws.finish(ws.start(env, argv=[]), timeout_s=FULL_RUN_TIMEOUT_S)
    assert code == 0, console
    assert "rl_checkpoint            ok" in console and "RL reward slope" in console, console
    with ws.instance() as instance:
        runs = len(instance.get_runs())
        rollouts = latest_metadata(instance, "rl_rollouts") or {}
        checkpoint = latest_metadata(instance, "rl_checkpoint") or {}
        report = latest_metadata(instance, "eval_report") or {}
    assert rollouts["episodes"] == 4 and rollouts["rl_steps"] == 2  # 2 steps x 1 group of 2 episodes
    assert checkpoint["steps"] == 2 and str(checkpoint["reward_curve"]).startswith("![RL reward curve](data:image/png")
    assert "paired bootstrap" in str(report["report"]) and f"| {HELD_OUT} |" in str(report["report"])

    code, console = ws.finish(ws.start(env, argv=[]), timeout_s=FULL_RUN_TIMEOUT_S)
    assert code == 0, console
    for asset in ("sft_shards", "hub_dataset", "pocketworker_checkpoint", "eval_report", "rl_checkpoint"):
        assert f"{asset:<24} up to date" in console, console
    with ws.instance() as instance:
        assert len(instance.get_runs()) == runs, "a run with nothing changed launches no run"
