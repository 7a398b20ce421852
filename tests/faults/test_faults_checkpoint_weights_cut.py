"""Fault corpus, a checkpoint's weights file cut short in a folder that no manifest vouches for: a start model copied
from elsewhere (`coworkenv train sft|rl --model`, an evaluation of a folder) whose `cp`, `rsync` or download stopped
half way, or a disk that filled. `checkpoint_files_problem`, which every loader asks first (SFT and RL start, the
local evaluation backend, the training assets), looked only whether the file was there: the load then ended in
"Error while deserializing header: incomplete metadata, file not fully covered" (safetensors) or "[Errno 22] Invalid
argument" (torch's zip), naming no file. Now a `.safetensors` file must end where its header's last tensor does and a
zip `.bin` must hold its zip directory (written last); the header alone is read."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from trainers.checkpoint_files import checkpoint_files_problem

safetensors_numpy = pytest.importorskip("safetensors.numpy")


def _model(folder: Path, name: str = "model.safetensors") -> Path:
    folder.mkdir(exist_ok=True)
    (folder / "config.json").write_text('{"model_type": "tiny"}')
    path = folder / name
    safetensors_numpy.save_file({"embed": np.zeros((32, 16), dtype=np.float32), "head": np.ones(16, np.float32)},
                                str(path))
    return path


def _cut(path: Path, keep: int) -> None:
    path.write_bytes(path.read_bytes()[:keep])


@pytest.mark.parametrize("keep", [-100, 40, 5, 0], ids=["tensors cut", "header cut", "length cut", "empty"])
def test_a_safetensors_file_cut_short_is_named(tmp_path: Path, keep: int) -> None:
    weights = _model(tmp_path / "ckpt")
    _cut(weights, weights.stat().st_size + keep if keep < 0 else keep)
    problem = checkpoint_files_problem(tmp_path / "ckpt")
    assert problem is not None and str(weights) in problem and "copy it again" in problem, problem


def test_a_weight_shard_cut_short_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "ckpt"
    first = _model(folder, "model-00001-of-00002.safetensors")
    second = _model(folder, "model-00002-of-00002.safetensors")
    (folder / "model.safetensors.index.json").write_text(json.dumps(
        {"metadata": {}, "weight_map": {"embed": first.name, "head": second.name}}))
    _cut(second, second.stat().st_size - 64)
    problem = checkpoint_files_problem(folder)
    assert problem is not None and str(second) in problem and "holds" in problem, problem


def test_a_torch_bin_cut_short_is_named(tmp_path: Path) -> None:
    """torch.save writes a zip (its directory last); made here with zipfile, as torch lays it out, without torch."""
    folder = tmp_path / "ckpt"
    folder.mkdir()
    weights = folder / "pytorch_model.bin"
    with zipfile.ZipFile(weights, "w") as archive:
        archive.writestr("archive/data.pkl", b"\x80\x02}q\x00." * 50)
        archive.writestr("archive/data/0", bytes(4096))
    _cut(weights, weights.stat().st_size // 2)
    problem = checkpoint_files_problem(folder)
    assert problem is not None and str(weights) in problem and "zip directory" in problem, problem


def test_whole_weights_files_pass(tmp_path: Path) -> None:
    """Regression guard (passes on `main`): whole files of each layout, and a `.bin` of torch's older pickle format
    (no zip), are not taken for cut ones."""
    _model(tmp_path / "one")
    assert checkpoint_files_problem(tmp_path / "one") is None
    folder = tmp_path / "zip"
    folder.mkdir()
    with zipfile.ZipFile(folder / "pytorch_model.bin", "w") as archive:
        archive.writestr("archive/data.pkl", b"\x80\x02}q\x00.")
    assert checkpoint_files_problem(folder) is None
    (folder / "pytorch_model.bin").write_bytes(b"\x80\x02\x8a\x0alj\xfc\x9cF\xf9 j\xa8P\x19." + bytes(100))
    assert checkpoint_files_problem(folder) is None
