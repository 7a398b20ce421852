"""Fault corpus, the trained weights that cannot be saved: the disk fills at the end of a training, while
`trainer.save_model` writes the checkpoint into its staging folder (`.<out>.partial`). On a real full disk (a 200 KiB
tmpfs in a user namespace, a tiny model's `save_pretrained`) safetensors raises its own `SafetensorError("Error while
serializing: I/O error: No space left on device (os error 28)")` after config.json and generation_config.json are
written; torch's writer of training_args.bin says `PytorchStreamWriter failed writing file ...`, quoting no reason.

Measured on `main`: the library's error went out of `train_sft` as it stood (the command line made a line of it naming
no folder, nor that the checkpoint at --out was the previous one) and the staging folder stayed with config.json and
no weights. Now a `WeightsSaveError` (a WriteError: one `error:` line) names the staging folder, says the training's
weights are not saved and that the checkpoint at --out is the previous one, and what the save wrote is removed.
Guard: an error of the save that is not the file system's goes out as it was."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from coworkenv.atomic import WriteError

pytest.importorskip("transformers")

SafetensorError = type("SafetensorError", (Exception,), {})
FAILURES = {
    "safetensors, full disk": SafetensorError("Error while serializing: I/O error: No space left on device "
                                              "(os error 28)"),
    "torch's writer": RuntimeError("[enforce fail at inline_container.cc:603] . PytorchStreamWriter failed writing "
                                   "file data/0: file write failed"),
}


def _trainer(failure: Exception) -> Any:
    def save_model(folder: str) -> None:
        (Path(folder) / "config.json").write_text("{}")  # what save_pretrained writes before the weights
        raise failure

    return SimpleNamespace(accelerator=SimpleNamespace(wait_for_everyone=lambda: None),
                           train=lambda: SimpleNamespace(metrics={}), save_model=save_model,
                           is_world_process_zero=lambda: True)


def _train(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, failure: Exception) -> Path:
    import trainers.sft

    monkeypatch.setattr(trainers.sft, "build_sft_trainer", lambda *args, **kwargs: SimpleNamespace(
        trainer=_trainer(failure), config=None, recorder=None, data_files=[], examples_truncated=0))
    out = tmp_path / "ckpt"
    trainers.sft.train_sft("tiny", tmp_path, out)
    return out


@pytest.mark.parametrize("failure", sorted(FAILURES))
def test_weights_that_cannot_be_saved_are_named_and_the_partial_save_removed(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, failure: str) -> None:
    with pytest.raises(WriteError) as caught:
        _train(monkeypatch, tmp_path, FAILURES[failure])
    said = str(caught.value)
    staging = tmp_path / ".ckpt.partial"
    assert f"cannot save the trained weights into {staging}" in said, said
    assert "weights are not saved" in said and f"the checkpoint at {tmp_path / 'ckpt'} is the previous one" in said
    assert ("No space left on device" in said and "free disk space" in said) or "Input/output error" in said, said
    assert not staging.exists() and not (tmp_path / "ckpt").exists()


def test_guard_an_error_of_the_save_that_is_not_the_disks_goes_out_as_it_was(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="tied weights"):
        _train(monkeypatch, tmp_path, ValueError("tied weights cannot be saved as safetensors"))
