"""Fault corpus, the staging folder a refused or failed training leaves beside its `--out`. `checkpoint_staging`
makes `.<out>.partial` and locks it before the training reads its data or its start; a refusal then (shards that
are not Parquet, a folder with no shards, a start checkpoint refused) raised out of the block and left the empty
`.ck.partial` behind, although the docstring says nothing is left behind: on `main` each `coworkenv train sft` with a
bad `--data` into a fresh folder left one (measured with a sweep of `train sft`, `train rl`, `eval`, `rollout`,
`validate`, `curate`, `synth` on bad input, each into a fresh folder: only the staging folder was left). Now the
block removes the folder when it is still the locked staging folder and empty. Guards: a staging folder holding files
(the trained weights a failed finishing write left, which its error names) is kept; a second training waiting on the
lock makes the folder again and writes there."""

from __future__ import annotations

from pathlib import Path

import pytest

from trainers.checkpoint_files import checkpoint_staging


def test_a_refused_train_sft_leaves_no_staging_folder(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    from trainers.sft import train_sft  # its import is shared with the corpus's checkpoint files; the call 0.01 s

    data = tmp_path / "data"
    data.mkdir()
    (data / "train-00000-of-00001.parquet").write_text("not parquet")
    with pytest.raises(Exception, match="not a readable Parquet file"):
        train_sft("tiny", data, tmp_path / "ck")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]


def test_a_block_that_fails_before_writing_leaves_nothing(tmp_path: Path) -> None:
    with pytest.raises(ValueError), checkpoint_staging(tmp_path / "ck"):
        raise ValueError("refused before anything was written")
    assert list(tmp_path.iterdir()) == []


def test_a_staging_folder_holding_weights_is_kept(tmp_path: Path) -> None:
    with pytest.raises(OSError), checkpoint_staging(tmp_path / "ck") as staging:
        (staging / "model.safetensors").write_bytes(b"weights")
        raise OSError(28, "No space left on device")
    assert (tmp_path / ".ck.partial" / "model.safetensors").read_bytes() == b"weights"
    with checkpoint_staging(tmp_path / "ck") as staging:  # the next training empties and reuses it
        assert list(staging.iterdir()) == []
        (staging / "model.safetensors").write_bytes(b"new")
        staging.rename(tmp_path / "ck")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ck"]
    assert (tmp_path / "ck" / "model.safetensors").read_bytes() == b"new"
