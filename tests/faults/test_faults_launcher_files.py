"""Fault corpus, the launcher files a training config names (`distributed.accelerate_config`, a YAML file, and
`distributed.deepspeed_config`, a JSON file; `pocketworker-8b` and `rl-pocketworker-8b` name both) edited by hand:
cut short, a trailing comma, a key written twice, a list instead of a mapping, bytes not UTF-8, an empty file, a
folder in the file's place. The loaders checked only that the path existed, so the config was taken and the mistake
was found by `accelerate launch` or DeepSpeed on the GPU node (a traceback from each of 8 processes, after the model
was loaded), and a folder was reported as a file "which does not exist".

Each is now refused when the config is loaded (`coworkenv train`, the pipeline's checks before any run) with one line
naming the file, the line where known, the config key that names it and the config."""

from __future__ import annotations

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


def _copied(tmp_path: Path, stage: str) -> Path:
    """The stage's 8B config with its two launcher files, copied into `tmp_path`; the config's path."""
    name = LOADERS[stage][0]
    for file in (f"{name}.yaml", ACCELERATE, DEEPSPEED):
        shutil.copyfile(CONFIGS_DIR / file, tmp_path / file)
    return tmp_path / f"{name}.yaml"


def _lines(file: Path) -> list[str]:
    return file.read_text(encoding="utf-8").splitlines()


def _cut_short(file: Path) -> tuple[int | None, str]:
    lines = _lines(file)
    file.write_text("\n".join(lines[: len(lines) // 2]) + "\n", encoding="utf-8")
    return None, "invalid"


def _trailing_comma(file: Path) -> tuple[int | None, str]:
    lines = _lines(file)
    last = max(i for i, line in enumerate(lines) if line.strip() == "}")
    lines[last - 1] += ","  # after the last key: JSON takes none
    file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return last + 1, "invalid JSON"


def _key_twice(file: Path) -> tuple[int | None, str]:
    text = file.read_text(encoding="utf-8")
    file.write_text(text.replace('"stage": 3,', '"stage": 3,\n    "stage": 2,', 1), encoding="utf-8")
    return None, "'stage' appears twice"


def _tab_indent(file: Path) -> tuple[int | None, str]:
    lines = _lines(file)
    at = next(i for i, line in enumerate(lines) if line.startswith("  deepspeed_config_file:"))
    lines[at] = "\t" + lines[at].lstrip()
    file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return at + 1, "invalid YAML"


def _a_list(file: Path) -> tuple[int | None, str]:
    file.write_text("- 8\n" if file.suffix == ".yaml" else "[8]\n", encoding="utf-8")
    return 1, "this file holds a list"


def _not_utf8(file: Path) -> tuple[int | None, str]:
    lines = len(_lines(file))
    suffix = b"# r\xe9sum\xe9\n" if file.suffix == ".yaml" else b'"r\xe9sum\xe9"\n'
    file.write_bytes(file.read_bytes() + suffix)
    return lines + 1, "not UTF-8"


def _empty(file: Path) -> tuple[int | None, str]:
    file.write_bytes(b"")
    return 1, "holds nothing" if file.suffix == ".yaml" else "invalid JSON"


def _a_folder(file: Path) -> tuple[int | None, str]:
    file.unlink()
    file.mkdir()
    return None, "is a folder"


EDITS: dict[str, tuple[str, Callable[[Path], tuple[int | None, str]]]] = {
    "deepspeed json cut short": (DEEPSPEED, _cut_short),
    "deepspeed json with a trailing comma": (DEEPSPEED, _trailing_comma),
    "deepspeed json with a key twice": (DEEPSPEED, _key_twice),
    "deepspeed json holding a list": (DEEPSPEED, _a_list),
    "deepspeed json not utf-8": (DEEPSPEED, _not_utf8),
    "deepspeed json empty": (DEEPSPEED, _empty),
    "deepspeed json a folder": (DEEPSPEED, _a_folder),
    "accelerate yaml with a tab": (ACCELERATE, _tab_indent),
    "accelerate yaml holding a list": (ACCELERATE, _a_list),
    "accelerate yaml empty": (ACCELERATE, _empty),
    "accelerate yaml a folder": (ACCELERATE, _a_folder),
}


@pytest.mark.parametrize("kind", EDITS)
@pytest.mark.parametrize("stage", LOADERS)
def test_a_damaged_launcher_file_is_named_when_the_config_is_loaded(tmp_path: Path, stage: str, kind: str) -> None:
    config = _copied(tmp_path, stage)
    name, edit = EDITS[kind]
    line, says = edit(tmp_path / name)
    with pytest.raises(ValueError) as refused_config:
        LOADERS[stage][1](str(config))
    message = str(refused_config.value)
    where = f"{tmp_path / name}:{line}: " if line is not None else f"{tmp_path / name}"
    assert message.startswith(where) and says in message, message
    key = "deepspeed_config" if name == DEEPSPEED else "accelerate_config"
    assert f"distributed.{key} of {config}" in message, message


def test_coworkenv_train_names_a_damaged_deepspeed_file_before_any_training(tmp_path: Path) -> None:
    config = _copied(tmp_path, "sft")
    line, _ = _trailing_comma(tmp_path / DEEPSPEED)
    refused(["train", "sft", "--config", str(config), "--data", str(tmp_path / "sft"), "--out", str(tmp_path / "out")],
            f"{tmp_path / DEEPSPEED}:{line}: invalid JSON", f"distributed.deepspeed_config of {config}")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("stage", LOADERS)
def test_guard_the_shipped_launcher_files_and_a_missing_one(tmp_path: Path, stage: str) -> None:
    """Regression guard (holds on main): the shipped files load; a missing one is named as before."""
    config = _copied(tmp_path, stage)
    loaded = LOADERS[stage][1](str(config))
    assert loaded.distributed.deepspeed_config == tmp_path / DEEPSPEED  # type: ignore[attr-defined]
    (tmp_path / ACCELERATE).unlink()
    with pytest.raises(FileNotFoundError, match="does not exist"):
        LOADERS[stage][1](str(config))
