"""Fault corpus, the checkpoint an RL run starts from (`coworkenv train rl --model CKPT`, `rl-compare`, the
pipeline's RL stage) changed after its check: `train_rl` checked the start's files against their record first thing,
then built the envs, the renderer and the trainer, and GRPOTrainer loaded the weights itself, by their names, with
nothing compared after. A file replaced in that window (the SFT stage saving the same checkpoint again, a copy over it)
was trained from without a word: an RL checkpoint of other weights than the record it started from.

`build_rl_trainer` now checks a local start's files just before they are read, takes their versions (inode, size,
time) first and compares them once the trainer has loaded the weights, as `load_checkpoint` does."""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dagster as dg
import pytest

pytest.importorskip("trl")

import assets.rl as rl_assets
from coworkenv.spec import EnvSpec
from coworkenv.synth import generate_specs
from coworkenv.synth.taxonomy import load_taxonomy
from pipelines.resources import CoworkenvSettings
from tests.faults.test_faults_checkpoint_manifest import save_tiny_checkpoint
from tests.faults.test_faults_eval_checkpoint_retrained import _save  # a tiny checkpoint saved as a training does
from trainers import rl
from trainers.rl import build_rl_trainer, train_rl
from trainers.rl_config import RLRunConfig


@pytest.fixture(scope="module")
def spec() -> EnvSpec:
    return generate_specs(load_taxonomy(Path("taxonomy"))["delegate_and_follow_up"], 1, 0)[0]


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_checkpoint(tmp_path_factory.mktemp("saved") / "ckpt")


def _config(start: Path) -> RLRunConfig:
    return RLRunConfig.model_validate({
        "name": "rl-test", "model": {"source": "pretrained", "name_or_path": str(start)},
        "rollout": {"max_new_tokens": 8, "max_agent_steps": 2, "max_completion_tokens": 64,
                    "max_prompt_tokens": 100000},
        "training": {"max_steps": 1, "num_generations": 2, "per_device_train_batch_size": 2},
    })


def _saved_again(name: str, change: Callable[[bytes], bytes] = lambda data: data) -> Callable[[Path], None]:
    """The file put in place again by a rename (a save, a copy), its bytes changed by `change`."""
    def again(folder: Path) -> None:
        (folder / f".{name}.new").write_bytes(change((folder / name).read_bytes()))
        os.replace(folder / f".{name}.new", folder / name)
    return again


def _before(target: Any, attribute: str, folder: Path, action: Callable[[Path], None],
            monkeypatch: pytest.MonkeyPatch) -> None:
    real = getattr(target, attribute)

    def first_the_action(*args: Any, **kwargs: Any) -> Any:
        action(folder)
        return real(*args, **kwargs)

    monkeypatch.setattr(target, attribute, first_the_action)


@pytest.mark.parametrize("name", ["model.safetensors", "tokenizer.json"])
def test_a_start_file_replaced_while_the_trainer_loads_it_is_refused(
        saved: Path, spec: EnvSpec, tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = shutil.copytree(saved, tmp_path / "ckpt")
    _before(rl.AutoConfig, "from_pretrained", folder, _saved_again(name), monkeypatch)  # same bytes, a new file
    with pytest.raises(ValueError, match="changed while the checkpoint loaded") as refused:
        build_rl_trainer(_config(folder), [spec], tmp_path / "run")
    assert str(folder / name) in str(refused.value)


def test_a_start_edited_after_train_rls_first_check_is_refused_before_training(
        saved: Path, spec: EnvSpec, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The edit lands after `train_rl`'s check, before the set-up reads the files (on main: trained from it)."""
    folder = shutil.copytree(saved, tmp_path / "ckpt")
    edit = _saved_again("config.json", lambda data: data.replace(b'"rms_norm_eps": 1e-06', b'"rms_norm_eps": 0.5'))
    assert b'"rms_norm_eps": 1e-06' in (folder / "config.json").read_bytes()
    _before(rl, "start_in_output_problem", folder, edit, monkeypatch)

    def no_training(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("training started from the edited checkpoint")

    monkeypatch.setattr(rl.EnvGRPOTrainer, "train", no_training)
    with pytest.raises(ValueError, match=r"config\.json is not the file this checkpoint was saved with"):
        train_rl(_config(folder), [spec], tmp_path / "rl")


# The SFT checkpoint trained again (a whole checkpoint with its own record: a second pipeline run sharing the data
# folder, `coworkenv train sft --out` by hand) after pocketworker_checkpoint's materialization named its record.
@pytest.fixture(scope="module")
def trainings(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("trainings")
    return _save(None, root / "first", seed=0), _save(None, root / "second", seed=1)


def test_the_rl_stage_refuses_an_sft_checkpoint_trained_again_since_its_materialization(
        trainings: tuple[Path, Path], spec: EnvSpec, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On `main` rl_comparison (and rl_training, through the same start) trained from the second training under the
    first one's tag: its runs and report named a checkpoint they did not start from."""
    first, second = trainings
    checkpoint = _save(first, tmp_path / "data" / "checkpoints" / "pocketworker-tiny-v1-abc")
    instance = dg.DagsterInstance.ephemeral()
    instance.report_runless_asset_event(dg.AssetMaterialization(asset_key="pocketworker_checkpoint", metadata={
        "checkpoint": dg.MetadataValue.path(str(checkpoint)), "model_tag": "tiny-v1-abc",
        "checkpoint_record": hashlib.sha256((checkpoint / "checkpoint_files.json").read_bytes()).hexdigest()}))
    _save(second, checkpoint)
    monkeypatch.setattr(rl_assets, "_train_envs", lambda *_: ([spec], [spec.id]))

    def no_training(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("training started from the checkpoint trained again")

    monkeypatch.setattr(rl.EnvGRPOTrainer, "train", no_training)
    config = tmp_path / "rl-test.yaml"  # the envs fit: on `main` the set-up went on to the training
    config.write_text(Path("trainers/configs/rl-tiny.yaml").read_text().replace("max_prompt_tokens: 2400",
                                                                              "max_prompt_tokens: 100000"))
    settings = CoworkenvSettings(data_dir=str(tmp_path / "data"), rl_config=str(config), rl_seeds=1)
    with pytest.raises(dg.Failure, match=r"trained or copied again since.*Materialize pocketworker_checkpoint again"):
        rl_assets.rl_comparison(dg.build_asset_context(instance=instance), settings)
    assert not (tmp_path / "data" / "rl-comparisons").exists()


def test_a_start_trained_again_during_the_set_up_is_refused_before_training(
        trainings: tuple[Path, Path], spec: EnvSpec, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Trained again after the stage's (and `train_rl`'s first) check, before the set-up loads it: each check of the
    folder against its own record passes; the record the stage took is not the one loaded."""
    first, second = trainings
    folder = _save(first, tmp_path / "ckpt")
    record = hashlib.sha256((folder / "checkpoint_files.json").read_bytes()).hexdigest()
    _before(rl, "start_in_output_problem", folder, lambda start: _save(second, start) and None, monkeypatch)

    def no_training(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("training started from the checkpoint trained again")

    monkeypatch.setattr(rl.EnvGRPOTrainer, "train", no_training)
    with pytest.raises(ValueError, match="trained or copied again since"):
        train_rl(_config(folder), [spec], tmp_path / "rl", model_record=record)
