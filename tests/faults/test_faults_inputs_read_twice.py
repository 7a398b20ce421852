"""Fault corpus, an input read twice: once for the version, hash or name it is recorded under, once to use it. The
pipeline's checkpoint and RL assets read their YAML trainer config for the `input_hash` and the version of what they
make, then the trainer read it again to train: a config edited (saved by an editor, in place or renamed over)
between the reads was trained under the earlier config's version, and `python -m pipelines.run` then took the run
for up to date with the edited config (or the reverse). What is recorded must be the version of what was used.

Every case calls the asset function in this process with a Dagster context on an ephemeral instance; the edit is
made right after the config's first read (a wrapper around the YAML reader), and the real trainer entry (`train_sft`,
`train_rl`, `compare_rl_variants`) is stopped where it starts training (`_train_into`), after its own config
resolution, so no model is built. The helpers choosing the envs (`held_out_specs`, `_train_envs`, ...) are replaced:
they read the published partitions, which this class is not about.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import dagster as dg
import pytest

import assets.rl as rl_assets
import assets.training as training_assets
import trainers.config
import trainers.rl
import trainers.sft
from pipelines.freshness import checkpoint_input_hash, rl_config_hash, rl_input_hash, trainer_config_hash
from pipelines.resources import CoworkenvSettings

CONFIGS = Path(trainers.config.__file__).parent / "configs"


class Paused(Exception):
    """The trainer reached its training loop: what it was given is captured."""


def _configs(tmp_path: Path, name: str) -> tuple[Path, Path, Path]:
    """(the config the pipeline reads, a copy of it as it was, a copy as it is edited): `learning_rate` changed."""
    text = (CONFIGS / f"{name}.yaml").read_text(encoding="utf-8")
    edited = re.sub(r"learning_rate: *\S+", "learning_rate: 7.5e-3", text, count=1)
    assert edited != text
    paths = []
    for folder, content in (("used", text), ("old", text), ("new", edited)):
        (tmp_path / folder).mkdir()
        path = tmp_path / folder / f"{name}.yaml"
        path.write_text(content, encoding="utf-8")
        paths.append(path)
    return paths[0], paths[1], paths[2]


def _edit_after_first_read(monkeypatch: pytest.MonkeyPatch, config: Path, edited: Path, how: str) -> None:
    read, done = trainers.config.read_yaml, []

    def read_then_edit(path: Path) -> Any:
        document = read(path)
        if not done and Path(path) == config:
            done.append(True)
            if how == "renamed over":  # an editor's atomic save
                shutil.copyfile(edited, config.with_name(".edit.yaml"))
                os.replace(config.with_name(".edit.yaml"), config)
            else:  # saved in place
                config.write_bytes(edited.read_bytes())
        return document

    monkeypatch.setattr(trainers.config, "read_yaml", read_then_edit)


def _pause(monkeypatch: pytest.MonkeyPatch, module: Any) -> list[tuple[Any, Path]]:
    """Stop `module._train_into` (the trainer's start, after its config was resolved); (config, out_dir) given."""
    given: list[tuple[Any, Path]] = []

    def stop(staging: Path, out_dir: Path, config: Any, *args: Any, **kwargs: Any) -> Any:
        given.append((config, Path(out_dir)))
        raise Paused

    monkeypatch.setattr(module, "_train_into", stop)
    return given


def _settings(tmp_path: Path, **configs: Path) -> CoworkenvSettings:
    return CoworkenvSettings(data_dir=str(tmp_path / "data"), **{k: str(v) for k, v in configs.items()})


def _instance(asset: str, metadata: dict[str, Any]) -> dg.DagsterInstance:
    instance = dg.DagsterInstance.ephemeral()
    instance.report_runless_asset_event(dg.AssetMaterialization(asset_key=asset, metadata=metadata))
    return instance


@pytest.mark.parametrize("how", ["saved in place", "renamed over"])
def test_the_checkpoint_is_recorded_under_the_config_it_was_trained_with(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch,
                                                                         how: str) -> None:
    """pocketworker_checkpoint: on main the `input_hash` was the earlier config's, the version (and the checkpoint's
    folder) and the training the edited one's: `pipelines.run` took the checkpoint for one of the earlier config."""
    config, old, new = _configs(tmp_path, "tiny")
    data = tmp_path / "release"
    data.mkdir()
    instance = _instance("hub_dataset", {"version": "v1", "location": str(data)})
    monkeypatch.setattr(training_assets, "held_out_specs", lambda *_: ["a held-out spec"])
    monkeypatch.setattr(training_assets, "train_env_ids", lambda *_: ["env-a"])
    monkeypatch.setattr(training_assets, "current_sft_files", lambda *_: {})
    monkeypatch.setattr(training_assets, "complete_partitions", lambda *_: [])
    recorded: list[str] = []

    def spy(*args: Any, **kwargs: Any) -> str:
        recorded.append(checkpoint_input_hash(*args, **kwargs))
        return recorded[-1]

    monkeypatch.setattr(training_assets, "checkpoint_input_hash", spy)
    given = _pause(monkeypatch, trainers.sft)
    _edit_after_first_read(monkeypatch, config, new, how)
    with pytest.raises(Paused):
        training_assets.pocketworker_checkpoint(dg.build_asset_context(instance=instance),
                                                _settings(tmp_path, train_config=config))
    ((trained, out_dir),) = given
    assert config.read_bytes() == new.read_bytes()  # the edit was made, after the first read
    used = old if trained.training.learning_rate == trainers.config.load_sft_config(old).training.learning_rate \
        else new
    assert trained.training.learning_rate == trainers.config.load_sft_config(used).training.learning_rate
    assert out_dir.name == f"pocketworker-tiny-v1-{trainer_config_hash(str(used))[:8]}"
    assert recorded == [checkpoint_input_hash("v1", _settings(tmp_path, train_config=used))]


def _rl_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str, asset: Any) -> tuple[Path, str, Path]:
    """`asset` (an RL asset function) run with its config edited after its first read, stopped at the trainer's
    start: (the config file the training used: old or new, the input hash of that config, the run's folder)."""
    config, old, new = _configs(tmp_path, "rl-tiny")
    instance = _instance("pocketworker_checkpoint", {  # not made: the trainer checks a local checkpoint's files
        "checkpoint": dg.MetadataValue.path(str(tmp_path / "sft-checkpoint")), "model_tag": "tiny-v1-abc"})
    monkeypatch.setattr(rl_assets, "_train_envs", lambda *_: ([], ["env-a"]))
    given = _pause(monkeypatch, trainers.rl)
    _edit_after_first_read(monkeypatch, config, new, how)
    with pytest.raises(Paused):
        list(asset(dg.build_asset_context(instance=instance), _settings(tmp_path, rl_config=config)) or [])
    ((trained, out_dir),) = given
    assert config.read_bytes() == new.read_bytes()  # the edit was made, after the first read
    lr = trained.training.learning_rate
    used = old if lr == trainers.rl.load_rl_config(old).training.learning_rate else new
    assert lr == trainers.rl.load_rl_config(used).training.learning_rate
    name = rl_assets.RL_CHECKPOINT if asset is rl_assets.rl_training else rl_assets.RL_COMPARISON
    return used, rl_input_hash(name, "tiny-v1-abc", ["env-a"], _settings(tmp_path, rl_config=used)), out_dir


@pytest.mark.parametrize("how", ["saved in place", "renamed over"])
def test_the_rl_checkpoint_is_recorded_under_the_config_it_was_trained_with(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch,
                                                                            how: str) -> None:
    """rl_training: on main the `input_hash` (in the version and the folder's name) was the earlier config's, the
    config hash in the version and the training the edited one's."""
    used, input_hash, out_dir = _rl_run(tmp_path, monkeypatch, how, rl_assets.rl_training)
    assert out_dir.name == f"rl-rl-tiny-{rl_config_hash(str(used))[:8]}-{input_hash[:12]}"


def test_the_rl_comparison_is_recorded_under_the_config_it_was_trained_with(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """rl_comparison: on main the comparison's folder (named by its `input_hash`) and its `input_hash` were the
    earlier config's, its runs trained with the edited one."""
    _, input_hash, out_dir = _rl_run(tmp_path, monkeypatch, "saved in place", rl_assets.rl_comparison)
    assert out_dir.parent.name == f"rl-tiny-{input_hash[:12]}"


def test_the_eval_compares_the_checkpoint_with_the_base_it_was_trained_from(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """eval_report, the config edited after the checkpoint was trained (a from-scratch `tiny` run, then the file
    switched to a pretrained model): on main the eval read the config again and compared the checkpoint with the
    pretrained model, published as the evaluation of the checkpoint trained from scratch; the base must be the one
    the checkpoint's own record (`sft_run.json`) names: the untrained twin."""
    import json

    import trainers.batching
    import trainers.local_backend

    config, old, _ = _configs(tmp_path, "tiny")
    checkpoint = tmp_path / "checkpoints" / "pocketworker-tiny-v1-abc"
    checkpoint.mkdir(parents=True)
    (checkpoint / trainers.sft.RUN_METADATA).write_text(
        json.dumps({"config": trainers.config.load_sft_config(old).to_dict()}), encoding="utf-8")
    text = (CONFIGS / "pocketworker-8b.yaml").read_text(encoding="utf-8")
    config.write_text(text[:text.index("distributed:")], encoding="utf-8")  # edited since the training
    instance = _instance("pocketworker_checkpoint", {"checkpoint": dg.MetadataValue.path(str(checkpoint)),
                                                     "model_tag": "tiny-v1-abc"})
    monkeypatch.setattr(training_assets, "held_out_specs", lambda *_: [type("Spec", (), {"id": "env-a"})()])
    bases: list[str] = []

    def backend(model: Any, *args: Any, name: str = "", **kwargs: Any) -> Any:  # no model loaded
        if name != "pocketworker-sft":
            bases.append(f"pretrained {model}")
            raise Paused
        return model

    def twin(checkpoint: Path, **kwargs: Any) -> Any:  # the copy of the checkpoint the report evaluates and publishes
        bases.append(f"untrained twin of {Path(checkpoint).parent.parent.name}/{Path(checkpoint).name}")
        raise Paused

    monkeypatch.setattr(trainers.batching, "BatchedLocalBackend", backend)
    monkeypatch.setattr(trainers.local_backend, "untrained_twin", twin)
    with pytest.raises(Paused):
        training_assets.eval_report(dg.build_asset_context(instance=instance), _settings(tmp_path, train_config=config))
    assert bases == [f"untrained twin of {checkpoint.name}-eval/model"]
