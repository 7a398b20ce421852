"""Fault corpus, the checkpoint a `coworkenv train sft` goes on from (`model.name_or_path` naming a local folder: an
earlier SFT checkpoint trained on, a model downloaded with `--local-dir`): `train rl --model`, `eval --model` and the
local backend check such a folder against the record of its files (`checkpoint_files.json`) and for its weights and
tokenizer, but the SFT start handed it to TRL as it stood.

Measured on `main` (`build_sft_trainer`, the trainer built): a checkpoint whose config.json, tokenizer.json or
weights changed since its save, or whose rendering.json is gone, was trained from without a word; one trained with
the `compact` rendering was trained on in the config's `full` (its new record naming `full`); without its weights,
a bare OSError (`coworkenv train sft` printed its traceback); without its tokenizer, "the chat template marked no
assistant tokens", naming no file; a weights file replaced after the start was read (before TRL loaded it) was
trained from. Now each is refused with one line naming `model.name_or_path`, the file and what to do, before the
data is read or the trainer built. Regression guards: the untouched checkpoint, and a whole folder without a record
(a download), build as before."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
import pytest

pytest.importorskip("transformers")

from tests.faults.test_faults_checkpoint_manifest import CHANGES, _flip_weights, save_tiny_checkpoint
from tests.faults.test_faults_split_files import _rows


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A tiny checkpoint trained with the `compact` rendering, and a folder of 2 train rows."""
    where = tmp_path_factory.mktemp("start")
    (where / "data").mkdir()
    pq.write_table(_rows("train", 2), where / "data" / "train-00000-of-00001.parquet")
    return save_tiny_checkpoint(where / "ckpt"), where / "data"


def _unrecorded(change: Callable[[Path], object]) -> Callable[[Path], None]:
    def apply(folder: Path) -> None:  # a folder without a record: a copy or a download, not a save of ours
        (folder / "checkpoint_files.json").unlink()
        change(folder)
    return apply


def _remove_tokenizer(folder: Path) -> None:  # the weights copied alone, with the chat template
    for name in ("tokenizer.json", "tokenizer_config.json"):
        (folder / name).unlink()


# (what the error must name, the change)
STARTS: dict[str, tuple[str, Callable[[Path], object]]] = {
    **{change: CHANGES[change] for change in ("config.json rms_norm_eps edited", "tokenizer.json a token renamed",
                                              "weights' bytes changed", "rendering.json removed")},
    "weights missing": ("holds no weights", _unrecorded(lambda f: (f / "model.safetensors").unlink())),
    "tokenizer missing": ("holds no tokenizer", _unrecorded(_remove_tokenizer)),
}


def _build(start: Path, data: Path, out: Path, rendering: str = "compact") -> None:
    from trainers.sft import build_sft_trainer

    config = out.parent / "resume.yaml"
    config.write_text(f"name: resume\nmodel:\n  source: pretrained\n  name_or_path: {start}\n  rendering: {rendering}\n"
                      "training:\n  max_steps: 1\n  max_length: 512\n  per_device_train_batch_size: 1\n")
    build_sft_trainer(config, data, out)


def _copy(saved: tuple[Path, Path], tmp_path: Path) -> Path:
    folder = tmp_path / "ckpt"
    shutil.copytree(saved[0], folder)
    return folder


@pytest.mark.parametrize("start", sorted(STARTS))
def test_a_start_changed_or_incomplete_is_refused_naming_the_file(saved: tuple[Path, Path], tmp_path: Path,
                                                                 start: str) -> None:
    folder = _copy(saved, tmp_path)
    named, change = STARTS[start]
    change(folder)
    with pytest.raises(ValueError) as refused:
        _build(folder, saved[1], tmp_path / "out")
    said = str(refused.value)
    assert said.startswith("model.name_or_path: ") and "nothing was trained" in said, said
    assert (str(folder / named) if "." in named else named) in said, said


def test_a_start_trained_with_another_rendering_is_refused(saved: tuple[Path, Path], tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"trained with the 'compact' rendering .* set model.rendering: compact"):
        _build(saved[0], saved[1], tmp_path / "out", rendering="full")


def test_weights_replaced_after_the_check_are_refused(saved: tuple[Path, Path], tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The weights replaced between the start's check and TRL's load (a training saving into the folder)."""
    import trainers.sft

    folder = _copy(saved, tmp_path)
    read = trainers.sft.load_train_split

    def replaced_meanwhile(data: Path) -> object:
        _flip_weights(folder)  # other weights of the same shapes, after the check
        return read(data)

    monkeypatch.setattr(trainers.sft, "load_train_split", replaced_meanwhile)
    with pytest.raises(ValueError, match=r"model\.safetensors changed while the checkpoint loaded"):
        _build(folder, saved[1], tmp_path / "out")


def test_guard_the_untouched_start_and_a_whole_download_build(saved: tuple[Path, Path], tmp_path: Path) -> None:
    """Guard (holds on `main`)."""
    _build(saved[0], saved[1], tmp_path / "out")
    download = _copy(saved, tmp_path)
    (download / "checkpoint_files.json").unlink()
    (download / "rendering.json").unlink()  # a model of the Hub records none: the config's rendering is taken
    _build(download, saved[1], tmp_path / "out2", rendering="full")
