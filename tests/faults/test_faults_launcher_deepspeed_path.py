"""Fault corpus, the DeepSpeed file an accelerate config names (`deepspeed_config.deepspeed_config_file`) against the
one the training config names (`distributed.deepspeed_config`). `accelerate launch` reads the first, relative to the
folder it is launched in (the README's recipe: the repository root); the loaders checked the second only, relative to
the training config's folder. So a user who copied the launcher pair beside their own config and edited the JSON
(ZeRO offload, another stage) had the config accepted while the launch ran DeepSpeed on the shipped JSON, without a
word; one who wrote `deepspeed_config_file: deepspeed_zero3.json`, relative to the config's folder as the training
config's own keys are, or named a file that is missing or broken, learned it from 8 processes' tracebacks on the GPU
node. Each is now refused when the config is loaded (`coworkenv train`, the pipeline's checks), naming the accelerate
config's line, the file the launch would read and the one the config names."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.faults.harness import refused
from trainers.config import CONFIGS_DIR, load_sft_config
from trainers.rl_config import load_rl_config

LOADERS: dict[str, tuple[str, Callable[[str], object]]] = {
    "sft": ("pocketworker-8b", load_sft_config), "rl": ("rl-pocketworker-8b", load_rl_config)}
ACCELERATE, DEEPSPEED = "accelerate_zero3.yaml", "deepspeed_zero3.json"
SHIPPED = "trainers/configs/deepspeed_zero3.json"


def _copied(tmp_path: Path, stage: str, deepspeed_file: str | None = SHIPPED) -> Path:
    """The stage's 8B config with its launcher pair copied into `tmp_path` and the JSON edited (ZeRO-3 offloading its
    parameters to the CPU), the accelerate config naming `deepspeed_file` (as copied: the shipped JSON, relative to the
    repository root); the config's path."""
    name = LOADERS[stage][0]
    for file in (f"{name}.yaml", ACCELERATE, DEEPSPEED):
        shutil.copyfile(CONFIGS_DIR / file, tmp_path / file)
    edited = json.loads((tmp_path / DEEPSPEED).read_text(encoding="utf-8"))
    edited["zero_optimization"]["offload_param"] = {"device": "cpu", "pin_memory": True}
    (tmp_path / DEEPSPEED).write_text(json.dumps(edited, indent=2) + "\n", encoding="utf-8")
    text = (tmp_path / ACCELERATE).read_text(encoding="utf-8")
    assert f"deepspeed_config_file: {SHIPPED}\n" in text
    (tmp_path / ACCELERATE).write_text(text.replace(f"deepspeed_config_file: {SHIPPED}\n",
                                                    f"deepspeed_config_file: {deepspeed_file}\n"), encoding="utf-8")
    return tmp_path / f"{name}.yaml"


def _line_of_the_key(tmp_path: Path) -> int:
    lines = (tmp_path / ACCELERATE).read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines) if "deepspeed_config_file:" in line) + 1


@pytest.mark.parametrize("stage", LOADERS)
def test_a_copied_pair_whose_accelerate_config_still_names_the_shipped_json_is_refused(
        tmp_path: Path, stage: str) -> None:
    config = _copied(tmp_path, stage)
    with pytest.raises(ValueError) as caught:
        LOADERS[stage][1](str(config))
    message = str(caught.value)
    assert message.startswith(f"{tmp_path / ACCELERATE}:{_line_of_the_key(tmp_path)}: "), message
    assert str(CONFIGS_DIR / DEEPSPEED) in message and str(tmp_path / DEEPSPEED) in message, message
    assert f"distributed.deepspeed_config of {config}" in message and "absolute path" in message, message


# What the accelerate config's key says -> what the refusal says
WRITTEN = {
    "relative to the config's folder": (DEEPSPEED, "does not exist"),
    "a file that is missing": ("/nonexistent/zero3.json", "does not exist"),
    "another json than the config's": ("OTHER", "not the distributed.deepspeed_config"),
}


@pytest.mark.parametrize("written", sorted(WRITTEN))
def test_the_deepspeed_file_accelerate_would_read_is_checked_against_the_config(
        tmp_path: Path, written: str) -> None:
    value, says = WRITTEN[written]
    if value == "OTHER":
        other = tmp_path / "zero2.json"
        other.write_text('{"zero_optimization": {"stage": 2}}\n', encoding="utf-8")
        value = str(other)
    config = _copied(tmp_path, "sft", value)
    with pytest.raises(ValueError) as caught:
        load_sft_config(str(config))
    message = str(caught.value)
    assert message.startswith(f"{tmp_path / ACCELERATE}:{_line_of_the_key(tmp_path)}: ") and says in message, message


def test_a_broken_json_named_only_by_the_accelerate_config_is_refused(tmp_path: Path) -> None:
    """The training config names no DeepSpeed file: the one accelerate reads is checked as DeepSpeed reads it."""
    config = _copied(tmp_path, "sft", str(tmp_path / "mine.json"))
    (tmp_path / "mine.json").write_text('{"zero_optimization": {"stage": 3},}\n', encoding="utf-8")
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("  deepspeed_config: deepspeed_zero3.json\n", ""), encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        load_sft_config(str(config))
    message = str(caught.value)
    assert message.startswith(f"{tmp_path / 'mine.json'}:1: invalid JSON"), message
    assert f"deepspeed_config_file of {tmp_path / ACCELERATE}" in message, message


def test_coworkenv_train_names_the_mismatch_before_any_training(tmp_path: Path) -> None:
    config = _copied(tmp_path, "sft")
    (tmp_path / "sft").mkdir()
    refused(["train", "sft", "--config", str(config), "--data", str(tmp_path / "sft"), "--out", str(tmp_path / "out")],
            f"{tmp_path / ACCELERATE}:{_line_of_the_key(tmp_path)}: ", str(tmp_path / DEEPSPEED))
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("stage", LOADERS)
def test_guard_the_shipped_configs_and_a_pair_naming_one_file_load_from_any_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stage: str) -> None:
    """Regression guard (holds on main): the shipped configs from the repository root and from another folder (the
    README's launch folder is the root); a copied pair whose accelerate config names the copy by absolute path; a pair
    copied and not edited (the shipped JSON holds the same bytes)."""
    name, load = LOADERS[stage]
    monkeypatch.chdir(tmp_path)
    assert load(name).distributed.deepspeed_config == CONFIGS_DIR / DEEPSPEED  # type: ignore[attr-defined]
    monkeypatch.chdir(CONFIGS_DIR.parents[1])
    assert load(name).distributed.deepspeed_config == CONFIGS_DIR / DEEPSPEED  # type: ignore[attr-defined]
    config = _copied(tmp_path, stage, str(tmp_path / DEEPSPEED))
    assert load(str(config)).distributed.deepspeed_config == tmp_path / DEEPSPEED  # type: ignore[attr-defined]
    config = _copied(tmp_path, stage)
    shutil.copyfile(CONFIGS_DIR / DEEPSPEED, tmp_path / DEEPSPEED)
    assert load(str(config)).distributed.deepspeed_config == tmp_path / DEEPSPEED  # type: ignore[attr-defined]
